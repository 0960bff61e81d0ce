// The operator console: a shell that calls the admin API (/admin/api) and draws the page the path names.
import { field, fill, formValues, h, notice } from "./dom.js"
import { partnersPage } from "./partners.js"
import { walletPage } from "./wallet.js"
import { casinoPage } from "./casino.js"
import { auditPage, sportsPage, systemPage } from "./system.js"

const main = document.getElementById("main")
const top = document.getElementById("top")

/** The session: the admin and the CSRF token every change carries. */
export const session = { admin: null, csrf: null }

export class ApiError extends Error {
  constructor(status, body) {
    super(body?.message ?? `The console's API answered ${status}.`)
    this.status = status
    this.body = body
  }
}

/** One call to the admin API. A change carries the session's CSRF token; a lost session leads to the log-in page. */
export async function api(method, path, body) {
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

/** A change's outcome shown in `region`: what happened, or the error in words. */
export async function attempt(region, action, success) {
  try {
    const result = await action()
    if (success !== undefined) fill(region, notice("ok", typeof success === "function" ? success(result) : success))
    return result
  } catch (error) {
    const details = error.body?.errors ? Object.values(error.body.errors).flat().filter((m) => m !== error.message) : []
    fill(region, notice("error", [error.message, ...details].join(" ")))
    return undefined
  }
}

export const canChange = () => session.admin?.role === "operator"

const pages = {
  "/admin": partnersPage,
  "/admin/partners": partnersPage,
  "/admin/wallet": walletPage,
  "/admin/casino": casinoPage,
  "/admin/sports": sportsPage,
  "/admin/system": systemPage,
  "/admin/audit": auditPage
}

const nav = [
  ["/admin/partners", "Partners"],
  ["/admin/wallet", "Wallet"],
  ["/admin/casino", "Casino"],
  ["/admin/sports", "Sports"],
  ["/admin/system", "System"],
  ["/admin/audit", "Audit trail"]
]

export function navigate(path) {
  if (location.pathname + location.search !== path) history.pushState(null, "", path)
  render()
}

function link(path, text) {
  return h("a", {
    href: path,
    on: {
      click: (event) => {
        if (event.metaKey || event.ctrlKey || event.shiftKey) return
        event.preventDefault()
        navigate(path)
      }
    }
  }, text)
}

function header() {
  if (session.admin === null) return fill(top, h("div.bar", {}, h("strong.brand", {}, "Operator console")))
  const current = location.pathname === "/admin" ? "/admin/partners" : location.pathname
  fill(top, h("div.bar", {},
    h("strong.brand", {}, "Operator console"),
    h("nav", { "aria-label": "Sections" }, h("ul", {}, nav.map(([path, text]) =>
      h("li", {}, path === current ? h("a", { href: path, "aria-current": "page" }, text) : link(path, text))))),
    h("div.who", {},
      h("span", {}, session.admin.email, " · ", h("span.role", {}, session.admin.role)),
      h("button.secondary", { type: "button", on: { click: logout } }, "Log out"))))
}

async function logout() {
  await attempt(main, () => api("DELETE", "/session"))
  session.admin = null
  session.csrf = null
  navigate("/admin/login")
}

function loginPage() {
  const region = h("div", { "aria-live": "polite" })
  const form = h("form.card.narrow", {
    on: {
      submit: async (event) => {
        event.preventDefault()
        const values = formValues(form)
        const answer = await attempt(region, () => api("POST", "/session", { email: values.email, password: values.password }))
        if (answer === undefined) return
        session.admin = answer.admin
        session.csrf = answer.csrf_token
        navigate(answer.must_change_password ? "/admin/login" : "/admin/partners")
      }
    }
  },
  h("h1", {}, "Log in"),
  field("E-mail", { name: "email", type: "email", autocomplete: "username", required: true }),
  field("Password", { name: "password", type: "password", autocomplete: "current-password", required: true }),
  h("button", { type: "submit" }, "Log in"),
  region)
  fill(main, form)
}

function passwordPage() {
  const region = h("div", { "aria-live": "polite" })
  const form = h("form.card.narrow", {
    on: {
      submit: async (event) => {
        event.preventDefault()
        const values = formValues(form)
        const done = await attempt(region, () => api("POST", "/session/password", {
          current_password: values.current_password,
          new_password: values.new_password
        }))
        if (done !== undefined) navigate("/admin/partners")
      }
    }
  },
  h("h1", {}, "Choose your password"),
  h("p", {}, "The password you logged in with was for this once. Choose your own (12 characters or more)."),
  field("Current password", { name: "current_password", type: "password", autocomplete: "current-password", required: true }),
  field("New password", { name: "new_password", type: "password", autocomplete: "new-password", minlength: 12, required: true }),
  h("button", { type: "submit" }, "Save"),
  region)
  fill(main, form)
}

let mustChangePassword = false

async function render() {
  main.removeAttribute("data-ready")
  await draw()
  main.setAttribute("data-ready", "true")
}

async function draw() {
  if (session.admin === null) {
    try {
      const current = await api("GET", "/session")
      session.admin = current.admin
      session.csrf = current.csrf_token
      mustChangePassword = current.must_change_password
    } catch {
      session.admin = null
    }
  } else if (location.pathname !== "/admin/login") {
    const current = await api("GET", "/session").catch(() => null)
    mustChangePassword = current?.must_change_password ?? false
  }
  header()
  if (session.admin === null) {
    if (location.pathname !== "/admin/login") history.replaceState(null, "", "/admin/login")
    document.title = "Log in · Operator console"
    return loginPage()
  }
  if (mustChangePassword) {
    document.title = "Choose your password · Operator console"
    return passwordPage()
  }
  if (location.pathname === "/admin/login") history.replaceState(null, "", "/admin/partners")
  const page = pages[location.pathname] ?? partnersPage
  fill(main, h("p.loading", {}, "Loading…"))
  try {
    await page(main, new URLSearchParams(location.search))
  } catch (error) {
    fill(main, notice("error", error.message))
  }
  header()
}

window.addEventListener("popstate", render)
render()
