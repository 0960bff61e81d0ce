/**
 * The ledger's events that no aggregator sends yet (a debit alone, a credit naming the debit it pays, a rollback
 * naming the debit it undoes) across a real crash: a ledger instance in a process of its own
 * (test/support/LedgerChild.ts) is killed (SIGKILL) at the moment the test means, and another instance on the same
 * database carries on. After each: conservation against the fake partner's books (it holds its start plus the
 * ledger's applied changes, which is what the aggregator was last told), and the ledger's rows say the same.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { amountOnWire } from "../../src/domain/Money.ts"

const toAmount = (minor: bigint) => amountOnWire(minor, knownCurrency("BRL")!)
import type { Credit, Debit, Rollback } from "../../src/domain/WalletEvents.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { awaitOutcomes, givenLedgerInstances, kill } from "../support/LedgerInstances.ts"
import { eventually, live } from "../support/live.ts"
import { assertConserved, ledgerOf } from "../support/WalletApp.ts"

const books = new PartnerBooks()

const fields = (userCode: number, txnId: string) => ({
  aggregator: "sandbox" as const,
  userCode,
  txnId,
  roundId: "crash-round",
  gameCode: "g",
  providerCode: "p"
})
const debit = (userCode: number, txnId: string, bet: number): Debit => ({
  _tag: "Debit",
  ...fields(userCode, txnId),
  bet: BigInt(bet)
})
const credit = (userCode: number, txnId: string, win: number, debitTxnId: string): Credit => ({
  _tag: "Credit",
  ...fields(userCode, txnId),
  win: BigInt(win),
  debitTxnId
})
const rollback = (userCode: number, txnId: string, debitTxnId: string): Rollback => ({
  _tag: "Rollback",
  ...fields(userCode, txnId),
  debitTxnId
})

const given = (external: string, start: number) => givenLedgerInstances(books, "crash-events", external, start)

layer(Layer.merge(FakeUpstream.layer(books.script), NodeServices.layer), live)(
  "the ledger's events across a crash",
  (it) => {
    it.effect(
      "a debit pending at a slow partner when its instance is killed: a rollback naming it waits for its recovery, then moves nothing",
      () =>
        Effect.gen(function*() {
          const { ledger, player, sql, userCode } = yield* given("debit-crash-player", 40)
          books.behaviour = "slow"
          books.delayMillis = 30_000
          const first = yield* ledger([debit(userCode, "crash-debit-1", 1_500)], {
            PARTNER_CALLBACK_TIMEOUT: "60 seconds",
            WALLET_PENDING_TIMEOUT: "120 seconds"
          })
          const bet = transactionEventId("bet", "crash-debit-1", "sandbox")
          yield* eventually(
            Effect.sync(() => books.receivedFor(bet).length),
            (n) => n === 1,
            "the debit at the partner"
          )
          assert.strictEqual(books.balanceOf(player.external), 2_500n, "the partner took the stake")
          yield* kill(first)
          books.behaviour = "fine"
          const [left] = yield* sql<{ status: string }>`
          SELECT status FROM wallet_transactions WHERE txn_id = 'crash-debit-1'
        `
          assert.strictEqual(left.status, "pending", "the killed instance left its debit pending")

          // Another instance gets the rollback (twice, as an aggregator retries) and the debit's own retry. Nothing else
          // settles the pending debit: the rollback waits for it to go stale and recovers it itself.
          const undone = rollback(userCode, "crash-rollback-1", "crash-debit-1")
          const second = yield* ledger([undone, undone, debit(userCode, "crash-debit-1", 1_500)], {
            WALLET_PENDING_TIMEOUT: "3 seconds",
            PARTNER_CALLBACK_TIMEOUT: "1 second"
          })
          const [answered, repeated, retried] = yield* awaitOutcomes(second, 3)
          assert.deepStrictEqual(answered, { _tag: "Accepted", balance: 4_000n }, second.output.join("\n"))
          assert.deepStrictEqual(repeated, answered, "the rollback's repeat replays")
          assert.deepStrictEqual(
            retried,
            { _tag: "Refused", refusal: "INSUFFICIENT_USER_FUNDS", balance: 4_000n },
            "the debit's retry replays its recovery"
          )

          const rolledBack = transactionEventId("rollback", "crash-debit-1", "sandbox")
          yield* eventually(
            sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${rolledBack}`,
            (rows) => rows[0]?.status === "delivered",
            "the rollback notification delivered"
          )
          assert.strictEqual(books.receivedFor(rolledBack).length, 1, "the rollback notification sent once")
          assert.isTrue(
            second.output.some((line) => line.includes("A bet left pending was settled as refused")),
            "the second instance recovered the debit"
          )
          assert.strictEqual(books.balanceOf(player.external), 4_000n, "the partner holds its start")
          const notifications = yield* sql<{ kind: string }>`
          SELECT kind FROM partner_callbacks WHERE player_id = ${player.playerId} AND kind <> 'bet'
        `
          assert.deepStrictEqual(
            notifications.map((row) => row.kind),
            ["rollback"]
          )

          yield* assertConserved(books, player, { balance: toAmount(answered.balance) }).pipe(
            Effect.provideService(SqlClient.SqlClient, sql)
          )
          const rows = yield* ledgerOf(player.playerId).pipe(Effect.provideService(SqlClient.SqlClient, sql))
          assert.deepStrictEqual(
            rows.map((row) => [row.txn_id, row.kind, row.status, row.note]),
            [
              ["crash-debit-1", "bet", "refused", "recovered"],
              ["crash-rollback-1", "rollback", "applied", "debit_refused"]
            ]
          )
          assert.strictEqual(BigInt(rows[1].amount), 0n, "the rollback moved nothing again")
        }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => books.reset()))),
      { timeout: 120_000 }
    )

    it.effect(
      "a credit whose instance is killed right after it is written: another instance delivers its win exactly once",
      () =>
        Effect.gen(function*() {
          const { ledger, player, sql, userCode } = yield* given("credit-crash-player", 50)
          // The first instance's delivery of the win reaches the partner and is never answered, as if cut off by the kill.
          books.hangNotifications = true
          const paid = credit(userCode, "crash-credit-1", 2_000, "crash-stake-1")
          const first = yield* ledger([debit(userCode, "crash-stake-1", 500), paid], {
            PARTNER_CALLBACK_TIMEOUT: "60 seconds",
            WALLET_PENDING_TIMEOUT: "120 seconds"
          })
          const [staked, credited] = yield* awaitOutcomes(first, 2)
          assert.deepStrictEqual(staked, { _tag: "Accepted", balance: 4_500n }, first.output.join("\n"))
          assert.deepStrictEqual(credited, { _tag: "Accepted", balance: 6_500n })
          const win = transactionEventId("win", "crash-credit-1", "sandbox")
          yield* eventually(
            Effect.sync(() => books.receivedFor(win).length),
            (n) => n === 1,
            "the win's first delivery"
          )
          yield* kill(first)
          books.hangNotifications = false
          const [written] = yield* sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${win}`
          assert.notStrictEqual(written.status, "delivered", "the win is in the outbox, not delivered")
          assert.strictEqual(books.balanceOf(player.external), 4_500n, "the partner has not been paid the win")

          // Another instance takes the dead one's delivery over once its lock is stale; the aggregator's retry replays.
          const second = yield* ledger([paid], {
            PARTNER_CALLBACK_STALE_LOCK: "2 seconds",
            PARTNER_CALLBACK_TIMEOUT: "10 seconds"
          })
          const [replayed] = yield* awaitOutcomes(second, 1)
          assert.deepStrictEqual(replayed, credited, "the credit's retry replays")
          yield* eventually(
            sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${win}`,
            (rows) => rows[0]?.status === "delivered",
            "the win delivered by the second instance"
          )
          assert.strictEqual(books.applied.filter((id) => id === win).length, 1, "the win paid once")
          assert.strictEqual(books.balanceOf(player.external), 5_000n - 500n + 2_000n, "start - stake + win")

          yield* assertConserved(books, player, { balance: toAmount(credited.balance) }).pipe(
            Effect.provideService(SqlClient.SqlClient, sql)
          )
          const rows = yield* ledgerOf(player.playerId).pipe(Effect.provideService(SqlClient.SqlClient, sql))
          assert.deepStrictEqual(
            rows.map((row) => [row.txn_id, row.kind, row.status, row.amount]),
            [["crash-stake-1", "bet", "applied", "-500"], ["crash-credit-1", "credit", "applied", "2000"]]
          )
        }).pipe(Effect.scoped, Effect.ensuring(Effect.sync(() => books.reset()))),
      { timeout: 120_000 }
    )
  }
)
