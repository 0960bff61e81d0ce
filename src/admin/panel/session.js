// @ts-check
// The admin API's client and the session: every page calls the API through here. A page that moves the
// console elsewhere announces it as a history change, which the shell (app.js) draws; so pages do not
// import the shell, and the shell imports the pages.
import { field, fill, formValues, h, notice } from "./dom.js"

/**
 * The session: the admin, the CSRF token every change carries, and whether a one-time password must be
 * replaced before anything else (from the log-in's answer or GET /session).
 */
/** @type {{ admin: { email: string, role: "viewer" | "operator" } | null, csrf: string | null, mustChangePassword: boolean }} */
export const session = { admin: null, csrf: null, mustChangePassword: false }

/**
 * Where the API is and what a lost session does: the console's, unless a shell that shares this module (the
 * partner portal's) says otherwise before its first call.
 */
export const client = {
  base: "/admin",
  loggedOut: () => {
    session.admin = null
    navigate("/admin/login")
  }
}

/** An answer other than 2xx: its status and body (`{success: false, message, errors?}`). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {any} body
   */
  constructor(status, body) {
    super(body?.message ?? `The API answered ${status}.`)
    this.status = status
    this.body = body
  }
}

/** One call to the panel's API. A change carries the session's CSRF token; a lost session leads to the log-in page. */
/**
 * @param {"GET" | "POST" | "PATCH" | "DELETE"} method
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<any>} the answer's JSON (its shape is the admin API's contract, src/api/admin)
 */
export async function api(method, path, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: "application/json" }
  if (method !== "GET" && session.csrf !== null) headers["x-csrf-token"] = session.csrf
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(`${client.base}/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin"
  })
  const answer = response.headers.get("content-type")?.includes("json") ? await response.json() : null
  if (response.status === 401 && path !== "/session") client.loggedOut()
  if (!response.ok) throw new ApiError(response.status, answer)
  return answer
}

/**
 * A change's outcome shown in `region`: what happened, or the error in words.
 * @template A
 * @param {Element} region
 * @param {() => Promise<A>} action
 * @param {string | ((result: A) => string)} [success]
 * @returns {Promise<A | undefined>}
 */
export async function attempt(region, action, success) {
  try {
    const result = await action()
    if (success !== undefined) fill(region, notice("ok", typeof success === "function" ? success(result) : success))
    return result
  } catch (caught) {
    const error = /** @type {Partial<ApiError>} */ (caught)
    /** @type {Array<string>} */
    const details = error.body?.errors ? Object.values(error.body.errors).flat().filter((m) => m !== error.message) : []
    fill(region, notice("error", [error.message, ...details].join(" ")))
    return undefined
  }
}

export const canChange = () => session.admin?.role === "operator"

/** Goes to `path` in the console: a history entry, then the shell draws it (it listens to popstate). */
/** @param {string} path */
export function navigate(path) {
  if (location.pathname + location.search !== path) history.pushState(null, "", path)
  window.dispatchEvent(new PopStateEvent("popstate"))
}

/**
 * The log-in form: e-mail and password, the outcome announced in the form; `loggedIn` gets the API's answer.
 * @param {(answer: any) => void} loggedIn
 */
export function loginForm(loggedIn) {
  const region = h("div", { "aria-live": "polite" })
  const form = h("form.card.narrow", {
    on: {
      submit: async (event) => {
        event.preventDefault()
        const values = formValues(form)
        const answer = await attempt(region, () => api("POST", "/session", { email: values.email, password: values.password }))
        if (answer !== undefined) loggedIn(answer)
      }
    }
  },
  h("h1", {}, "Log in"),
  field("E-mail", { name: "email", type: "email", autocomplete: "username", required: true }),
  field("Password", { name: "password", type: "password", autocomplete: "current-password", required: true }),
  h("button", { type: "submit" }, "Log in"),
  region)
  return form
}

/**
 * The form that replaces the session's password (12 characters or more); `changed` runs once it is saved.
 * @param {string} title
 * @param {string} intro
 * @param {() => void} changed
 */
export function passwordForm(title, intro, changed) {
  const region = h("div", { "aria-live": "polite" })
  const form = h("form.card.narrow", {
    on: {
      submit: async (event) => {
        event.preventDefault()
        const values = formValues(form)
        const done = await attempt(region, () => api("POST", "/session/password", {
          current_password: values.current_password,
          new_password: values.new_password
        }), "Your password was changed.")
        if (done !== undefined) changed()
      }
    }
  },
  h("h1", {}, title),
  h("p", {}, intro),
  field("Current password", { name: "current_password", type: "password", autocomplete: "current-password", required: true }),
  field("New password", { name: "new_password", type: "password", autocomplete: "new-password", minlength: 12, required: true }),
  h("button", { type: "submit" }, "Save"),
  region)
  return form
}

/**
 * A link within the panel: a history change the shell draws, unless the person asks for a new tab or window.
 * @param {string} path
 * @param {string} text
 */
export function link(path, text) {
  return h("a", {
    href: path,
    on: {
      click: (event) => {
        const mouse = /** @type {MouseEvent} */ (event)
        if (mouse.metaKey || mouse.ctrlKey || mouse.shiftKey) return
        event.preventDefault()
        navigate(path)
      }
    }
  }, text)
}
