// @ts-check
// A panel's API client and the session: every page calls the API through here (the console's API unless the
// shell points `client` elsewhere, as the portal's does). A page that moves the panel elsewhere announces it as
// a history change, which the shell (app.js) draws; so pages do not import the shell, and the shell imports the
// pages.
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
 * @param {"GET" | "POST" | "PUT" | "PATCH" | "DELETE"} method
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
    fill(region, notice("error", errorText(caught)))
    return undefined
  }
}

/**
 * What a refusal says: its message, then each field's messages (a 422's `errors`), so the field at fault is named.
 * @param {unknown} caught
 */
export function errorText(caught) {
  const error = /** @type {Partial<ApiError>} */ (caught)
  /** @type {Array<string>} */
  const details = error.body?.errors ? Object.values(error.body.errors).flat().filter((m) => m !== error.message) : []
  return [error.message, ...details].join(" ")
}

/**
 * A page's outcome region, and a change that redraws the page once it is made and then shows what happened in the
 * redrawn page's region of the same id (the redraw replaces the old one).
 * @param {Element} container
 * @param {() => Promise<unknown>} redraw
 * @param {string} [outcomeId]
 */
export function changes(container, redraw, outcomeId = "outcome") {
  const outcome = h("div", { id: outcomeId, "aria-live": "polite" })
  /**
   * @template A
   * @param {() => Promise<A>} action
   * @param {(result: A) => Node | string | Array<Node | string>} success
   * @returns {Promise<A | undefined>}
   */
  const change = async (action, success) => {
    const result = await attempt(outcome, action)
    if (result === undefined) return undefined
    await redraw()
    const shown = success(result)
    fill(/** @type {Element} */ (container.querySelector(`#${outcomeId}`)), ...(Array.isArray(shown) ? shown : [shown]))
    return result
  }
  return { outcome, change }
}

export const canChange = () => session.admin?.role === "operator"

/** Goes to `path` in the console: a history entry, then the shell draws it (it listens to popstate). */
/** @param {string} path */
export function navigate(path) {
  if (location.pathname + location.search !== path) history.pushState(null, "", path)
  window.dispatchEvent(new PopStateEvent("popstate"))
}

/**
 * A form of its own on the page that posts its values to the API: `body` makes the request's body from them, `done`
 * gets the answer; a refusal is announced in the form.
 * @param {{ title: string, intro?: string, fields: ReadonlyArray<HTMLElement>, submit: string, path: string,
 *   body: (values: Record<string, string>) => unknown, done: (answer: any) => void, success?: string }} options
 */
export function postingForm({ body, done, fields, intro, path, submit, success, title }) {
  const region = h("div", { "aria-live": "polite" })
  const form = h(
    "form.card.narrow",
    {
      on: {
        submit: async (event) => {
          event.preventDefault()
          const answer = await attempt(region, () => api("POST", path, body(formValues(form))), success)
          if (answer !== undefined) done(answer)
        }
      }
    },
    h("h1", {}, title),
    intro === undefined ? null : h("p", {}, intro),
    fields,
    h("button", { type: "submit" }, submit),
    region
  )
  return form
}

/**
 * The log-in form: e-mail and password; `loggedIn` gets the API's answer.
 * @param {(answer: any) => void} loggedIn
 */
export const loginForm = (loggedIn) =>
  postingForm({
    title: "Log in",
    fields: [
      field("E-mail", { name: "email", type: "email", autocomplete: "username", required: true }),
      field("Password", { name: "password", type: "password", autocomplete: "current-password", required: true })
    ],
    submit: "Log in",
    path: "/session",
    body: (values) => ({ email: values.email, password: values.password }),
    done: loggedIn
  })

/**
 * The form that replaces the session's password (12 characters or more); `changed` runs once it is saved.
 * @param {string} title
 * @param {string} intro
 * @param {() => void} changed
 */
export const passwordForm = (title, intro, changed) =>
  postingForm({
    title,
    intro,
    fields: [
      field("Current password", {
        name: "current_password",
        type: "password",
        autocomplete: "current-password",
        required: true
      }),
      field("New password", {
        name: "new_password",
        type: "password",
        autocomplete: "new-password",
        minlength: 12,
        required: true
      })
    ],
    submit: "Save",
    path: "/session/password",
    body: (values) => ({ current_password: values.current_password, new_password: values.new_password }),
    done: changed,
    success: "Your password was changed."
  })

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

/**
 * The bar at the top of a panel: its name, and once someone is logged in, the sections (the current one marked),
 * who they are and a button to log out.
 * @param {HTMLElement} top
 * @param {{ brand: string, nav: ReadonlyArray<readonly [string, string]>, current: string, person: { email: string, role: string } | null }} options
 */
export function drawBar(top, { brand, current, nav, person }) {
  if (person === null) return fill(top, h("div.bar", {}, h("strong.brand", {}, brand)))
  return fill(
    top,
    h(
      "div.bar",
      {},
      h("strong.brand", {}, brand),
      h(
        "nav",
        { "aria-label": "Sections" },
        h(
          "ul",
          {},
          nav.map(([path, text]) =>
            h("li", {}, path === current ? h("a", { href: path, "aria-current": "page" }, text) : link(path, text))
          )
        )
      ),
      h(
        "div.who",
        {},
        h("span", {}, person.email, " · ", h("span.role", {}, person.role)),
        h("button.secondary", { type: "button", on: { click: () => logOut(top) } }, "Log out")
      )
    )
  )
}

/**
 * Ends the session, then does what a lost session does (the log-in page).
 * @param {Element} region where a refusal is shown
 */
export async function logOut(region) {
  await attempt(region, () => api("DELETE", "/session"))
  session.csrf = null
  client.loggedOut()
}

/**
 * Draws a page in `main`: "Loading…" first, then the page, or its failure in words.
 * @param {HTMLElement} main
 * @param {(main: HTMLElement, params: URLSearchParams) => Promise<unknown>} page
 */
export async function drawPage(main, page) {
  fill(main, h("p.loading", {}, "Loading…"))
  try {
    await page(main, new URLSearchParams(location.search))
  } catch (error) {
    fill(main, notice("error", /** @type {Error} */ (error).message))
  }
}

/**
 * Runs a panel's shell: `draw` now and at every history change, `main` marked ready (`data-ready`) once drawn.
 * @param {HTMLElement} main
 * @param {() => Promise<unknown>} draw
 */
export function runShell(main, draw) {
  const render = async () => {
    main.removeAttribute("data-ready")
    await draw()
    main.setAttribute("data-ready", "true")
  }
  window.addEventListener("popstate", render)
  render()
}
