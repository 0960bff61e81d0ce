/**
 * The console's operations pages in a real headless Chromium: a round left open by a bet whose instance died
 * shows on the Stuck page, and its operator alert reaches a fake endpoint once (however many checks see it
 * afterwards); a closed day's statement is read on the Statements page; a partner's RTP policy is set in the edit
 * form and the audit trail shows it. Thresholds are seconds and the day is closed under a TestClock.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import type { Page } from "playwright-core"
import { dayOf, dayStart, nextDay } from "../../src/domain/Statements.ts"
import { CallbacksConfig } from "../../src/wallet/CallbacksConfig.ts"
import { Statements } from "../../src/wallet/statements/Statements.ts"
import { OperationsConfig } from "../../src/wallet/stuck/OperationsConfig.ts"
import { WalletOperations } from "../../src/wallet/WalletOperations.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { givenAdmin, testPassword } from "../support/AdminConsole.ts"
import { Browser, newPage, screenshot, serverUrl, step } from "../support/Browser.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream, type RecordedCall } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { TestAppWith, testCallbacksConfig, testOperationsConfig } from "../support/TestApp.ts"
import { givenPlayer, givenWalletPartner, walletAnswer, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()

/** The partner's wallet at /wallet, the operator's alert endpoint at /alerts. */
const script = (call: RecordedCall) =>
  call.path === "/alerts" ? { kind: "json", body: { ok: true } } as const : books.script(call)

const App = Layer.mergeAll(WalletOperations, Browser.layer).pipe(
  Layer.provideMerge(TestAppWith(Layer.merge(
    Layer.effect(
      OperationsConfig,
      Effect.map(Effect.service(FakeUpstream), (fake) =>
        testOperationsConfig({
          stuckRoundAfter: Duration.seconds(2),
          alertUrl: Option.some(`${fake.url}/alerts`),
          alertSecret: Option.some(Redacted.make("console-alert-secret-0123456789"))
        }))
    ),
    Layer.succeed(
      CallbacksConfig,
      testCallbacksConfig({ timeout: Duration.millis(500), pendingTimeout: Duration.millis(1600) })
    )
  ))),
  Layer.provideMerge(FakeUpstream.layer(script))
)

const ready = (page: Page) => step(() => page.waitForSelector("main[data-ready=true]"))

const loggedIn = (page: Page, email: string) =>
  Effect.gen(function*() {
    const base = yield* serverUrl
    yield* step(() => page.goto(`${base}/admin`))
    yield* ready(page)
    yield* step(() => page.getByLabel("E-mail").fill(email))
    yield* step(() => page.getByLabel("Password").fill(testPassword))
    yield* step(() => page.getByRole("button", { name: "Log in" }).click())
    yield* step(() => page.getByRole("button", { name: "Log out" }).waitFor())
    yield* ready(page)
  })

const goTo = (page: Page, link: string) =>
  Effect.gen(function*() {
    yield* step(() => page.getByRole("navigation").getByRole("link", { name: link }).click())
    yield* step(() => page.getByRole("heading", { level: 1, name: link }).waitFor())
    yield* ready(page)
  })

const roundAlerts = Effect.map(
  Effect.service(FakeUpstream),
  (fake) => fake.calls.filter((call) => call.path === "/alerts" && call.body?.kind === "round")
)

layer(App, live)("the console's operations pages in Chromium", (it) => {
  it.effect("a stuck round shows on the Stuck page; its alert fires once", () =>
    Effect.scoped(Effect.gen(function*() {
      const acme = yield* givenWalletPartner(books)
      const ana = yield* givenPlayer(books, acme.partner.id, "console-stuck-ana", 100)
      // A bet written pending by an instance that died: nobody settles it here, its round stays open.
      yield* (yield* WalletRepo).openBet({
        aggregator: "sandbox",
        kind: "bet",
        txnId: "console-stuck-bet",
        fingerprint: "console-stuck-bet",
        partnerId: acme.partner.id,
        environment: "live",
        playerId: ana.id,
        roundId: "console-stuck-round",
        debitTxnId: null,
        gameCode: "ag-hidden-fortune",
        providerCode: "aurora-gaming",
        currency: "BRL",
        bet: 300n,
        win: 0n
      }, ana).pipe(Effect.orDie)
      yield* eventually(roundAlerts, (calls) => calls.length === 1, "the round's alert")

      yield* givenAdmin("stuck@example.com")
      const page = yield* newPage()
      yield* loggedIn(page, "stuck@example.com")
      yield* goTo(page, "Stuck")
      const row = page.locator("tr", { has: page.locator("[data-stuck='round:console-stuck-round']") })
      yield* step(() => row.waitFor())
      const text = (yield* step(() => row.textContent()))!
      assert.include(text, "Round open")
      assert.include(text, acme.partner.slug)
      assert.include(text, "console-stuck-ana")
      assert.strictEqual(yield* step(() => row.locator("[data-alert]").getAttribute("data-alert")), "sent")
      assert.include((yield* step(() => page.locator("main").textContent()))!, "Operator alert: on")
      yield* screenshot(page, "stuck")

      // Later checks see the round again and send nothing more.
      const sql = yield* SqlClient.SqlClient
      yield* eventually(
        sql<{ n: number }>`
          SELECT count(*)::int AS n FROM stuck_alerts
          WHERE kind = 'round' AND subject = 'console-stuck-round' AND last_seen_at > alerted_at + interval '1 second'
        `.pipe(Effect.orDie),
        (rows) => rows[0].n === 1,
        "the round seen again after its alert"
      )
      assert.strictEqual((yield* roundAlerts).length, 1, "one alert for the round")

      // The wallet page finds it from its link.
      yield* step(() => row.getByRole("link", { name: "console-stuck-round" }).click())
      yield* step(() => page.locator("[data-transaction='console-stuck-bet']").first().waitFor())
    })), { timeout: 60_000 })

  it.effect(
    "a statement on the Statements page; the RTP policy set in the edit form and audited",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const acme = yield* givenWalletPartner(books)
        const bo = yield* givenPlayer(books, acme.partner.id, "console-statement-bo", 100)
        assert.strictEqual(
          walletAnswer(yield* winBet(bo.internalUserId, "console-st-1", { bet: 10, win: 4.5 })).msg,
          ""
        )
        assert.strictEqual(walletAnswer(yield* winBet(bo.internalUserId, "console-st-2", { bet: 2, win: 0 })).msg, "")
        const day = dayOf(Date.now())
        const statements = yield* Statements
        yield* Effect.andThen(TestClock.setTime(dayStart(nextDay(day)).getTime() + 5 * 60_000), statements.closeDays)
          .pipe(
            Effect.provide(TestClock.layer())
          )

        yield* givenAdmin("statements@example.com")
        const page = yield* newPage()
        yield* loggedIn(page, "statements@example.com")
        yield* goTo(page, "Statements")
        const form = page.locator("form", { has: page.getByRole("heading", { name: "Find a statement" }) })
        yield* step(() => form.getByLabel("Partner").selectOption({ label: acme.partner.name }))
        yield* step(() => form.getByLabel("Environment").selectOption({ label: "Live" }))
        yield* step(() => form.getByLabel("Day (UTC)").fill(day))
        yield* step(() => form.getByRole("button", { name: "Show" }).click())
        const shown = page.locator(`[data-statement='${acme.partner.slug}/live/${day}']`)
        yield* step(() => shown.waitFor())
        yield* ready(page)
        const facts = (yield* step(() => shown.locator("dl").textContent()))!
        assert.match(facts, /Signaturev1=[0-9a-f]{64}/)
        const tableOf = (caption: string) =>
          shown.locator("table", { has: page.locator("caption", { hasText: caption }) })
        // Totals per currency, each in its units: one currency that day.
        assert.deepStrictEqual(
          yield* step(() => tableOf("Totals per currency").locator("tbody tr td").allTextContents()),
          ["BRL", "2", "12", "4.5", "0", "0", "-7.5"]
        )
        assert.deepStrictEqual(
          yield* step(() => tableOf("Transactions").locator("tbody tr td:first-child").allTextContents()),
          ["console-st-1", "console-st-2"]
        )
        yield* screenshot(page, "statements")

        // The RTP policy, in the partner's edit form.
        yield* goTo(page, "Partners")
        yield* step(() =>
          page.locator("tr", { hasText: acme.partner.name }).getByRole("button", { name: "Edit" }).click()
        )
        const edit = page.locator("form", { has: page.getByRole("heading", { name: `Edit ${acme.partner.name}` }) })
        yield* step(() => edit.getByLabel("RTP policy").selectOption("clamp"))
        yield* step(() => edit.getByLabel("RTP minimum (%)").fill("85"))
        yield* step(() => edit.getByLabel("RTP maximum (%)").fill("96"))
        yield* step(() => edit.getByRole("button", { name: "Save" }).click())
        yield* step(() => page.getByText(`${acme.partner.name} was saved.`).waitFor())
        assert.strictEqual(
          yield* step(() =>
            page.locator("tr", { hasText: acme.partner.name }).locator("[data-rtp-policy]").textContent()
          ),
          "clamp 85–96"
        )
        yield* goTo(page, "Audit trail")
        const entry = page.locator("tbody tr", { hasText: "partner.set-rtp-policy" })
        const audited = (yield* step(() => entry.first().textContent()))!
        assert.include(audited, "statements@example.com")
        assert.include(audited, `partner:${acme.partner.slug}`)
        const [before, after] = yield* step(() => entry.first().locator("pre").allTextContents())
        assert.deepStrictEqual([JSON.parse(before), JSON.parse(after)], [
          { rtp_policy: { mode: "pass" } },
          { rtp_policy: { mode: "clamp", min: 85, max: 96 } }
        ])
      })),
    { timeout: 60_000 }
  )
})
