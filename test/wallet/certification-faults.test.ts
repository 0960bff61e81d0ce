/**
 * Wallet certification against a fake partner wallet with one fault switched on at a time: the cases that should catch
 * it fail, each naming the fault, the others pass, and the wallet ends where it started. The rest of the certification:
 * certification.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { type CaseKey, cases } from "../../src/domain/CertificationCaseTexts.ts"
import { certify, failedCases, givenTestWallet, ledgerRows } from "../support/CertificationWallet.ts"
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
  const faults: ReadonlyArray<readonly [WalletFault, ReadonlyArray<CaseKey>]> = [
    ["double-applies-retry", [
      "repeat",
      "replay",
      "repeated_refund",
      "repeated_rollback",
      "same_id_other_body",
      "concurrent"
    ]],
    ["skips-signature-checks", ["bad_signature", "stale_timestamp", "other_body"]],
    ["applies-late-bet", ["rollback_first"]],
    ["rounds-amounts", ["two_decimals"]],
    ["mixes-currencies", ["other_currency"]],
    ["repeats-refunds", ["repeated_refund"]],
    ["repeats-rollbacks", ["repeated_rollback"]],
    ["loses-updates", ["in_flight"]],
    ["keys-on-body", ["same_id_other_body"]],
    ["answers-replay-anew", ["replay"]]
  ]
  for (const [fault, catchers] of faults) {
    it.effect(`a wallet that ${fault} fails the cases that catch it, each naming the fault`, () =>
      Effect.gen(function*() {
        books.knownPlayersOnly = true
        books.faults.clear()
        books.faults.add(fault)
        const { external, partner } = yield* givenTestWallet(books, "fake")
        const run = yield* certify(partner.id, external)
        books.faults.clear()
        assert.deepStrictEqual(failedCases(run), [...catchers])
        assert.strictEqual(run.status, "failed")
        assert.strictEqual(books.balanceOf(external), 5_000n, "the wallet ends where it started: nothing left behind")
        for (const key of catchers) {
          const reason = run.cases.find((result) => result.key === key)!.reason!
          assert.include(reason, `Fault caught: ${cases[key].catches}.`)
        }
        assert.strictEqual(yield* ledgerRows(partner.id), 0)
      }))
  }
})
