/**
 * Whether a transaction id is used, of any kind (Hub88 asks it before every bet, win and rollback; the stuck check of
 * every unreadable call): PostgreSQL answers it from the ids' key, never by reading the ledger. As a join it took the
 * keys for a hundred rows and hashed the whole ledger for them, each call dearer as the ledger grew. Checked on a ledger
 * of 20,000 transactions, in the plan PostgreSQL makes for the values given and in the one it keeps for any (a
 * prepared statement's, which the driver's are).
 */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { ledgerPlans, nodesOf, type PlanNode } from "../support/LedgerPlans.ts"

/** Every node of a plan that reads wallet_transactions. */
const ledgerReads = (plan: PlanNode) => nodesOf(plan).filter((node) => node["Relation Name"] === "wallet_transactions")

it.effect("whether ids are used is read from the ids' key, not from the whole ledger", () =>
  Effect.gen(function*() {
    const { plans } = yield* ledgerPlans("fresh")
    const { answer, forTheValues, keptForAny } = yield* plans((repo) =>
      repo.existingTxnIds([
        { environment: "live", aggregator: "hub88", txnId: "txn-500" },
        { environment: "live", aggregator: "hub88", txnId: "txn-never" },
        { environment: "test", aggregator: "hub88", txnId: "txn-501" }
      ]), { analyze: false })
    assert.deepStrictEqual(answer, [{ environment: "live", aggregator: "hub88", txnId: "txn-500" }])
    for (const [plan, reads] of [["for the values given", forTheValues], ["kept for any", keptForAny]] as const) {
      assert.isAbove(ledgerReads(reads).length, 0, plan)
      for (const read of ledgerReads(reads)) {
        assert.include(["Index Scan", "Index Only Scan"], read["Node Type"], `${plan}: ${JSON.stringify(read)}`)
        assert.strictEqual(read["Index Name"], "wallet_transactions_environment_aggregator_kind_txn_id", plan)
      }
    }
  }).pipe(Effect.scoped))
