/**
 * The portal's Certification section in a real headless Chromium, as a partner's viewer uses it: the partner's runs
 * newest first (status, when, by whom, summary, currency, callback URL), none of another partner's, and a run's
 * report read case by case (title, status, reason). Over PostgreSQL, with the fake partner wallet. The page is
 * photographed for the partner guide (docs/screenshots/portal-certification.png).
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { caseKeys } from "../../src/domain/CertificationCaseTexts.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { Browser, newPage, screenshot, step } from "../support/Browser.ts"
import { givenCertifiable } from "../support/CertificationWallet.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { logIn, openSection, ready } from "../support/PanelSteps.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { givenPortalUser } from "../support/Portal.ts"
import { TestApp } from "../support/TestApp.ts"

const books = new PartnerBooks()
const App = TestApp({ callbacks: { timeout: Duration.seconds(10) } }).pipe(
  Layer.provideMerge(FakeUpstream.layer(books.script))
)

/** A partner whose test callbacks go to the fake wallet, with a test player of 50.00 BRL on both sides. */
const givenFakeWallet = (name: string, slug: string) =>
  Effect.gen(function*() {
    const url = `${(yield* FakeUpstream).url}/wallet`
    return { ...yield* givenCertifiable(books, { name, slug }, { testCallbackUrl: url }), callbackUrl: url }
  })

layer(Layer.merge(App, Browser.layer), live)("the portal's Certification section in Chromium", (it) => {
  it.effect(
    "a viewer lists the partner's runs newest first, none of another partner's, and reads a run's cases",
    () =>
      Effect.scoped(Effect.gen(function*() {
        books.knownPlayersOnly = true
        const mine = yield* givenFakeWallet("Certified Bets", "certified-bets")
        const other = yield* givenFakeWallet("Other Bets", "other-bets")
        const service = yield* Certifications
        // The operator's run against a wallet that skips signature checks, then the partner's own, which passes.
        books.faults.add("skips-signature-checks")
        const failedRun = yield* service.run(mine.partner.id, mine.external, {
          name: "ops@example.com",
          via: "console"
        })
          .pipe(Effect.orDie, Effect.ensuring(Effect.sync(() => books.faults.clear())))
        const client = yield* partnerClient(mine.test.token)
        const started =
          (yield* client.certifications.start({ payload: { external_player_id: mine.external } })).data.certification
        yield* eventually(
          client.certifications.show({ params: { certification_id: started.id }, query: {} }),
          (answer) => answer.data.certification.status !== "running",
          "the partner's run's end"
        )
        const strangers = yield* service.run(other.partner.id, other.external, { name: "ops", via: "cli" }).pipe(
          Effect.orDie
        )

        yield* givenPortalUser(mine.partner, "viewer@certified.example", "viewer")
        const page = yield* newPage()
        yield* logIn(page, "/portal", "viewer@certified.example")
        yield* openSection(page, "Certification")
        yield* step(() => page.getByRole("heading", { name: "2 runs" }).waitFor())
        const rows = page.getByRole("table", { name: "Runs" }).locator("tbody tr")
        const cell = (row: number, label: string) =>
          step(() => rows.nth(row).locator(`td[data-label='${label}']`).textContent())
        assert.deepStrictEqual(
          [
            yield* cell(0, "Status"),
            yield* cell(0, "By"),
            yield* cell(0, "Summary"),
            yield* cell(0, "Currency"),
            yield* cell(0, "Callback URL")
          ],
          [
            "passed",
            "partner certified-bets (test token) (api)",
            `${caseKeys.length} of ${caseKeys.length} cases passed.`,
            "BRL",
            mine.callbackUrl
          ],
          "the partner's run first"
        )
        assert.deepStrictEqual([yield* cell(1, "Status"), yield* cell(1, "By")], [
          "failed",
          "ops@example.com (console)"
        ])
        assert.match((yield* cell(1, "Started")) ?? "", /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)
        const text = (yield* step(() => page.locator("main").textContent()))!
        assert.notInclude(text, strangers.id, "another partner's run")
        assert.notInclude(text, "other-bets")

        // The failed run's report: each case's title, status and reason.
        yield* step(() => page.getByRole("link", { name: `View ${failedRun.id}` }).click())
        yield* ready(page)
        yield* step(() => page.getByRole("heading", { name: `Run ${failedRun.id} failed` }).waitFor())
        const cases = page.getByRole("table", { name: "Cases" }).locator("tbody tr")
        assert.strictEqual(yield* step(() => cases.count()), caseKeys.length)
        const badSignature = cases.filter({ hasText: "A bad signature" })
        assert.strictEqual(yield* step(() => badSignature.locator("td[data-label=Status]").textContent()), "failed")
        assert.include(
          (yield* step(() => badSignature.locator("td[data-label=Reason]").textContent()))!,
          "Fault caught: skips signature checks."
        )
        assert.strictEqual(
          yield* step(() => cases.filter({ hasText: "Conservation" }).locator("td[data-label=Reason]").textContent()),
          "—",
          "a passed case has no reason"
        )
        yield* screenshot(page, "portal-certification")
        // Another partner's run id is not found here.
        yield* step(() => page.goto(page.url().replace(failedRun.id, strangers.id)))
        yield* ready(page)
        assert.include((yield* step(() => page.getByRole("alert").textContent()))!, "not found")
      })),
    { timeout: 120_000 }
  )
})
