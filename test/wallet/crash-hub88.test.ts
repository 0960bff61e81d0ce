/**
 * Hub88's wallet calls across a real crash: the events the Hub88 route makes of a bet, a win and a rollback
 * (integrations/hub88/Hub88WalletCalls.ts), handed to a ledger instance in a process of its own
 * (test/support/LedgerChild.ts) that is killed (SIGKILL) at the moment the test means; another instance on the same
 * database carries on, receiving what Hub88 sends then (rollback-on-bet, retry-on-win). The outcomes are read in
 * Hub88's statuses. After each: conservation against the fake partner's books.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { amountOnWire } from "../../src/domain/Money.ts"
import type { BetRequest, RollbackRequest, WinRequest } from "../../src/integrations/hub88/Hub88Protocol.ts"
import { creditOf, debitOf, rollbackOf, statusOf } from "../../src/integrations/hub88/Hub88WalletCalls.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { awaitOutcomes, givenLedgerInstances, kill } from "../support/LedgerInstances.ts"
import { eventually, live } from "../support/live.ts"
import { assertConserved, ledgerOf } from "../support/WalletApp.ts"

const books = new PartnerBooks()
const toAmount = (minor: bigint) => amountOnWire(minor, knownCurrency("BRL")!)

const ids = (txn: string) => ({ transactionUuid: txn, round: "hub88-crash-round", gameCode: "clt_dragonrising" })
const bet = (userCode: number, txn: string, minor: bigint) => debitOf(userCode, ids(txn) as BetRequest, minor)
const win = (userCode: number, txn: string, betTxn: string, minor: bigint) =>
  creditOf(userCode, { ...ids(txn), referenceTransactionUuid: betTxn } as WinRequest, minor)
const rollback = (userCode: number, txn: string, betTxn: string) =>
  rollbackOf(userCode, { ...ids(txn), referenceTransactionUuid: betTxn } as RollbackRequest)

const given = (external: string, start: number) => givenLedgerInstances(books, "crash-hub88", external, start)

layer(Layer.merge(FakeUpstream.layer(books.script), NodeServices.layer), live)("Hub88's calls across a crash", (it) => {
  it.effect(
    "a bet pending at a slow partner when its instance dies: Hub88's rollback waits for its recovery, its win does not exist",
    () =>
      Effect.gen(function*() {
        const { ledger, player, sql, userCode } = yield* given("hub88-crash-player", 40)
        books.behaviour = "slow"
        books.delayMillis = 30_000
        const first = yield* ledger([bet(userCode, "h-crash-bet", 1_500n)], {
          PARTNER_CALLBACK_TIMEOUT: "60 seconds",
          WALLET_PENDING_TIMEOUT: "120 seconds"
        })
        const asked = transactionEventId("bet", "h-crash-bet", "hub88")
        yield* eventually(Effect.sync(() => books.receivedFor(asked).length), (n) => n === 1, "the bet at the partner")
        assert.strictEqual(books.balanceOf(player.external), 2_500n, "the partner took the stake")
        yield* kill(first)
        books.behaviour = "fine"

        // Hub88 heard nothing: it rolls the bet back (twice, as it retries), and a win naming it comes too.
        const undo = rollback(userCode, "h-crash-rb", "h-crash-bet")
        const second = yield* ledger([
          undo,
          undo,
          bet(userCode, "h-crash-bet", 1_500n),
          win(userCode, "h-crash-win", "h-crash-bet", 900n)
        ], {
          WALLET_PENDING_TIMEOUT: "3 seconds",
          PARTNER_CALLBACK_TIMEOUT: "1 second"
        })
        const outcomes = yield* awaitOutcomes(second, 4)
        const statuses = outcomes.map((outcome, i) =>
          statusOf(outcome, (["rollback", "rollback", "bet", "win"] as const)[i]!)
        )
        assert.deepStrictEqual(statuses.map((s) => s.status), [
          "RS_OK",
          "RS_OK",
          "RS_ERROR_NOT_ENOUGH_MONEY",
          "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
        ], second.output.join("\n"))
        for (const s of statuses) assert.strictEqual(s.balance, 4_000n, "the real balance: the start")

        const rolledBack = transactionEventId("rollback", "h-crash-bet", "hub88")
        yield* eventually(
          sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${rolledBack}`,
          (rows) => rows[0]?.status === "delivered",
          "the stake given back to the partner"
        )
        assert.strictEqual(books.receivedFor(rolledBack).length, 1)
        yield* assertConserved(books, player, { balance: toAmount(outcomes[0]!.balance) }).pipe(
          Effect.provideService(SqlClient.SqlClient, sql)
        )
        const rows = yield* ledgerOf(player.playerId).pipe(Effect.provideService(SqlClient.SqlClient, sql))
        assert.deepStrictEqual(rows.map((row) => [row.txn_id, row.kind, row.status, row.amount]), [
          ["h-crash-bet", "bet", "refused", "0"],
          ["h-crash-rb", "rollback", "applied", "0"]
        ])
      }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => books.reset()))),
    { timeout: 120_000 }
  )

  it.effect(
    "a win whose instance dies right after writing it: Hub88's retry replays, another instance pays it exactly once",
    () =>
      Effect.gen(function*() {
        const { ledger, player, sql, userCode } = yield* given("hub88-crash-winner", 50)
        books.hangNotifications = true
        const paid = win(userCode, "h-crash-win-2", "h-crash-bet-2", 2_000n)
        const first = yield* ledger([bet(userCode, "h-crash-bet-2", 500n), paid], {
          PARTNER_CALLBACK_TIMEOUT: "60 seconds",
          WALLET_PENDING_TIMEOUT: "120 seconds"
        })
        const [staked, credited] = yield* awaitOutcomes(first, 2)
        assert.deepStrictEqual(statusOf(staked!, "bet"), { status: "RS_OK", balance: 4_500n }, first.output.join("\n"))
        assert.deepStrictEqual(statusOf(credited!, "win"), { status: "RS_OK", balance: 6_500n })
        const delivered = transactionEventId("win", "h-crash-win-2", "hub88")
        yield* eventually(Effect.sync(() => books.receivedFor(delivered).length), (n) => n === 1, "the win's delivery")
        yield* kill(first)
        books.hangNotifications = false
        assert.strictEqual(books.balanceOf(player.external), 4_500n, "the partner has not been paid the win")

        const second = yield* ledger([paid], {
          PARTNER_CALLBACK_STALE_LOCK: "2 seconds",
          PARTNER_CALLBACK_TIMEOUT: "10 seconds"
        })
        const [replayed] = yield* awaitOutcomes(second, 1)
        assert.deepStrictEqual(replayed, credited, "the win's retry replays")
        yield* eventually(
          sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${delivered}`,
          (rows) => rows[0]?.status === "delivered",
          "the win delivered by the second instance"
        )
        assert.strictEqual(books.applied.filter((id) => id === delivered).length, 1, "the win paid once")
        yield* assertConserved(books, player, { balance: toAmount(credited!.balance) }).pipe(
          Effect.provideService(SqlClient.SqlClient, sql)
        )
        assert.strictEqual(books.balanceOf(player.external), 6_500n)
      }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => books.reset()))),
    { timeout: 120_000 }
  )
})
