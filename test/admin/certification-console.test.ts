/**
 * The console's wallet certification in a real headless Chromium, as an operator uses it: choose the partner, name
 * its test player, start a run, watch the cases fill the list as they finish, and read, case by case, why the run
 * failed (the fault each failed case caught, with the requests and answers); then require a passed run for the live
 * token, which withdraws it. Photographed for the operator guide (docs/screenshots/certification.png).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { caseKeys } from "../../src/domain/CertificationCaseTexts.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { givenAdmin, testPassword } from "../support/AdminConsole.ts"
import { Browser, newPage, screenshot, serverUrl, step } from "../support/Browser.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { bearer, givenPartner, request, TestApp } from "../support/TestApp.ts"

const books = new PartnerBooks()
const App = TestApp().pipe(Layer.provideMerge(FakeUpstream.layer(books.script)))

/** The page is drawn: the console marks its main region once a page's data has arrived. */
const ready = (page: Page) => step(() => page.waitForSelector("main[data-ready=true]"))

layer(Layer.merge(App, Browser.layer), live)("wallet certification in the console", (it) => {
  it.effect(
    "an operator starts a run, watches the cases arrive, and reads why it failed, case by case",
    () =>
      Effect.scoped(Effect.gen(function*() {
        // A partner whose test wallet skips signature checks, and answers every call 25 ms late (the run takes a moment).
        const fake = yield* FakeUpstream
        const created = yield* givenPartner({ name: "Lax Wallet Bets", testCallbackUrl: `${fake.url}/wallet` })
        books.secrets.add(created.test.webhookSecret)
        books.knownPlayersOnly = true
        books.faults.add("skips-signature-checks")
        books.behaviour = "slow"
        books.delayMillis = 25
        yield* (yield* PartnerPlayers).arrive({
          partnerId: created.partner.id,
          environment: "test",
          externalPlayerId: "tester-1",
          currency: "BRL",
          name: null,
          email: null,
          balance: 2_000n
        })
        books.balances.set("tester-1", 2_000n)
        yield* givenAdmin("certifier@example.com")

        const page = yield* newPage()
        const base = yield* serverUrl
        yield* step(() => page.goto(`${base}/admin`))
        yield* ready(page)
        yield* step(() => page.getByLabel("E-mail").fill("certifier@example.com"))
        yield* step(() => page.getByLabel("Password").fill(testPassword))
        yield* step(() => page.getByRole("button", { name: "Log in" }).click())
        yield* step(() => page.getByRole("button", { name: "Log out" }).waitFor())
        yield* step(() => page.getByRole("link", { name: "Certification" }).click())
        yield* ready(page)
        yield* step(() => page.getByLabel("Partner").selectOption({ label: "Lax Wallet Bets" }))
        yield* step(() => page.getByRole("button", { name: "Show" }).click())
        yield* step(() => page.getByRole("heading", { name: "Certify the test wallet of Lax Wallet Bets" }).waitFor())
        yield* ready(page)
        yield* step(() => page.getByLabel("Test player").fill("tester-1"))
        yield* step(() => page.getByRole("button", { name: "Start certification" }).click())

        // The list fills while the run is running, then the run ends failed.
        yield* step(() =>
          page.waitForFunction((total: number) => {
            // Runs in the page, where `document` is the console's.
            const page = (globalThis as unknown as {
              document: {
                querySelector(s: string): { getAttribute(a: string): string | null } | null
                querySelectorAll(s: string): { length: number }
              }
            }).document
            const cases = page.querySelectorAll("li[data-case]").length
            return page.querySelector("[data-run-status]")?.getAttribute("data-run-status") === "running" &&
              cases > 0 && cases < total
          }, caseKeys.length)
        )
        yield* step(() => page.locator("[data-run-status=failed]").waitFor({ timeout: 20_000 }))
        assert.strictEqual(yield* step(() => page.locator("li[data-case]").count()), caseKeys.length)
        assert.match(
          (yield* step(() => page.locator("[data-run-summary]").textContent()))!,
          /^22 of 25 cases passed; failed: A bad signature, A stale timestamp, A signature of another body\.$/
        )
        const caseOf = (key: string) => page.locator(`li[data-case=${key}]`)
        assert.strictEqual(yield* step(() => page.locator("[data-run-currency]").textContent()), "BRL")
        // Balances in the currency's units with its code: 20.00 BRL and the free round's 100.00 BRL.
        assert.include(
          (yield* step(() => caseOf("bad_signature").locator("dl.facts").textContent()))!,
          "Balance before120.00 BRL"
        )
        assert.strictEqual(yield* step(() => caseOf("balance").getAttribute("data-status")), "passed")
        for (
          const [key, fault] of [
            ["bad_signature", "Fault caught: skips signature checks."],
            ["stale_timestamp", "Fault caught: skips signature checks (an old signature, a replay, is accepted)."],
            [
              "other_body",
              "Fault caught: skips signature checks (the signature is not checked against the body it came with)."
            ]
          ] as const
        ) {
          assert.strictEqual(yield* step(() => caseOf(key).getAttribute("data-status")), "failed", key)
          const reason = (yield* step(() => caseOf(key).locator("[data-reason]").textContent()))!
          assert.include(reason, "The bet was accepted: it was answered balance 119.00 BRL.", key)
          assert.include(reason, fault, key)
        }
        // The requests and answers of a failed case, as sent and got.
        const badSignature = caseOf("bad_signature")
        yield* step(() => badSignature.getByText(/^Requests and answers/).click())
        const sent = (yield* step(() => badSignature.locator("[data-request]").first().textContent()))!
        assert.match(sent, /^POST\ncontent-type: application\/json\nx-partner-event-id: evt_cert_[0-9a-f]{16}_\d{3}\n/)
        assert.include(sent, "\"certification\":{\"run\":\"cert_")
        assert.match(
          (yield* step(() => badSignature.locator("[data-answer]").first().textContent()))!,
          /^HTTP 200\n\n\{"balance":119\}$/
        )
        yield* screenshot(page, "certification")

        // Requiring a passed run: the live token is withdrawn (this run failed) and refused by the partner API.
        const asked = yield* step(async () => {
          const dialog = new Promise<string>((resolve) =>
            page.once("dialog", (shown) => {
              resolve(shown.message())
              void shown.accept()
            })
          )
          await page.getByRole("button", { name: "Require a passed certification" }).click()
          return dialog
        })
        assert.include(asked, "its live token is withdrawn now")
        yield* step(() =>
          page.getByText("A passed certification is now required for Lax Wallet Bets: its live token was withdrawn.")
            .waitFor()
        )
        assert.strictEqual(yield* step(() => page.locator("[data-live-token]").getAttribute("data-live-token")), "none")
        assert.strictEqual(
          (yield* request("GET", "/api/partner/v1/status", { headers: bearer(created.token) })).status,
          401
        )
        books.faults.clear()
        books.behaviour = "fine"
      })),
    { timeout: 90_000 }
  )
})
