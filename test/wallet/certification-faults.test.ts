/**
 * Wallet certification against a fake partner wallet with one fault switched on at a time: the cases that should catch
 * it fail, each naming the fault, the others pass, and the wallet ends where it started. The Hub88 race, whose bet and
 * rollback go at once, is also played against a wallet that holds its bets, so its rollback comes first. The rest of
 * the certification: certification.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { type CaseKey, caseKeys, cases } from "../../src/domain/CertificationCaseTexts.ts"
import { certify, failedCases, failedReasons, givenTestWallet, ledgerRows } from "../support/CertificationWallet.ts"
import { PartnerBooks, type WalletFault } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { TestApp } from "../support/TestApp.ts"

const books = new PartnerBooks()
/** Far above any answer here, as in certification.test.ts: the 20 copies of one bet queue on the fake's lock. */
const App = TestApp({ callbacks: { timeout: Duration.seconds(10) } }).pipe(
  Layer.provideMerge(FakeUpstream.layer(books.script))
)

layer(App, live)("wallet certification of a faulty wallet", (it) => {
  /**
   * Each fault with the cases that catch it; a third element names which of the Hub88 race's bet and rollback (sent at
   * once, so in either order) must reach the fake first for the fault to show there: the race fails then, and only then.
   */
  const faults: ReadonlyArray<readonly [WalletFault, ReadonlyArray<CaseKey>, ("bet" | "rollback")?]> = [
    ["double-applies-retry", [
      "repeat",
      "replay",
      "repeated_refund",
      "repeated_rollback",
      "same_id_other_body",
      "concurrent",
      "hub88_round"
    ]],
    ["skips-signature-checks", ["bad_signature", "stale_timestamp", "other_body"]],
    ["applies-late-bet", ["rollback_first"], "rollback"],
    ["rounds-amounts", ["two_decimals"]],
    ["mixes-currencies", ["other_currency"]],
    ["repeats-refunds", ["repeated_refund"]],
    ["repeats-rollbacks", ["repeated_rollback", "hub88_round"]],
    ["loses-updates", ["in_flight"], "bet"],
    ["keys-on-body", ["same_id_other_body"]],
    ["answers-replay-anew", ["replay"]],
    ["one-win-per-round", ["hub88_round"]]
  ]
  /** Which of the Hub88 race's bet and rollback reached the fake first in run `runId` (it decides each as it comes). */
  const firstInRace = (runId: string) =>
    books.received.find((callback) =>
      callback.body?.certification?.run === runId && callback.body.certification.case === "hub88_race" &&
      (callback.kind === "bet" || callback.kind === "rollback")
    )?.kind
  for (const [fault, caught, showsInRace] of faults) {
    it.effect(`a wallet that ${fault} fails the cases that catch it, each naming the fault`, () =>
      Effect.gen(function*() {
        books.knownPlayersOnly = true
        books.faults.clear()
        books.faults.add(fault)
        const { external, partner } = yield* givenTestWallet(books, "fake")
        const run = yield* certify(partner.id, external)
        books.faults.clear()
        const raced = showsInRace !== undefined && firstInRace(run.id) === showsInRace
        const catchers = caseKeys.filter((key) => caught.includes(key) || (raced && key === "hub88_race"))
        assert.deepStrictEqual(failedCases(run), catchers)
        assert.strictEqual(run.status, "failed")
        assert.strictEqual(books.balanceOf(external), 5_000n, "the wallet ends where it started: nothing left behind")
        for (const key of catchers) {
          const reason = run.cases.find((result) => result.key === key)!.reason!
          assert.include(reason, `Fault caught: ${cases[key].catches}.`)
        }
        assert.strictEqual(yield* ledgerRows(partner.id), 0)
      }))
  }

  it.effect("a Hub88 rollback that reaches a wallet still taking its bet: refusing the bet after it passes, applying it fails the race, naming the stake kept", () =>
    Effect.gen(function*() {
      books.knownPlayersOnly = true
      // Every bet is held 50 ms before it is decided: the rollback sent with it is decided first, whatever arrives first.
      books.behaviour = "late"
      books.delayMillis = 50
      const decidedFirst = (runId: string) => {
        const race = books.received.filter((callback) =>
          callback.body?.certification?.run === runId && callback.body.certification.case === "hub88_race"
        )
        return books.decided.find((eventId) => race.some((callback) => callback.eventId === eventId))
      }
      const runs = yield* Effect.forEach(
        [[], ["applies-late-bet"]] as const,
        (faults) =>
          Effect.gen(function*() {
            books.faults.clear()
            for (const fault of faults) books.faults.add(fault)
            const { external, partner } = yield* givenTestWallet(books, "fake")
            const run = yield* certify(partner.id, external)
            assert.strictEqual(books.balanceOf(external), 5_000n, "the wallet ends where it started")
            const race = run.cases.find((result) => result.key === "hub88_race")!
            const rollback = race.exchanges.find((exchange) => exchange.label.startsWith("rollback"))!
            assert.strictEqual(decidedFirst(run.id), rollback.request.headers["x-partner-event-id"])
            return run
          }),
        { concurrency: 1 }
      ).pipe(Effect.ensuring(Effect.sync(() => {
        books.faults.clear()
        books.behaviour = "fine"
      })))
      const [refusing, applying] = runs
      assert.deepStrictEqual(
        failedCases(refusing),
        [],
        failedReasons(refusing).join("; ")
      )
      const raceBet = refusing.cases.find((result) => result.key === "hub88_race")!.exchanges.find((exchange) =>
        exchange.label.startsWith("bet")
      )!
      // Refused with a 4xx, which proves the refusal: no other rollback of it is sent.
      assert.match(raceBet.reading, /^no usable answer: The partner answered HTTP 409/)
      assert.strictEqual(refusing.cases.find((result) => result.key === "hub88_race")!.exchanges.length, 3)
      assert.deepStrictEqual(failedCases(applying), ["hub88_race", "rollback_first"])
      const reason = applying.cases.find((result) => result.key === "hub88_race")!.reason!
      assert.include(reason, "After the bet and its rollback at once the balance is")
      assert.include(reason, "The stake was taken and not given back: the rollback found no bet, or the bet was taken")
      assert.include(reason, `Fault caught: ${cases.hub88_race.catches}.`)
    }))
})
