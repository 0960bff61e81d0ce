/**
 * Exact ids and amounts, and one transaction id per payload: what the
 * aggregator sends is read as written (numbers beyond 2^53 keep every
 * digit, amounts every decimal), and an id used again with another payload
 * is refused without moving anything.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { makeLogCapture } from "../support/LogCapture.ts"
import { eventually, live } from "../support/live.ts"
import {
  assertConserved,
  givenWalletPlayer,
  ledgerOf,
  refund,
  walletAnswer,
  WalletApp,
  walletCall,
  walletCallText,
  winBet
} from "../support/WalletApp.ts"

const books = new PartnerBooks()
const logs = makeLogCapture()

const betText = (userCode: number, txnId: string, roundId: string, bet: string, win: string) =>
  `"type": "WinBet", "user_code": ${userCode}, "slot": {"txn_id": ${txnId}, "round_id": ${roundId}, ` +
  `"bet": ${bet}, "win": ${win}, "game_code": "ag-hidden-fortune", "provider_code": "aurora-gaming"}`

layer(WalletApp(books).pipe(Layer.provide(logs.layer)), live)("exact wallet calls", (it) => {
  it.effect("ids sent as numbers beyond 2^53 keep every digit: two bets stay two", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      const first = yield* walletCallText(
        betText(player.userCode, "1790000000000000001", "1790000000000000001", "5", "2")
      )
      yield* eventually(
        Effect.sync(() => books.applied.includes(transactionEventId("win", "1790000000000000001"))),
        (done) => done,
        "the first win at the partner"
      )
      const second = yield* walletCallText(
        betText(player.userCode, "1790000000000000002", "1790000000000000002", "5", "3")
      )
      assert.deepStrictEqual(first.body, { msg: "", balance: 97 })
      assert.deepStrictEqual(second.body, { msg: "", balance: 95 })
      const ledger = yield* ledgerOf(player.playerId)
      assert.deepStrictEqual(ledger.map((row) => row.txn_id), ["1790000000000000001", "1790000000000000002"])
      const bets = books.received.filter((callback) =>
        callback.kind === "bet" && callback.body.player.user_code === player.userCode
      )
      assert.deepStrictEqual(bets.map((callback) => callback.body.transaction_id), [
        "1790000000000000001",
        "1790000000000000002"
      ])
      yield* assertConserved(books, player, second.body)
      const wins = books.received.filter((callback) =>
        callback.kind === "win" && callback.body.player.user_code === player.userCode
      )
      assert.deepStrictEqual(wins.map((callback) => callback.body.transaction_id).sort(), [
        "1790000000000000001",
        "1790000000000000002"
      ])
    }))

  it.effect("an id written as a number with a fraction or an exponent is refused, not rounded", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      for (const id of ["17.5", "1.79e18", "-0.0"]) {
        const answer = yield* walletCallText(betText(player.userCode, id, "\"r\"", "1", "0"))
        assert.strictEqual(answer.status, 400, id)
        assert.strictEqual(walletAnswer(answer).msg, "INVALID_REQUEST")
      }
      assert.strictEqual((yield* ledgerOf(player.playerId)).length, 0)
    }))

  it.effect("one id with another payload is refused (DUPLICATE_TRANSACTION), logged, and moves nothing", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      const stranger = yield* givenWalletPlayer(books, 500)
      const original = yield* winBet(player.userCode, "reused-1", { bet: 10, win: 0 }, "round-a")
      assert.deepStrictEqual(original.body, { msg: "", balance: 90 })
      const variants = [
        winBet(player.userCode, "reused-1", { bet: 11, win: 0 }, "round-a"),
        winBet(player.userCode, "reused-1", { bet: 10, win: 1 }, "round-a"),
        winBet(player.userCode, "reused-1", { bet: 10, win: 0 }, "round-b"),
        walletCall({
          type: "WinBet",
          user_code: player.userCode,
          slot: { txn_id: "reused-1", round_id: "round-a", bet: 10, win: 0, game_code: "other-game" }
        })
      ]
      for (const variant of variants) {
        assert.deepStrictEqual((yield* variant).body, { msg: "DUPLICATE_TRANSACTION", balance: 90 })
      }
      // Another player with the same id gets a refusal with their own balance, never the first player's answer.
      const theirs = yield* winBet(stranger.userCode, "reused-1", { bet: 10, win: 0 }, "round-a")
      assert.deepStrictEqual(theirs.body, { msg: "DUPLICATE_TRANSACTION", balance: 500 })
      // The exact repeat still replays.
      assert.deepStrictEqual(
        (yield* winBet(player.userCode, "reused-1", { bet: 10, win: 0 }, "round-a")).body,
        original.body
      )
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "reused-1")).length, 1)
      assert.strictEqual((yield* ledgerOf(player.playerId)).length, 1)
      assert.strictEqual((yield* ledgerOf(stranger.playerId)).length, 0)
      assert.isTrue(
        logs.entries.some((entry) =>
          entry.level === "WARN" && String(entry.message).includes("used before with another payload")
        )
      )
      yield* assertConserved(books, player, original.body)
      yield* assertConserved(books, stranger, theirs.body)
    }))

  it.effect("a Refund carrying its bet's id is a refund: the round is undone, not the bet's answer replayed", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      const bet = yield* winBet(player.userCode, "same-id-1", { bet: 25, win: 10 }, "same-round-1")
      assert.deepStrictEqual(bet.body, { msg: "", balance: 85 })
      const refunded = yield* refund(player.userCode, "same-id-1", "same-round-1")
      assert.deepStrictEqual(refunded.body, { msg: "", balance: 100 })
      assert.deepStrictEqual(
        (yield* ledgerOf(player.playerId)).map((row) => [row.kind, row.txn_id, BigInt(row.amount)]),
        [
          ["bet", "same-id-1", -1500n],
          ["refund", "same-id-1", 1500n]
        ]
      )
      yield* assertConserved(books, player, refunded.body)
    }))

  it.effect("amounts are strict decimals: \"\", hex, exponents, spaces, 3 places, negatives are INVALID_REQUEST", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      const refusedAmounts = [
        "\"\"",
        "\"0x10\"",
        "\"1e2\"",
        "1e2",
        "\" 5\"",
        "\"5 \"",
        "5.001",
        "\"5.001\"",
        "-1",
        "\"-1\"",
        "null",
        "true",
        "\"05\""
      ]
      for (const [i, bet] of refusedAmounts.entries()) {
        const answer = yield* walletCallText(betText(player.userCode, `"strict-${i}"`, `"strict-${i}"`, bet, "0"))
        assert.strictEqual(answer.status, 400, bet)
        assert.deepStrictEqual(answer.body, { msg: "INVALID_REQUEST", balance: 0 }, bet)
      }
      const missing = yield* walletCall({
        type: "WinBet",
        user_code: player.userCode,
        slot: { txn_id: "no-bet", win: 3 }
      })
      assert.strictEqual(missing.status, 400, "a bet without a stake is not a free round")
      assert.strictEqual((yield* ledgerOf(player.playerId)).length, 0)
      assert.isFalse(books.received.some((callback) => callback.body?.player?.user_code === player.userCode))

      // A decimal string and a number with two places are exact.
      const asText = yield* walletCallText(
        betText(player.userCode, "\"exact-1\"", "\"exact-1\"", "\"10.50\"", "\"0.25\"")
      )
      assert.deepStrictEqual(asText.body, { msg: "", balance: 89.75 })
      // The partner answers the next stake from its own books: let the win of this one reach them first.
      yield* eventually(
        Effect.sync(() => books.applied.includes(transactionEventId("win", "exact-1"))),
        (done) => done,
        "the win"
      )
      const asNumber = yield* walletCallText(betText(player.userCode, "\"exact-2\"", "\"exact-2\"", "0.10", "0.20"))
      assert.deepStrictEqual(asNumber.body, { msg: "", balance: 89.85 })
      yield* assertConserved(books, player, asNumber.body)
    }))
})
