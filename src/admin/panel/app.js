// @ts-check
// The operator console: a shell that draws the page the path names (the admin API's client is session.js).
import { fill } from "./dom.js"
import { api, drawBar, drawPage, loginForm, navigate, passwordForm, runShell, session } from "./session.js"
import { partnersPage } from "./partners.js"
import { portalUsersPage } from "./portal-users.js"
import { walletPage } from "./wallet.js"
import { statementsPage, stuckPage } from "./operations.js"
import { casinoPage } from "./casino.js"
import { auditPage, sportsPage, systemPage } from "./system.js"
import { certificationPage } from "./certification.js"

// The shell's two regions (the page the server sends has both: admin/http/Panel.ts).
const main = /** @type {HTMLElement} */ (document.getElementById("main"))
const top = /** @type {HTMLElement} */ (document.getElementById("top"))

const pages = {
  "/admin": partnersPage,
  "/admin/partners": partnersPage,
  "/admin/portal-users": portalUsersPage,
  "/admin/wallet": walletPage,
  "/admin/statements": statementsPage,
  "/admin/stuck": stuckPage,
  "/admin/casino": casinoPage,
  "/admin/sports": sportsPage,
  "/admin/system": systemPage,
  "/admin/audit": auditPage,
  "/admin/certification": certificationPage
}

/** @type {Array<[string, string]>} */
const nav = [
  ["/admin/partners", "Partners"],
  ["/admin/portal-users", "Portal users"],
  ["/admin/wallet", "Wallet"],
  ["/admin/statements", "Statements"],
  ["/admin/stuck", "Stuck"],
  ["/admin/casino", "Casino"],
  ["/admin/sports", "Sports"],
  ["/admin/system", "System"],
  ["/admin/audit", "Audit trail"],
  ["/admin/certification", "Certification"]
]

function header() {
  drawBar(top, {
    brand: "Operator console",
    nav,
    current: location.pathname === "/admin" ? "/admin/partners" : location.pathname,
    person: session.admin
  })
}

function loginPage() {
  fill(
    main,
    loginForm((answer) => {
      session.admin = answer.admin
      session.csrf = answer.csrf_token
      // The log-in's answer says whether a one-time password must be replaced first: the shell draws
      // that form from it, without asking the API again.
      session.mustChangePassword = answer.must_change_password
      navigate("/admin/partners")
    })
  )
}

function passwordPage() {
  fill(
    main,
    passwordForm(
      "Choose your password",
      "The password you logged in with was for this once. Choose your own (12 characters or more).",
      () => {
        session.mustChangePassword = false
        navigate("/admin/partners")
      }
    )
  )
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
  await drawPage(main, pages[/** @type {keyof typeof pages} */ (location.pathname)] ?? partnersPage)
  header()
}

runShell(main, draw)
