// @ts-check
// The partner portal: a shell that draws the page the path names, over the portal's API (/portal/api). The API
// client, the log-in and password forms and the DOM helpers are the ones both panels share (session.js, dom.js).
import { fill } from "./dom.js"
import { api, client, drawBar, drawPage, loginForm, navigate, passwordForm, runShell, session } from "./session.js"
import { tokensPage, webhooksPage } from "./integration.js"
import { certificationPage } from "./certification.js"
import { usagePage, walletPage } from "./data.js"
import { statementsPage } from "./statements.js"
import { invitationPage, usersPage } from "./users.js"
import { who } from "./who.js"

// The shell's two regions (the page the server sends has both: platform/PanelPages.ts).
const main = /** @type {HTMLElement} */ (document.getElementById("main"))
const top = /** @type {HTMLElement} */ (document.getElementById("top"))

client.base = "/portal"
client.loggedOut = () => {
  who.user = null
  navigate("/portal/login")
}

const pages = {
  "/portal": tokensPage,
  "/portal/tokens": tokensPage,
  "/portal/webhooks": webhooksPage,
  "/portal/wallet": walletPage,
  "/portal/statements": statementsPage,
  "/portal/usage": usagePage,
  "/portal/certification": certificationPage,
  "/portal/users": usersPage,
  "/portal/account": accountPage
}

/** @type {Array<[string, string]>} */
const nav = [
  ["/portal/tokens", "Tokens"],
  ["/portal/webhooks", "Webhooks"],
  ["/portal/wallet", "Wallet"],
  ["/portal/statements", "Statements"],
  ["/portal/usage", "Usage"],
  ["/portal/certification", "Certification"],
  ["/portal/users", "Users"],
  ["/portal/account", "Account"]
]

function header() {
  drawBar(top, {
    brand: who.partner === null ? "Partner portal" : `Partner portal · ${who.partner.name}`,
    nav,
    current: location.pathname === "/portal" ? "/portal/tokens" : location.pathname,
    person: who.user
  })
}

/** Keeps what a log-in, an accepted invitation or GET /session answered. */
function signedIn(answer) {
  who.user = answer.user
  who.partner = answer.partner
  session.csrf = answer.csrf_token
}

function loginPage() {
  fill(
    main,
    loginForm((answer) => {
      signedIn(answer)
      navigate("/portal/tokens")
    })
  )
}

async function accountPage() {
  fill(
    main,
    passwordForm(
      "Your password",
      "Change the password you log in with (12 characters or more). Your other sessions end.",
      () => {}
    )
  )
}

async function draw() {
  // An invitation is accepted before anyone is logged in: its secret is in the fragment, which no request carries.
  if (location.pathname === "/portal/invitation") {
    header()
    document.title = "Accept your invitation · Partner portal"
    return invitationPage(main, (answer) => {
      signedIn(answer)
      navigate("/portal/tokens")
    })
  }
  if (who.user === null) {
    try {
      signedIn(await api("GET", "/session"))
    } catch {
      who.user = null
    }
  }
  header()
  if (who.user === null) {
    if (location.pathname !== "/portal/login") history.replaceState(null, "", "/portal/login")
    document.title = "Log in · Partner portal"
    return loginPage()
  }
  if (location.pathname === "/portal/login") history.replaceState(null, "", "/portal/tokens")
  await drawPage(main, pages[/** @type {keyof typeof pages} */ (location.pathname)] ?? tokensPage)
  header()
}

runShell(main, draw)
