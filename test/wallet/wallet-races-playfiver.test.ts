/**
 * The wallet's races under PlayFiver's key, not only the sandbox's: with CASINO_GATEWAY=playfiver the live agent is
 * PlayFiver's, its calls come on its own path (/aggregator/playfiver/wallet) and on the path of before, and every
 * ledger row carries `playfiver`. Copies of one bet at once, a refund overtaking its pending bet, and the two paths
 * at once: each ends with the partner holding what the aggregator was last told.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"
import { AnotherInstance, request } from "../support/TestApp.ts"
import {
  assertConserved,
  balance,
  givenWalletPlayer,
  ledgerOf,
  refund,
  WalletApp,
  winBet
} from "../support/WalletApp.ts"

const books = new PartnerBooks()
const restore = Effect.sync(() => {
  books.behaviour = "fine"
  books.failNotifications = 0
})

const settings = {
  casino: { gateways: ["playfiver"] as const },
  callbacks: {
    walletAgentCode: Option.some("pf-agent"),
    walletAgentSecret: Option.some(Redacted.make("pf-secret-0123456789"))
  }
}

/** A WinBet of PlayFiver's agent on `path`. */
const winBetAt = (path: string, userCode: number, txnId: string, bet: number) =>
  request("POST", path, {
    json: {
      agent_code: "pf-agent",
      agent_secret: "pf-secret-0123456789",
      type: "WinBet",
      user_code: userCode,
      slot: { bet, win: 0, txn_id: txnId, round_id: txnId, game_code: "g", provider_code: "p" }
    }
  })

const aggregatorsOf = (playerId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ aggregator: string }>`SELECT aggregator FROM wallet_transactions WHERE player_id = ${playerId}`
  ).pipe(Effect.orDie, Effect.map((rows) => [...new Set(rows.map((row) => row.aggregator))]))

layer(WalletApp(books, settings), live)("the wallet under races, PlayFiver's key", (it) => {
  it.effect("copies of one bet at once, on both paths, while the partner is slow: one ask, one answer", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 50)
      books.behaviour = "slow"
      books.delayMillis = 300
      const answers = yield* Effect.all(
        Array.from(
          { length: 20 },
          (_, i) =>
            winBetAt(
              i % 2 === 0 ? "/aggregator/playfiver/wallet" : "/aggregator/wallet",
              player.userCode,
              "pf-copies-1",
              5
            )
        ),
        { concurrency: "unbounded" }
      )
      yield* restore
      for (const answer of answers) assert.deepStrictEqual(answer.body, { msg: "", balance: 45 })
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "pf-copies-1", "playfiver")).length, 1)
      assert.deepStrictEqual(yield* aggregatorsOf(player.playerId), ["playfiver"])
      yield* assertConserved(books, player, answers[0].body)
    }).pipe(Effect.ensuring(restore)))

  it.effect("a refund that arrives while its bet waits for the partner waits, then undoes it", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      books.behaviour = "slow"
      books.delayMillis = 600
      const bet = yield* Effect.forkChild(winBet(player.userCode, "pf-bet-1", { bet: 10, win: 4 }, "pf-round-1"))
      yield* eventually(
        Effect.sync(() => books.receivedFor(transactionEventId("bet", "pf-bet-1", "playfiver")).length),
        (n) => n === 1
      )
      const refunded = yield* refund(player.userCode, "pf-refund-1", "pf-round-1")
      const betAnswer = yield* Fiber.join(bet)
      yield* restore
      assert.deepStrictEqual(betAnswer.body, { msg: "", balance: 94 })
      assert.deepStrictEqual(refunded.body, { msg: "", balance: 100 })
      assert.deepStrictEqual((yield* ledgerOf(player.playerId)).map((row) => [row.txn_id, row.status]), [
        ["pf-bet-1", "applied"],
        ["pf-refund-1", "applied"]
      ])
      assert.deepStrictEqual(yield* aggregatorsOf(player.playerId), ["playfiver"])
      yield* assertConserved(books, player, refunded.body)
    }).pipe(Effect.ensuring(restore)))

  it.effect("a WinBet at another instance while a refund's notification waits for its retry: delivered first, so told", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      const other = yield* Layer.build(AnotherInstance())
      yield* winBet(player.userCode, "pf-late-1", { bet: 10, win: 0 }, "pf-late-round-1")
      books.failNotifications = 1
      const refunded = yield* refund(player.userCode, "pf-late-refund-1", "pf-late-round-1")
      assert.deepStrictEqual(refunded.body, { msg: "", balance: 100 })
      yield* eventually(Effect.sync(() => books.failNotifications), (left) => left === 0, "the refund's failed attempt")
      // The partner has not applied the refund yet; the other instance's stake delivers it before asking.
      const next = yield* winBet(player.userCode, "pf-late-2", { bet: 5, win: 0 }, "pf-late-round-2").pipe(
        Effect.provide(other)
      )
      assert.deepStrictEqual(next.body, { msg: "", balance: 95 })
      const told = yield* balance(player.userCode)
      assert.deepStrictEqual(told.body, { msg: "", balance: 95 })
      yield* assertConserved(books, player, told.body)
    }).pipe(Effect.ensuring(restore)))
})
