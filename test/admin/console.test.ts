/**
 * The operator console in a real headless Chromium: log-in, a wrong password and throttling, a partner
 * created (its token shown once and working against the partner API), deactivated (the partner API then
 * answers 401), a wallet transaction found by id and its callback redelivered, a change without the CSRF
 * token refused, a viewer who cannot change anything, and the audit trail showing each change. The pages
 * are photographed for the operator guide (docs/screenshots).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import type { Page } from "playwright-core"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { givenAdmin, testPassword } from "../support/AdminConsole.ts"
import { Browser, newPage, screenshot, serverUrl, step } from "../support/Browser.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { bearer, dataAs, request } from "../support/TestApp.ts"
import { givenWalletPlayer, walletAnswer, WalletApp, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()

/** The page is drawn: the console marks its main region once a page's data has arrived. */
const ready = (page: Page) => step(() => page.waitForSelector("main[data-ready=true]"))

const logIn = (page: Page, email: string, password = testPassword) =>
  Effect.gen(function*() {
    const base = yield* serverUrl
    yield* step(() => page.goto(`${base}/admin`))
    yield* ready(page)
    yield* step(() => page.getByLabel("E-mail").fill(email))
    yield* step(() => page.getByLabel("Password").fill(password))
    yield* step(() =>
      Promise.all([
        page.waitForResponse((response) =>
          response.url().endsWith("/admin/api/session") && response.request().method() === "POST"
        ),
        page.getByRole("button", { name: "Log in" }).click()
      ])
    )
  })

/** Logs in and waits for the console to show the admin's pages. */
const loggedIn = (page: Page, email: string) =>
  Effect.gen(function*() {
    yield* logIn(page, email)
    yield* step(() => page.getByRole("button", { name: "Log out" }).waitFor())
    yield* ready(page)
  })

/** Waits for the page to say `text` in an alert (a refused log-in, a refused change). */
const alerted = (page: Page, text: string) =>
  step(() => page.getByRole("alert").filter({ hasText: text }).waitFor({ timeout: 10_000 })).pipe(Effect.as(true))

/** Accepts the next confirmation the page asks, answering what it said. */
const confirming = (page: Page, action: () => Promise<unknown>) =>
  step(async () => {
    const asked = new Promise<string>((resolve) =>
      page.once("dialog", (dialog) => {
        resolve(dialog.message())
        void dialog.accept()
      })
    )
    await action()
    return asked
  })

/** The wallet page's search for one partner in one environment (or both): the transactions' cards. */
const walletSearch = (page: Page, partner: string, environment: "Live" | "Test" | "Live and test") =>
  Effect.gen(function*() {
    yield* step(() => page.getByRole("link", { name: "Wallet" }).click())
    yield* ready(page)
    yield* step(() => page.getByLabel("Partner").selectOption({ label: partner }))
    yield* step(() => page.getByLabel("Environment").selectOption({ label: environment }))
    yield* step(() => page.getByRole("button", { name: "Search" }).click())
    yield* step(() => page.getByRole("heading", { name: /transactions? \(/ }).waitFor())
    yield* ready(page)
    return page.locator("section[aria-labelledby=results-title] article")
  })

/** A launch as the partner's backend makes it, then a spin on the game page the player opens: one wallet bet. */
const spinOnce = (page: Page, token: string, externalPlayerId: string) =>
  Effect.gen(function*() {
    const client = yield* partnerClient(token)
    const launched = yield* client.casino.launch({
      payload: {
        external_player_id: externalPlayerId,
        player_balance: "50.00",
        provider: "aurora-gaming",
        game_code: "ag-hidden-fortune"
      }
    })
    const game = new URL(launched.data.launch.url)
    const base = yield* serverUrl
    yield* step(() => page.goto(`${base}${game.pathname}`))
    yield* step(() => page.getByRole("button", { name: "Spin" }).click())
    yield* step(() =>
      page.locator("#result", { hasText: /You won|No win this time|refused|failed/i }).waitFor({ timeout: 20_000 })
    )
    return { path: game.pathname, result: (yield* step(() => page.locator("#result").textContent()))! }
  }).pipe(Effect.orDie)

/** A change sent from inside the logged-in page, as a script on it would: the browser adds the session cookie. */
const postFromPage = (page: Page, path: string, headers: Record<string, string>) =>
  step(() =>
    page.evaluate(async ({ headers, path }) => {
      const response = await fetch(path, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: "{\"name\":\"Forged\"}"
      })
      return { status: response.status, body: await response.json() as { message: string } }
    }, { headers, path })
  )

layer(Layer.merge(WalletApp(books, { admin: { loginMaxFailures: 3 } }), Browser.layer), live)(
  "operator console in Chromium",
  (it) => {
    it.effect(
      "log in; a wrong password; throttling after repeated failures",
      () =>
        Effect.scoped(Effect.gen(function*() {
          yield* givenAdmin("ops@example.com")
          yield* givenAdmin("guessed@example.com")
          const page = yield* newPage()
          const base = yield* serverUrl
          yield* step(() => page.goto(`${base}/admin/partners`))
          yield* ready(page)
          assert.strictEqual(new URL(page.url()).pathname, "/admin/login", "a visitor is sent to the log-in page")
          yield* screenshot(page, "login")

          yield* logIn(page, "ops@example.com", "not the password")
          assert.isTrue(yield* alerted(page, "Wrong e-mail or password."))

          for (let i = 0; i < 3; i++) {
            yield* logIn(page, "guessed@example.com", `guess ${i}`)
            assert.isTrue(yield* alerted(page, "Wrong e-mail or password."))
          }
          yield* logIn(page, "guessed@example.com")
          assert.isTrue(yield* alerted(page, "Too many failed log-ins"))

          yield* logIn(page, "ops@example.com")
          yield* step(() => page.getByRole("heading", { name: "Partners" }).waitFor())
          assert.strictEqual(new URL(page.url()).pathname, "/admin/partners")
          const cookies = yield* step(() => page.context().cookies())
          const session = cookies.find((cookie) => cookie.name === "admin_session")!
          assert.deepStrictEqual([session.httpOnly, session.sameSite], [true, "Strict"])
        })),
      { timeout: 90_000 }
    )

    it.effect(
      "a first log-in with a one-time password shows the password form, then the console (no reload)",
      () =>
        Effect.scoped(Effect.gen(function*() {
          const { password } = yield* (yield* AdminAccounts).create({ name: "test", via: "cli" }, {
            email: "first@example.com",
            role: "operator"
          })
          const page = yield* newPage()
          yield* logIn(page, "first@example.com", password)
          yield* step(() => page.getByRole("heading", { name: "Choose your password" }).waitFor({ timeout: 10_000 }))
          assert.strictEqual(yield* step(() => page.getByText("Choose a new password first.").count()), 0)
          yield* step(() => page.getByLabel("Current password").fill(password))
          yield* step(() => page.getByLabel("New password").fill("a passphrase of my own"))
          yield* step(() => page.getByRole("button", { name: "Save" }).click())
          yield* step(() => page.getByRole("heading", { name: "Partners" }).waitFor({ timeout: 10_000 }))
          yield* ready(page)
          assert.strictEqual(new URL(page.url()).pathname, "/admin/partners")
          assert.strictEqual(yield* step(() => page.getByRole("alert").count()), 0, "no refusal on the page")
        })),
      { timeout: 90_000 }
    )

    it.effect(
      "create a partner, see its live and test tokens once and use each; deactivate it and the partner API answers 401",
      () =>
        Effect.scoped(Effect.gen(function*() {
          yield* givenAdmin("creator@example.com")
          const page = yield* newPage()
          yield* loggedIn(page, "creator@example.com")
          const form = page.locator("form", { has: page.getByRole("heading", { name: "New partner" }) })
          yield* step(() => form.getByLabel("Name").fill("Browser Bets <b>&</b>"))
          yield* step(() => form.getByLabel("Commission (%)").fill("12.5"))
          yield* step(() => form.getByRole("button", { name: "Create partner" }).click())
          const tokenCell = page.locator("[data-secret=live-token]")
          yield* step(() => tokenCell.waitFor())
          const token = (yield* step(() => tokenCell.textContent()))!
          const testToken = (yield* step(() => page.locator("[data-secret=test-token]").textContent()))!
          assert.match(token, /^pak_live_[A-Za-z0-9_-]{43}$/)
          assert.match(testToken, /^pak_test_[A-Za-z0-9_-]{43}$/)
          const liveSecret = (yield* step(() => page.locator("[data-secret=live-webhook-secret]").textContent()))!
          const testSecret = (yield* step(() => page.locator("[data-secret=test-webhook-secret]").textContent()))!
          assert.match(liveSecret, /^whsec_/)
          assert.match(testSecret, /^whsec_/)
          assert.notStrictEqual(liveSecret, testSecret)
          // Each value is labelled with its environment.
          for (const label of ["Live token", "Test token", "Live webhook secret", "Test webhook secret"]) {
            assert.strictEqual(
              yield* step(() => page.locator("dt", { hasText: new RegExp(`^${label}$`) }).count()),
              1,
              label
            )
          }
          // The name is shown as the text it is, never as markup.
          assert.strictEqual(yield* step(() => page.locator("td", { hasText: "Browser Bets <b>&</b>" }).count()), 1)
          assert.strictEqual(yield* step(() => page.locator("td b").count()), 0)
          yield* screenshot(page, "partners-created")

          const status = yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) })
          assert.strictEqual(status.status, 200)
          const statusPartner = dataAs(
            Schema.Struct({ partner: Schema.Struct({ commission_percent: Schema.Number, environment: Schema.String }) })
          )
          assert.deepStrictEqual(statusPartner(status).partner, { commission_percent: 12.5, environment: "live" })
          const testStatus = yield* request("GET", "/api/partner/v1/status", { headers: bearer(testToken) })
          assert.strictEqual(testStatus.status, 200)
          assert.strictEqual(statusPartner(testStatus).partner.environment, "test")

          // Shown once: not after a reload; the partner's row shows both environments, labelled.
          yield* step(() => page.reload())
          yield* ready(page)
          const content = yield* step(() => page.content())
          for (const secret of [token, testToken, liveSecret, testSecret]) assert.notInclude(content, secret)
          const row = page.locator("tr", { hasText: "Browser Bets <b>&</b>" })
          assert.match((yield* step(() => row.locator("[data-environment=live]").textContent()))!, /^Live: issued/)
          assert.match((yield* step(() => row.locator("[data-environment=test]").textContent()))!, /^Test: issued/)

          yield* step(() => page.locator("[data-action='deactivate-browser-bets-b-b']").click())
          yield* step(() => page.getByText("is inactive: its token is refused").waitFor())
          assert.strictEqual((yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) })).status, 401)
          yield* screenshot(page, "partners")

          const phone = yield* newPage({ width: 390, height: 844 })
          yield* loggedIn(phone, "creator@example.com")
          yield* step(() => phone.getByRole("heading", { name: "Partners" }).waitFor())
          yield* screenshot(phone, "partners-phone")
        })),
      { timeout: 90_000 }
    )

    it.effect("find a wallet transaction by id and redeliver its callback", () =>
      Effect.scoped(Effect.gen(function*() {
        const player = yield* givenWalletPlayer(books, 100)
        const answer = yield* winBet(player.userCode, "console-txn-1", { bet: 2, win: 5 })
        assert.strictEqual(walletAnswer(answer).msg, "")
        const winEvent = transactionEventId("win", "console-txn-1")
        yield* eventually(Effect.sync(() => books.receivedFor(winEvent).length), (n) => n === 1, "the win delivered")

        yield* givenAdmin("wallet@example.com")
        const page = yield* newPage()
        yield* loggedIn(page, "wallet@example.com")
        yield* step(() => page.getByRole("link", { name: "Wallet" }).click())
        yield* ready(page)
        yield* step(() => page.getByLabel("Transaction id").fill("console-txn-1"))
        yield* step(() => page.getByRole("button", { name: "Search" }).click())
        const card = page.locator("[data-transaction='console-txn-1']")
        yield* step(() => card.waitFor())
        const text = (yield* step(() => card.textContent()))!
        assert.include(text, player.external)
        assert.include(text, winEvent)
        assert.include(text, "delivered")
        const redeliver = card.locator("button", { hasText: "Redeliver" })
        assert.strictEqual(yield* step(() => redeliver.count()), 1, "the win can be redelivered; the bet cannot")
        yield* step(() => redeliver.click())
        yield* step(() => page.getByText("was queued for delivery again").waitFor())
        yield* eventually(Effect.sync(() => books.receivedFor(winEvent).length), (n) =>
          n === 2, "the win delivered again")
        yield* step(() =>
          page.locator("details").first().click()
        )
        yield* screenshot(page, "wallet")
      })), { timeout: 90_000 })

    it.effect(
      "test and live side by side: the test token plays in the sandbox, clearing test data leaves live data as it was",
      () =>
        Effect.scoped(Effect.gen(function*() {
          yield* givenAdmin("integrations@example.com")
          const page = yield* newPage()
          yield* loggedIn(page, "integrations@example.com")
          const base = yield* serverUrl
          // The catalog the live launches need, synced as an operator does.
          yield* step(() => page.getByRole("link", { name: "Casino" }).click())
          yield* ready(page)
          yield* step(() => page.getByRole("button", { name: "Sync now" }).click())
          yield* step(() => page.getByText("Synced: providers").waitFor({ timeout: 30_000 }))

          // A partner whose wallets, live and test, are the sandbox's partner wallet of this service.
          yield* step(() => page.getByRole("link", { name: "Partners" }).click())
          yield* ready(page)
          const form = page.locator("form", { has: page.getByRole("heading", { name: "New partner" }) })
          yield* step(() => form.getByLabel("Name").fill("Sandbox Integrator"))
          yield* step(() => form.getByLabel("Live callback URL").fill(`${base}${sandboxPartnerWalletPath}`))
          yield* step(() =>
            form.getByLabel("Test callback URL").fill(`${base}${sandboxPartnerWalletPath}?environment=test`)
          )
          yield* step(() => form.getByRole("button", { name: "Create partner" }).click())
          yield* step(() => page.locator("[data-secret=test-token]").waitFor())
          const liveToken = (yield* step(() => page.locator("[data-secret=live-token]").textContent()))!
          const testToken = (yield* step(() => page.locator("[data-secret=test-token]").textContent()))!
          assert.match(testToken, /^pak_test_/)
          const row = page.locator("tr", { hasText: "Sandbox Integrator" })
          assert.strictEqual(yield* step(() => row.locator("[data-player-mode]").textContent()), "persisted")

          // The partner integrates with its test token: /status says test, a launch and a spin in the sandbox.
          const status = yield* request("GET", "/api/partner/v1/status", { headers: bearer(testToken) })
          const environmentOf = dataAs(Schema.Struct({ partner: Schema.Struct({ environment: Schema.String }) }))
          assert.strictEqual(environmentOf(status).partner.environment, "test")
          const player = yield* newPage()
          const testSpin = yield* spinOnce(player, testToken, "integrator-test-player")
          assert.match(testSpin.path, /\/sandbox\/casino\/play\/test\./)
          assert.match(testSpin.result, /^(You won|No win this time)/, "the test bet was taken by the test wallet")
          const liveSpin = yield* spinOnce(player, liveToken, "integrator-live-player")
          assert.match(liveSpin.result, /^(You won|No win this time)/, "the live bet was taken by the live wallet")

          // The wallet page shows each environment apart, every transaction labelled.
          const testCards = yield* walletSearch(page, "Sandbox Integrator", "Test")
          assert.isAbove(yield* step(() => testCards.count()), 0)
          assert.deepStrictEqual(
            [
              ...new Set(
                yield* step(() =>
                  testCards.evaluateAll((cards) => cards.map((card) => card.getAttribute("data-environment")))
                )
              )
            ],
            ["test"]
          )
          assert.include(yield* step(() => testCards.first().locator(".badge.environment").textContent()), "Test")
          const liveCards = yield* walletSearch(page, "Sandbox Integrator", "Live")
          const liveBefore = yield* step(() => liveCards.allTextContents())
          assert.isAbove(liveBefore.length, 0)
          assert.isTrue(liveBefore.every((text) => text.includes("Live")))
          yield* screenshot(page, "wallet-environments")

          // Clear the test data from the partner's row, after a confirmation that names the partner.
          yield* step(() => page.getByRole("link", { name: "Partners" }).click())
          yield* ready(page)
          const asked = yield* confirming(page, () =>
            page.locator("[data-action='clear-test-data-sandbox-integrator']").click())
          assert.include(asked, "Sandbox Integrator")
          assert.include(asked, "Live data is untouched")
          const outcome = page.getByText("Test data of Sandbox Integrator cleared:")
          yield* step(() =>
            outcome.waitFor()
          )
          const counts = (yield* step(() => outcome.textContent()))!
          assert.match(
            counts,
            /: 1 player, [1-9]\d* rounds?, [1-9]\d* transactions?, [1-9]\d* callbacks? deleted\. Live data is untouched\./
          )
          yield* screenshot(page, "partners-test-data-cleared")

          // Live data as it was; no test transaction left; the test token still works.
          const testAfter = yield* walletSearch(page, "Sandbox Integrator", "Test")
          assert.strictEqual(yield* step(() => testAfter.count()), 0)
          assert.include(yield* step(() => page.locator("main").textContent()), "No transaction matches.")
          const liveAfter = yield* walletSearch(page, "Sandbox Integrator", "Live")
          assert.deepStrictEqual(yield* step(() => liveAfter.allTextContents()), liveBefore)
          assert.strictEqual(
            (yield* request("GET", "/api/partner/v1/status", { headers: bearer(testToken) })).status,
            200
          )

          // The player mode, set in the edit form (a switch to shadow is confirmed).
          yield* step(() => page.getByRole("link", { name: "Partners" }).click())
          yield* ready(page)
          yield* step(() =>
            page.locator("tr", { hasText: "Sandbox Integrator" }).getByRole("button", { name: "Edit" }).click()
          )
          const edit = page.locator("form", { has: page.getByRole("heading", { name: "Edit Sandbox Integrator" }) })
          yield* step(() => edit.getByLabel("Player mode").selectOption("shadow"))
          const switched = yield* confirming(page, () => edit.getByRole("button", { name: "Save" }).click())
          assert.include(switched, "forgotten")
          yield* step(() => page.getByText("Sandbox Integrator was saved.").waitFor())
          assert.strictEqual(
            yield* step(() =>
              page.locator("tr", { hasText: "Sandbox Integrator" }).locator("[data-player-mode]").textContent()
            ),
            "shadow"
          )
        })),
      { timeout: 120_000 }
    )

    it.effect(
      "a change without the CSRF token is refused; a viewer cannot change anything",
      () =>
        Effect.scoped(Effect.gen(function*() {
          yield* givenAdmin("csrf@example.com")
          const page = yield* newPage()
          yield* loggedIn(page, "csrf@example.com")
          const forged = yield* postFromPage(page, "/admin/api/partners", {})
          assert.strictEqual(forged.status, 403)
          assert.include(forged.body.message, "CSRF")

          yield* givenAdmin("viewer@example.com", "viewer")
          const viewer = yield* newPage()
          yield* loggedIn(viewer, "viewer@example.com")
          yield* step(() => viewer.getByText("Your role (viewer) can read but not change partners.").waitFor())
          assert.strictEqual(
            yield* step(() =>
              viewer.getByRole("button", { name: /Deactivate|Activate|Create partner|Rotate/ }).count()
            ),
            0
          )
          // Even with the token a page script could read, the API refuses a viewer's change.
          const csrf = yield* step(() =>
            viewer.evaluate(async () =>
              (await (await fetch("/admin/api/session")).json() as { csrf_token: string }).csrf_token
            )
          )
          const refused = yield* postFromPage(viewer, "/admin/api/partners", { "x-csrf-token": csrf })
          assert.strictEqual(refused.status, 403)
          assert.include(refused.body.message, "viewer")
          for (const path of ["/admin/wallet", "/admin/casino"]) {
            yield* step(() => viewer.goto(`${new URL(viewer.url()).origin}${path}`))
            yield* ready(viewer)
            assert.strictEqual(
              yield* step(() => viewer.getByRole("button", { name: /Redeliver|Sync now|Disable|Enable/ }).count()),
              0,
              path
            )
          }
        })),
      { timeout: 90_000 }
    )

    it.effect(
      "the audit trail shows each change; the casino, sports and system pages",
      () =>
        Effect.scoped(Effect.gen(function*() {
          yield* givenAdmin("auditor@example.com")
          const page = yield* newPage()
          yield* loggedIn(page, "auditor@example.com")
          yield* step(() => page.getByRole("link", { name: "Casino" }).click())
          yield* ready(page)
          yield* step(() => page.getByRole("button", { name: "Sync now" }).click())
          yield* step(() => page.getByText("Synced: providers").waitFor({ timeout: 30_000 }))
          yield* step(() =>
            page.locator("tr", { hasText: "aurora-gaming" }).getByRole("button", { name: /Disable/ }).first().click()
          )
          yield* step(() => page.getByText("is disabled.").waitFor())
          yield* screenshot(page, "casino")

          yield* step(() => page.getByRole("link", { name: "Sports" }).click())
          yield* ready(page)
          yield* screenshot(page, "sports")
          yield* step(() => page.getByRole("link", { name: "System" }).click())
          yield* ready(page)
          assert.include(yield* step(() => page.locator("main").textContent()), "Healthy")
          assert.notInclude(
            yield* step(() => page.content()),
            "postgres://",
            "no database URL (or its password) on the page"
          )
          yield* screenshot(page, "system")

          yield* step(() => page.getByRole("link", { name: "Audit trail" }).click())
          yield* ready(page)
          const rows = yield* step(() => page.locator("tbody tr").allTextContents())
          const has = (action: string, actor: string) => rows.some((row) => row.includes(action) && row.includes(actor))
          assert.isTrue(has("partner.create", "creator@example.com"), "the partner created in the console")
          assert.isTrue(has("partner.deactivate", "creator@example.com"), "its deactivation")
          assert.isTrue(has("callback.redeliver", "wallet@example.com"), "the redelivery")
          assert.isTrue(has("casino.sync", "auditor@example.com"), "the sync")
          assert.isTrue(has("casino.disable-provider", "auditor@example.com"), "the provider switched off")
          assert.notMatch(rows.join("\n"), /pak_|whsec_/, "no secret in the trail")
          yield* screenshot(page, "audit")
        })),
      { timeout: 120_000 }
    )
  }
)
