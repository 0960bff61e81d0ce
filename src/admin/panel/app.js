// @ts-check
// The operator console: a shell that draws the page the path names (the admin API's client is session.js).
import { field, fill, formValues, h, notice } from "./dom.js"
import { api, attempt, navigate, session } from "./session.js"
import { partnersPage } from "./partners.js"
import { walletPage } from "./wallet.js"
import { statementsPage, stuckPage } from "./operations.js"
import { casinoPage } from "./casino.js"
import { auditPage, sportsPage, systemPage } from "./system.js"
import { certificationPage } from "./certification.js"

// The shell's two regions (index.html has both).
const main = /** @type {HTMLElement} */ (document.getElementById("main"))
const top = /** @type {HTMLElement} */ (document.getElementById("top"))

const pages = {
  "/admin": partnersPage,
  "/admin/partners": partnersPage,
  "/admin/wallet": walletPage,
  "/admin/statements": statementsPage,
  "/admin/stuck": stuckPage,
  "/admin/casino": casinoPage,
  "/admin/sports": sportsPage,
  "/admin/system": systemPage,
  "/admin/audit": auditPage,
  "/admin/certification": certificationPage
}

const nav = [
  ["/admin/partners", "Partners"],
  ["/admin/wallet", "Wallet"],
  ["/admin/statements", "Statements"],
  ["/admin/stuck", "Stuck"],
  ["/admin/casino", "Casino"],
  ["/admin/sports", "Sports"],
  ["/admin/system", "System"],
  ["/admin/audit", "Audit trail"],
  ["/admin/certification", "Certification"]
]

function link(path, text) {
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
        // The log-in's answer says whether a one-time password must be replaced first: the shell draws
        // that form from it, without asking the API again.
        session.mustChangePassword = answer.must_change_password
        navigate("/admin/partners")
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
        if (done === undefined) return
        session.mustChangePassword = false
        navigate("/admin/partners")
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
