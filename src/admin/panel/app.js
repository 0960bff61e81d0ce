// @ts-check
// The operator console: a shell that draws the page the path names (the admin API's client is session.js).
import { fill, h, notice } from "./dom.js"
import { api, attempt, link, loginForm, navigate, passwordForm, session } from "./session.js"
import { partnersPage } from "./partners.js"
import { portalUsersPage } from "./portal-users.js"
import { walletPage } from "./wallet.js"
import { casinoPage } from "./casino.js"
import { auditPage, sportsPage, systemPage } from "./system.js"

// The shell's two regions (index.html has both).
const main = /** @type {HTMLElement} */ (document.getElementById("main"))
const top = /** @type {HTMLElement} */ (document.getElementById("top"))

const pages = {
  "/admin": partnersPage,
  "/admin/partners": partnersPage,
  "/admin/portal-users": portalUsersPage,
  "/admin/wallet": walletPage,
  "/admin/casino": casinoPage,
  "/admin/sports": sportsPage,
  "/admin/system": systemPage,
  "/admin/audit": auditPage
}

const nav = [
  ["/admin/partners", "Partners"],
  ["/admin/portal-users", "Portal users"],
  ["/admin/wallet", "Wallet"],
  ["/admin/casino", "Casino"],
  ["/admin/sports", "Sports"],
  ["/admin/system", "System"],
  ["/admin/audit", "Audit trail"]
]

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
  fill(main, loginForm((answer) => {
    session.admin = answer.admin
    session.csrf = answer.csrf_token
    // The log-in's answer says whether a one-time password must be replaced first: the shell draws
    // that form from it, without asking the API again.
    session.mustChangePassword = answer.must_change_password
    navigate("/admin/partners")
  }))
}

function passwordPage() {
  fill(main, passwordForm("Choose your password", "The password you logged in with was for this once. Choose your own (12 characters or more).", () => {
    session.mustChangePassword = false
    navigate("/admin/partners")
  }))
}

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
      session.mustChangePassword = current.must_change_password
    } catch {
      session.admin = null
    }
  }
  header()
  if (session.admin === null) {
    if (location.pathname !== "/admin/login") history.replaceState(null, "", "/admin/login")
    document.title = "Log in · Operator console"
    return loginPage()
  }
  if (session.mustChangePassword) {
    document.title = "Choose your password · Operator console"
    return passwordPage()
  }
  if (location.pathname === "/admin/login") history.replaceState(null, "", "/admin/partners")
  const page = pages[/** @type {keyof typeof pages} */ (location.pathname)] ?? partnersPage
  fill(main, h("p.loading", {}, "Loading…"))
  try {
    await page(main, new URLSearchParams(location.search))
  } catch (error) {
    fill(main, notice("error", /** @type {Error} */ (error).message))
  }
  header()
}

window.addEventListener("popstate", render)
render()
