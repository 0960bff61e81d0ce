// @ts-check
// The partner portal: a shell that draws the page the path names, over the portal's API (/portal/api). The API
// client, the log-in and password forms and the DOM helpers are the operator console's (session.js, dom.js).
import { fill, h, notice } from "./dom.js"
import { api, attempt, client, link, loginForm, navigate, passwordForm, session } from "./session.js"
import { tokensPage, webhooksPage } from "./integration.js"
import { usagePage, walletPage } from "./data.js"
import { invitationPage, usersPage } from "./users.js"
import { who } from "./who.js"

// The shell's two regions (index.html has both).
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
  "/portal/usage": usagePage,
  "/portal/users": usersPage,
  "/portal/account": accountPage
}

const nav = [
  ["/portal/tokens", "Tokens"],
  ["/portal/webhooks", "Webhooks"],
  ["/portal/wallet", "Wallet"],
  ["/portal/usage", "Usage"],
  ["/portal/users", "Users"],
  ["/portal/account", "Account"]
]

function header() {
  const brand = h("strong.brand", {}, "Partner portal", who.partner === null ? null : ` · ${who.partner.name}`)
  if (who.user === null) return fill(top, h("div.bar", {}, brand))
  const current = location.pathname === "/portal" ? "/portal/tokens" : location.pathname
  fill(top, h("div.bar", {},
    brand,
    h("nav", { "aria-label": "Sections" }, h("ul", {}, nav.map(([path, text]) =>
      h("li", {}, path === current ? h("a", { href: path, "aria-current": "page" }, text) : link(path, text))))),
    h("div.who", {},
      h("span", {}, who.user.email, " · ", h("span.role", {}, who.user.role)),
      h("button.secondary", { type: "button", on: { click: logout } }, "Log out"))))
}

async function logout() {
  await attempt(main, () => api("DELETE", "/session"))
  who.user = null
  session.csrf = null
  navigate("/portal/login")
}

/** Keeps what a log-in, an accepted invitation or GET /session answered. */
function signedIn(answer) {
  who.user = answer.user
  who.partner = answer.partner
  session.csrf = answer.csrf_token
}

function loginPage() {
  fill(main, loginForm((answer) => {
    signedIn(answer)
    navigate("/portal/tokens")
  }))
}

async function accountPage() {
  fill(main, passwordForm("Your password", "Change the password you log in with (12 characters or more). Your other sessions end.", () => {}))
}

async function render() {
  main.removeAttribute("data-ready")
  await draw()
  main.setAttribute("data-ready", "true")
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
  const page = pages[/** @type {keyof typeof pages} */ (location.pathname)] ?? tokensPage
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
