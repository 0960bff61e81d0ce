/**
 * The one read a credit or a rollback is decided on (WalletRepo.debitLedger: the player, the event's own transaction,
 * the debit it names, their round and its transactions) reads a few pages of a ledger of 20,000, even where PostgreSQL's
 * statistics are those of an empty ledger (a new one, or one growing faster than autovacuum analyses it). Its looks
 * were one OR, which PostgreSQL then answered by walking every Hub88 transaction of the environment: 12,700 pages a
 * call here, a Hub88 call's largest cost in the benchmark's fresh ledgers. Counted in pages (buffers), not time.
 */
import { assert, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { ledgerPlans, type PlanNode } from "../support/LedgerPlans.ts"

const pagesOf = (plan: PlanNode) => (plan["Shared Hit Blocks"] ?? 0) + (plan["Shared Read Blocks"] ?? 0)

for (const statistics of ["of an empty ledger", "fresh"] as const) {
  it.effect(`a credit's read of the ledger reads a few pages, with statistics ${statistics}`, () =>
    Effect.gen(function*() {
      const { plans, playerOf } = yield* ledgerPlans(statistics)
      const playerId = yield* playerOf("txn-500")
      const { answer, forTheValues, keptForAny } = yield* plans((repo) =>
        repo.debitLedger({
          environment: "live",
          aggregator: "hub88",
          kind: "credit",
          txnId: "txn-500-win",
          debitTxnId: "txn-500",
          roundId: "round-500",
          playerId
        }), { analyze: true })
      // What it reads: the bet named, its round, that round's one transaction (the bet), no win yet.
      assert.isTrue(Option.isSome(answer))
      const ledger = Option.getOrThrow(answer)
      assert.strictEqual(ledger.debit?.txnId, "txn-500")
      assert.strictEqual(ledger.seen, undefined)
      assert.strictEqual(Option.getOrThrow(ledger.round).roundId, "round-500")
      assert.deepStrictEqual(ledger.transactions.map((t) => t.txnId), ["txn-500"])
      for (const [plan, read] of [["for the values given", forTheValues], ["kept for any", keptForAny]] as const) {
        assert.isBelow(pagesOf(read), 100, `${plan}: ${pagesOf(read)} pages`)
      }
    }).pipe(Effect.scoped))
}
