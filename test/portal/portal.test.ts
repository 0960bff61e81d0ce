/**
 * The partner portal in a real headless Chromium, as its people use it: an operator invites the partner's owner in
 * the console, the owner accepts the invitation and sets a password, rolls the test token with a 1 hour overlap (the
 * partner API takes the old token and the new), sets the test callback URL, sends a test callback and reads the
 * answer, redelivers a failed callback, and sees none of another partner's rows; a viewer changes nothing; a change
 * without the CSRF token is refused; and the operator's audit trail shows every change as the partner user's. The
 * usage page shows the partner's currencies, read-only. The
 * pages are photographed for the partner guide (docs/screenshots/portal-*.png).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { givenAdmin } from "../support/AdminConsole.ts"
import { Browser, newPage, screenshot, serverUrl, step } from "../support/Browser.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { logIn, openSection as open, ready } from "../support/PanelSteps.ts"
import { givenPortalUser } from "../support/Portal.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { bearer, givenPartner, request } from "../support/TestApp.ts"
import { givenPlayer, givenWalletPlayer, WalletApp, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()

/** Accepts the next confirmation the page asks. */
const confirming = (page: Page, action: () => Promise<unknown>) =>
  step(async () => {
    page.once("dialog", (dialog) => void dialog.accept())
    await action()
  })

const statusWith = (token: string) =>
  Effect.map(request("GET", "/api/partner/v1/status", { headers: bearer(token) }), (answer) => answer.status)

layer(Layer.merge(WalletApp(books, { callbacks: { maxAttempts: 1 } }), Browser.layer), live)(
  "partner portal in Chromium",
  (it) => {
    it.effect(
      "invited in the console, the owner sets a password, rolls the test token with an overlap, sets and tests the callback URL, redelivers a failure, and sees only its own rows",
      () =>
        Effect.scoped(Effect.gen(function*() {
          const fake = yield* FakeUpstream
          const base = yield* serverUrl
          const mine = yield* givenPartner({ name: "Portal Bets", slug: "portal-bets" })
          books.secrets.add(mine.test.webhookSecret)
          const other = yield* givenWalletPlayer(books, 100)
          yield* winBet(other.userCode, "other-txn", { bet: 1, win: 2 })

          // The operator invites the owner from the console's "Portal users" page; the link is shown once.
          yield* givenAdmin("ops@portal.example")
          const console = yield* newPage()
          yield* logIn(console, "/admin", "ops@portal.example")
          yield* open(console, "Portal users")
          yield* step(() => console.getByLabel("Partner").selectOption({ label: "Portal Bets" }))
          yield* ready(console)
          yield* step(() => console.getByLabel("E-mail").fill("owner@portal.example"))
          yield* step(() => console.getByLabel("Role", { exact: true }).selectOption("owner"))
          yield* step(() => console.getByRole("button", { name: "Invite" }).click())
          const link = (yield* step(() => console.locator("[data-secret=invitation-url]").textContent()))!
          assert.match(link, /\/portal\/invitation#[A-Za-z0-9_-]{43}$/)

          // The owner opens the link (this server's address: the test's port is chosen when it listens).
          const owner = yield* newPage()
          yield* step(() => owner.goto(`${base}/portal/invitation#${link.split("#")[1]}`))
          yield* step(() => owner.getByRole("heading", { name: "Join Portal Bets" }).waitFor())
          assert.notInclude(owner.url(), "#", "the secret leaves the address bar")
          yield* screenshot(owner, "portal-invitation")
          yield* step(() => owner.getByLabel("Password").fill("owner's own passphrase"))
          yield* step(() => owner.getByRole("button", { name: "Set password and log in" }).click())
          yield* step(() => owner.getByRole("heading", { name: "Tokens", exact: true }).waitFor())
          yield* ready(owner)
          const cookies = yield* step(() => owner.context().cookies())
          const session = cookies.find((cookie) => cookie.name === "portal_session")!
          assert.deepStrictEqual([session.path, session.httpOnly, session.sameSite], ["/portal", true, "Strict"])

          // Roll the test token, the old one kept for an hour: the partner API takes both.
          const testTokens = owner.locator("section[data-environment=test]")
          yield* step(() => testTokens.getByLabel("When the old token stops").selectOption({ label: "1 hour" }))
          yield* confirming(owner, () => testTokens.getByRole("button", { name: "Roll test token" }).click())
          const newToken = (yield* step(() => owner.locator("[data-secret=test-token]").textContent()))!
          assert.match(newToken, /^pak_test_/)
          assert.deepStrictEqual([yield* statusWith(mine.test.token), yield* statusWith(newToken)], [200, 200])
          assert.strictEqual(
            yield* step(() => owner.locator("section[data-environment=test] tbody tr").count()),
            2,
            "the new token and the old one"
          )
          // Both were just used: the list says when (written off the request path, read back on the next visit).
          const unused = owner.locator("section[data-environment=test] tbody tr", { hasText: "not used yet" })
          yield* eventually(
            Effect.andThen(open(owner, "Tokens"), step(() => unused.count())),
            (n) => n === 0,
            "both tokens' last use shown"
          )
          yield* screenshot(owner, "portal-tokens")

          // The test callback URL, and a test callback: the signed request and the partner's answer.
          yield* open(owner, "Webhooks")
          const testHook = owner.locator("section[data-environment=test]")
          yield* step(() => testHook.getByRole("textbox", { name: "Test callback URL" }).fill(`${fake.url}/wallet`))
          yield* step(() => testHook.getByRole("button", { name: "Save" }).click())
          yield* step(() => owner.getByText("The test callback URL was saved.").waitFor())
          yield* step(() =>
            owner.locator("section[data-environment=test]").getByRole("button", { name: "Send a test callback (test)" })
              .click()
          )
          const sent = (yield* step(() => owner.locator("[data-wire=request]").textContent()))!
          assert.match(sent, new RegExp(`^POST ${fake.url}/wallet\n`))
          assert.match(sent, /x-partner-signature: v1=[0-9a-f]{64}/)
          assert.include(sent, "\"kind\":\"test\"")
          assert.include(
            yield* step(() => owner.getByRole("heading", { name: /^Answer: HTTP 400/ }).textContent()),
            "HTTP 400"
          )
          assert.strictEqual(
            yield* step(() => owner.locator("[data-wire=answer]").textContent()),
            JSON.stringify({ error: "unknown kind" })
          )
          yield* screenshot(owner, "portal-test-callback")
          // The test callback is in the delivery log at once, as every callback is: failed (answered 400), never
          // redelivered, and still there when the page is drawn again.
          const testRow = owner.locator("[data-deliveries=test] tbody tr", {
            has: owner.locator("td[data-label=Kind]", { hasText: /^test$/ })
          })
          assert.strictEqual(yield* step(() => testRow.count()), 1)
          assert.include(yield* step(() => testRow.textContent()), "failed")
          assert.include(yield* step(() => testRow.textContent()), "The partner answered HTTP 400")
          assert.strictEqual(yield* step(() => testRow.getByRole("button", { name: "Redeliver" }).count()), 0)
          yield* open(owner, "Webhooks")
          assert.strictEqual(yield* step(() => testRow.count()), 1, "the log read again")

          // A win the partner's test wallet refused once: failed in the log, redelivered from it.
          const player = yield* givenPlayer(books, mine.partner.id, "portal-player", 100, "test")
          books.failNotifications = 1
          yield* winBet(player.internalUserId, "portal-txn", { bet: 1, win: 5 }, "portal-txn", "test")
          const winEvent = transactionEventId("win", "portal-txn")
          yield* eventually(
            Effect.sync(() => books.receivedFor(winEvent).length),
            (n) => n === 1,
            "the win refused once"
          )
          const failedRow = owner.locator("section[data-environment=test] tr", { hasText: "win" }).filter({
            hasText: "failed"
          })
          yield* eventually(
            Effect.andThen(open(owner, "Webhooks"), step(() => failedRow.count())),
            (n) => n === 1,
            "the failure in the log"
          )
          assert.include(yield* step(() => failedRow.textContent()), "HTTP 500")
          yield* step(() => failedRow.getByRole("button", { name: "Redeliver" }).click())
          yield* step(() => owner.getByText("was queued for delivery again").waitFor())
          yield* eventually(
            Effect.sync(() => books.receivedFor(winEvent).length),
            (n) => n === 2,
            "the win delivered again"
          )
          const deliveredRow = owner.locator("section[data-environment=test] tr", { hasText: "win" }).filter({
            hasText: "delivered"
          })
          yield* eventually(
            Effect.andThen(open(owner, "Webhooks"), step(() => deliveredRow.count())),
            (n) => n === 1,
            "delivered in the log"
          )
          yield* screenshot(owner, "portal-webhooks")

          // Its own rows only: the other partner's player, transactions and callbacks are on no page.
          for (const section of ["Webhooks", "Users", "Usage", "Wallet"]) {
            yield* open(owner, section)
            const text = (yield* step(() => owner.locator("main").textContent()))!
            assert.notInclude(text, other.external, section)
            assert.notInclude(text, other.partner.slug, section)
          }
          yield* step(() => owner.getByLabel("Environment").selectOption("test"))
          yield* step(() => owner.getByRole("button", { name: "Search" }).click())
          yield* step(() => owner.getByRole("heading", { name: "1 test transaction" }).waitFor())
          yield* screenshot(owner, "portal-wallet")
          yield* open(owner, "Usage")
          const currencies = owner.locator("[data-currencies]")
          assert.strictEqual(
            yield* step(() => currencies.textContent()),
            "Default currencyBRL (the service's default): a launch naming no currency is in itAllowed currencies" +
              "Every currency the service accepts"
          )
          yield* screenshot(owner, "portal-usage")
          // The operator restricts them; the portal shows the partner's own, and offers no way to change them.
          yield* (yield* Partners).setCurrencies(mine.partner.slug, {
            defaultCurrency: "EUR",
            currencies: ["EUR", "BRL"]
          })
          yield* open(owner, "Usage")
          assert.deepStrictEqual(yield* step(() => currencies.locator("dd").allTextContents()), [
            "EUR: a launch naming no currency is in it",
            "EUR, BRL"
          ])
          assert.strictEqual(yield* step(() => owner.locator("main input, main select").count()), 0)
          yield* open(owner, "Users")
          yield* screenshot(owner, "portal-users")
        })),
      { timeout: 120_000 }
    )

    it.effect(
      "a viewer changes nothing; a change without the CSRF token is refused; the operator's audit trail shows every change",
      () =>
        Effect.scoped(Effect.gen(function*() {
          const { partner } = yield* givenPartner({ name: "Viewed Bets", slug: "viewed-bets" })
          yield* givenPortalUser(partner, "viewer@viewed.example", "viewer")
          const viewer = yield* newPage()
          yield* logIn(viewer, "/portal", "viewer@viewed.example")
          assert.strictEqual(
            yield* step(() => viewer.getByText("Your role (viewer) can read but not change tokens.").count()),
            2,
            "live and test"
          )
          assert.strictEqual(yield* step(() => viewer.getByRole("button", { name: /Roll|Stop the old/ }).count()), 0)
          for (
            const [section, buttons] of [["Webhooks", /Save|Send a test callback|Rotate|Redeliver/], [
              "Users",
              /Invite|Remove|Save role|New invitation/
            ]] as const
          ) {
            yield* open(viewer, section)
            assert.strictEqual(yield* step(() => viewer.getByRole("button", { name: buttons }).count()), 0, section)
          }
          // A script on the page sending changes: without the CSRF token, and with it as a viewer.
          const post = (headers: Record<string, string>) =>
            step(() =>
              viewer.evaluate(async (headers) => {
                const response = await fetch("/portal/api/tokens/test/roll", {
                  method: "POST",
                  headers: { "content-type": "application/json", ...headers },
                  body: "{}"
                })
                return { status: response.status, message: (await response.json() as { message: string }).message }
              }, headers)
            )
          const forged = yield* post({})
          assert.strictEqual(forged.status, 403)
          assert.include(forged.message, "CSRF")
          const csrf = yield* step(() =>
            viewer.evaluate(async () =>
              (await (await fetch("/portal/api/session")).json() as { csrf_token: string }).csrf_token
            )
          )
          const asViewer = yield* post({ "x-csrf-token": csrf })
          assert.deepStrictEqual(asViewer, {
            status: 403,
            message: "Your role (viewer) cannot make this change: it needs a developer."
          })

          // The operator reads every portal change, each marked as a partner user's.
          const console = yield* newPage()
          yield* logIn(console, "/admin", "ops@portal.example")
          yield* open(console, "Audit trail")
          const rows = yield* step(() => console.locator("tbody tr").allTextContents())
          const has = (action: string, actor: string) =>
            rows.some((row) => row.includes(action) && row.includes(actor) && row.includes("portal (partner user)"))
          for (
            const action of [
              "partner-user.accept-invitation",
              "partner.rotate-token",
              "partner.update",
              "partner.test-callback",
              "callback.redeliver"
            ]
          ) {
            assert.isTrue(has(action, "owner@portal.example"), action)
          }
          assert.isTrue(has("portal.change-refused", "viewer@viewed.example"), "the viewer's refused changes")
          assert.isTrue(
            rows.some((row) => row.includes("partner-user.invite") && row.includes("ops@portal.example")),
            "the operator's invitation"
          )
          assert.notMatch(rows.join("\n"), /pak_|whsec_|portal\/invitation#/, "no secret in the trail")
          yield* screenshot(console, "portal-audit")
        })),
      { timeout: 90_000 }
    )
  }
)
