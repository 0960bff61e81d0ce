// @ts-check
// The admin API's client and the session: every page calls the API through here. A page that moves the
// console elsewhere announces it as a history change, which the shell (app.js) draws; so pages do not
// import the shell, and the shell imports the pages.
import { fill, notice } from "./dom.js"

/**
 * The session: the admin, the CSRF token every change carries, and whether a one-time password must be
 * replaced before anything else (from the log-in's answer or GET /session).
 */
/** @type {{ admin: { email: string, role: "viewer" | "operator" } | null, csrf: string | null, mustChangePassword: boolean }} */
export const session = { admin: null, csrf: null, mustChangePassword: false }

/** An answer other than 2xx: its status and body (`{success: false, message, errors?}`). */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {any} body
   */
  constructor(status, body) {
    super(body?.message ?? `The console's API answered ${status}.`)
    this.status = status
    this.body = body
  }
}

/** One call to the admin API. A change carries the session's CSRF token; a lost session leads to the log-in page. */
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
  const response = await fetch(`/admin/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin"
  })
  const answer = response.headers.get("content-type")?.includes("json") ? await response.json() : null
  if (response.status === 401 && path !== "/session") {
    session.admin = null
    navigate("/admin/login")
  }
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
