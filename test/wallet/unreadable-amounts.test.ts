/**
 * An aggregator's amount finer than the player's currency allows (issue 33), end to end over real HTTP and
 * PostgreSQL: the call is a 400 with nothing moved and the partner never asked, and it is a stuck item (kind
 * `amount`) until the aggregator resends the same transaction id readable, which moves money once; a repeat records
 * nothing more, a stranger's call nothing at all, and an item older than 7 days is no longer current.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { StuckItems } from "../../src/wallet/stuck/StuckItems.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { live } from "../support/live.ts"
import {
  assertConserved,
  givenWalletPartner,
  givenWalletPlayer,
  ledgerOf,
  walletAnswer,
  WalletApp,
  walletCallText
} from "../support/WalletApp.ts"

const books = new PartnerBooks()

const winBetText = (userCode: number, txnId: string, roundId: string, bet: string, win: string) =>
  `"type": "WinBet", "user_code": ${userCode}, "slot": {"txn_id": "${txnId}", "round_id": "${roundId}", ` +
  `"bet": ${bet}, "win": ${win}, "game_code": "ag-hidden-fortune", "provider_code": "aurora-gaming"}`

const amountItems = (txnId: string) =>
  Effect.map(
    Effect.flatMap(Effect.service(StuckItems), (stuck) => stuck.current(1000)),
    (current) => current.items.filter((item) => item.kind === "amount" && item.subject === txnId)
  )

const unreadableRows = (txnId: string) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) =>
      sql<{ field: string; amount: string; currency: string; round_id: string }>`
        SELECT field, amount, currency, round_id FROM wallet_unreadable_calls WHERE txn_id = ${txnId}`
  ).pipe(Effect.orDie)

layer(WalletApp(books), live)("an aggregator's amount finer than the player's currency", (it) => {
  it.effect("is a 400 that moves nothing and asks the partner nothing, and a stuck item until resent readable, which moves money once", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      const txnId = `fine-${player.playerId}`
      const roundId = `round-${player.playerId}`
      for (const attempt of [1, 2]) {
        const refused = yield* walletCallText(winBetText(player.userCode, txnId, roundId, "0.001", "0"))
        assert.strictEqual(refused.status, 400, `attempt ${attempt}`)
        assert.strictEqual(walletAnswer(refused).msg, "INVALID_REQUEST")
      }
      assert.isEmpty(yield* ledgerOf(player.playerId), "nothing in wallet_transactions")
      assert.isEmpty(books.receivedFor(transactionEventId("bet", txnId)), "the partner was never asked")
      assert.strictEqual(books.balanceOf(player.external), 10_000n)
      assert.deepStrictEqual(yield* unreadableRows(txnId), [
        { field: "slot.bet", amount: "0.001", currency: "BRL", round_id: roundId }
      ], "recorded once, as sent: a repeat adds nothing")

      const [item, ...more] = yield* amountItems(txnId)
      assert.isEmpty(more)
      assert.deepStrictEqual(
        [item.partnerId, item.environment, item.transactionId, item.externalPlayerId],
        [player.partner.id, "live", txnId, player.external]
      )
      assert.strictEqual(
        item.detail,
        `Bet ${txnId} of round ${roundId}: slot.bet 0.001 is finer than BRL's minor unit (2 decimals); nothing moved. ` +
          "The aggregator must resend it in BRL's units."
      )

      // The console's API lists it too.
      const view = yield* (yield* StuckItems).view
      assert.isTrue(view.items.some(({ item }) => item.kind === "amount" && item.subject === txnId))

      const resent = yield* walletCallText(winBetText(player.userCode, txnId, roundId, "0.01", "0"))
      assert.deepStrictEqual(resent.body, { msg: "", balance: 99.99 })
      const again = yield* walletCallText(winBetText(player.userCode, txnId, roundId, "0.01", "0"))
      assert.deepStrictEqual(again.body, resent.body, "a repeat replays, moving nothing")
      assert.deepStrictEqual((yield* ledgerOf(player.playerId)).map((row) => [row.txn_id, row.amount]), [
        [txnId, "-1"]
      ])
      assert.strictEqual(books.receivedFor(transactionEventId("bet", txnId)).length, 1, "the partner asked once")
      yield* assertConserved(books, player, resent.body)
      assert.isEmpty(yield* amountItems(txnId), "no longer current")
    }))

  it.effect("is read in the player's own currency: 10.5 is finer than JPY's minor unit", () =>
    Effect.gen(function*() {
      const created = yield* givenWalletPartner(books)
      const external = `jpy-${created.partner.id}`
      const player = yield* (yield* PartnerPlayers).arrive({
        partnerId: created.partner.id,
        environment: "live",
        externalPlayerId: external,
        currency: "JPY",
        name: null,
        email: null,
        balance: 1000n
      })
      books.balances.set(external, 1000n)
      const txnId = `jpy-${player.id}`
      const refused = yield* walletCallText(winBetText(player.internalUserId, txnId, txnId, "10.5", "0"))
      assert.strictEqual(refused.status, 400)
      const [item] = yield* amountItems(txnId)
      assert.include(item.detail, "slot.bet 10.5 is finer than JPY's minor unit (0 decimals)")
      assert.isEmpty(yield* ledgerOf(player.id))
    }))

  it.effect("a stranger's call records nothing, and an item received more than 7 days ago is no longer current", () =>
    Effect.gen(function*() {
      const stranger = yield* walletCallText(winBetText(987_654_321, "stranger-1", "stranger-1", "0.001", "0"))
      assert.strictEqual(stranger.status, 400)
      assert.isEmpty(yield* unreadableRows("stranger-1"))

      const player = yield* givenWalletPlayer(books, 100)
      const txnId = `old-${player.playerId}`
      yield* walletCallText(winBetText(player.userCode, txnId, txnId, "1", "0.005"))
      const [item] = yield* amountItems(txnId)
      assert.include(item.detail, "slot.win 0.005")
      const sql = yield* SqlClient.SqlClient
      yield* Effect.orDie(
        sql`UPDATE wallet_unreadable_calls SET received_at = now() - interval '7 days 1 minute' WHERE txn_id = ${txnId}`
      )
      assert.isEmpty(yield* amountItems(txnId), "bounded: given up after 7 days")
    }))
})
