import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"
import { request } from "../support/TestApp.ts"
import {
  assertConserved,
  balance,
  givenPlayer,
  givenWalletPartner,
  givenWalletPlayer,
  ledgerOf,
  mirrorOf,
  refund,
  walletAnswer,
  WalletApp,
  walletCall,
  winBet
} from "../support/WalletApp.ts"

const books = new PartnerBooks()

// A slow partner here is one past the time-out (1 s; it answers in 1.5 s, and its timer starts after ours).
layer(WalletApp(books, { callbacks: { timeout: Duration.seconds(1) } }), live)("POST /aggregator/wallet", (it) => {
  describe("who may call", () => {
    it.effect("only the aggregator's agent code and secret get in; anything else is refused and logged", () =>
      Effect.gen(function*() {
        const { userCode } = yield* givenWalletPlayer(books, 50)
        const wrongSecret = yield* request("POST", "/aggregator/wallet", {
          json: { type: "Balance", user_code: userCode, agent_code: "sandbox", agent_secret: "guess" }
        })
        assert.strictEqual(wrongSecret.status, 401)
        assert.deepStrictEqual(wrongSecret.body, { msg: "INVALID_AGENT", balance: 0 })
        const noCredentials = yield* request("POST", "/aggregator/wallet", {
          json: { type: "Balance", user_code: userCode }
        })
        assert.strictEqual(noCredentials.status, 401)
        const notJson = yield* request("POST", "/aggregator/wallet", {
          body: "type=Balance",
          headers: { "content-type": "text/plain" }
        })
        assert.strictEqual(notJson.status, 400)
        assert.strictEqual(walletAnswer(notJson).msg, "INVALID_REQUEST")
        const unknownType = yield* walletCall({ type: "Withdraw", user_code: userCode })
        assert.strictEqual(unknownType.status, 400)
        const noSlot = yield* walletCall({ type: "WinBet", user_code: userCode })
        assert.strictEqual(noSlot.status, 400)
        const badAmount = yield* winBet(userCode, "bad-amount", { bet: -1, win: 0 })
        assert.strictEqual(badAmount.status, 400)
        // Nothing reached the partner.
        assert.strictEqual(books.received.filter((callback) => callback.body?.player?.user_code === userCode).length, 0)
      }))
  })

  describe("Balance", () => {
    it.effect("asks the partner and mirrors its answer; an unknown user code is INVALID_USER", () =>
      Effect.gen(function*() {
        const { external, playerId, userCode } = yield* givenWalletPlayer(books, 120.5)
        const first = yield* balance(userCode)
        assert.deepStrictEqual(first.body, { msg: "", balance: 120.5 })
        books.balances.set(external, 9_999n)
        const second = yield* balance(userCode)
        assert.deepStrictEqual(second.body, { msg: "", balance: 99.99 })
        assert.strictEqual(yield* mirrorOf(playerId), 9_999n)
        const asked = books.received.filter((callback) => callback.body?.player?.external_player_id === external)
        assert.isTrue(asked.every((callback) => callback.verified && callback.kind === "balance"))
        const unknown = yield* balance(987_654_321)
        assert.deepStrictEqual(unknown.body, { msg: "INVALID_USER", balance: 0 })
      }))

    it.effect("answers the last confirmed balance while the partner is away", () =>
      Effect.gen(function*() {
        const { userCode } = yield* givenWalletPlayer(books, 30)
        books.behaviour = "down"
        const answer = yield* balance(userCode).pipe(Effect.ensuring(Effect.sync(() => (books.behaviour = "fine"))))
        assert.deepStrictEqual(answer.body, { msg: "", balance: 30 })
      }))
  })

  describe("WinBet", () => {
    it.effect("the partner takes the stake, the win follows as a notification, the mirror follows the ledger", () =>
      Effect.gen(function*() {
        const player = yield* givenWalletPlayer(books, 100)
        const { external, playerId, userCode } = player
        const answer = yield* winBet(userCode, "wb-1", { bet: 10, win: 25.5 })
        assert.strictEqual(answer.status, 200)
        assert.deepStrictEqual(answer.body, { msg: "", balance: 115.5 })
        assert.strictEqual(yield* mirrorOf(playerId), 11_550n)
        const [entry] = yield* ledgerOf(playerId)
        assert.deepInclude(entry, { txn_id: "wb-1", kind: "bet", status: "applied", refusal: null })
        assert.strictEqual(BigInt(entry.amount), 1_550n)

        // The bet was asked at once, signed; the win arrives through the outbox.
        const bet = books.receivedFor(transactionEventId("bet", "wb-1"))
        assert.strictEqual(bet.length, 1)
        assert.isTrue(bet[0].verified)
        assert.deepInclude(bet[0].body, { kind: "bet", amount: 10, transaction_id: "wb-1", round_id: "wb-1" })
        assert.deepStrictEqual(bet[0].body.player, { external_player_id: external, user_code: userCode })
        assert.deepStrictEqual(bet[0].body.game, { code: "ag-hidden-fortune", provider: "aurora-gaming" })
        yield* eventually(
          Effect.sync(() => books.balanceOf(external)),
          (cents) => cents === 11_550n,
          "the win at the partner"
        )
        const win = books.receivedFor(transactionEventId("win", "wb-1"))
        assert.deepInclude(win[0].body, { kind: "win", amount: 25.5, balance: 115.5 })
        yield* assertConserved(books, player, answer.body)
      }))

    it.effect("a repeated transaction, even 50 copies at once, moves nothing twice and gets the first answer", () =>
      Effect.gen(function*() {
        const player = yield* givenWalletPlayer(books, 100)
        const { external, playerId, userCode } = player
        const first = yield* winBet(userCode, "dup-1", { bet: 5, win: 0 })
        const again = yield* winBet(userCode, "dup-1", { bet: 5, win: 0 })
        assert.deepStrictEqual(again.body, first.body)

        const storm = yield* Effect.all(
          Array.from({ length: 50 }, () => winBet(userCode, "dup-2", { bet: 7, win: 3 })),
          { concurrency: "unbounded" }
        )
        for (const answer of storm) {
          assert.strictEqual(answer.status, 200)
          assert.deepStrictEqual(answer.body, { msg: "", balance: 91 })
        }
        assert.strictEqual(books.receivedFor(transactionEventId("bet", "dup-2")).length, 1)
        assert.deepStrictEqual((yield* ledgerOf(playerId)).map((entry) => entry.txn_id), ["dup-1", "dup-2"])
        yield* eventually(
          Effect.sync(() => books.balanceOf(external)),
          (cents) => cents === 9_100n,
          "one win of 3 at the partner"
        )
        assert.strictEqual(books.applied.filter((id) => id === transactionEventId("win", "dup-2")).length, 1)
        yield* assertConserved(books, player, storm[0].body)
      }))

    it.effect("a free round (no stake) asks nothing and credits the win", () =>
      Effect.gen(function*() {
        const player = yield* givenWalletPlayer(books, 10)
        const answer = yield* winBet(player.userCode, "free-1", { bet: 0, win: 4 })
        assert.deepStrictEqual(answer.body, { msg: "", balance: 14 })
        assert.strictEqual(books.receivedFor(transactionEventId("bet", "free-1")).length, 0)
        yield* eventually(
          Effect.sync(() => books.balanceOf(player.external)),
          (cents) => cents === 1_400n,
          "the free win"
        )
        yield* assertConserved(books, player, answer.body)
      }))

    it.effect("the partner's refusals: insufficient funds and an unknown player, in the aggregator's terms", () =>
      Effect.gen(function*() {
        const player = yield* givenWalletPlayer(books, 5)
        const { external, playerId, userCode } = player
        const tooMuch = yield* winBet(userCode, "poor-1", { bet: 10, win: 0 })
        assert.deepStrictEqual(tooMuch.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 5 })
        books.behaviour = "unknown-player"
        const unknown = yield* winBet(userCode, "poor-2", { bet: 1, win: 0 }).pipe(
          Effect.ensuring(Effect.sync(() => (books.behaviour = "fine")))
        )
        assert.deepStrictEqual(unknown.body, { msg: "INVALID_USER", balance: 0 })
        assert.deepStrictEqual(
          (yield* ledgerOf(playerId)).map((entry) => [entry.status, entry.refusal]),
          [["refused", "INSUFFICIENT_USER_FUNDS"], ["refused", "INVALID_USER"]]
        )
        assert.strictEqual(books.balanceOf(external), 500n)
        // A refusal is an answer: no rollback follows. The ledger wrote its decision before it answered, with every
        // notification the decision makes: none is a rollback, so none can reach the partner later.
        const rollback = transactionEventId("rollback", "poor-1")
        const sql = yield* SqlClient.SqlClient
        const written = yield* sql<{ readonly count: number }>`
          SELECT count(*)::int AS count FROM partner_callbacks WHERE event_id = ${rollback}
        `.pipe(Effect.orDie)
        assert.deepStrictEqual(written, [{ count: 0 }])
        assert.strictEqual(books.receivedFor(rollback).length, 0)
        // And the same transaction gets the same refusal.
        assert.deepStrictEqual((yield* winBet(userCode, "poor-1", { bet: 10, win: 0 })).body, tooMuch.body)
        yield* assertConserved(books, player, tooMuch.body)
      }))

    // huge: the partner takes the stake but answers more than 64 KiB, which is read no further and is no answer.
    for (const behaviour of ["slow", "down", "garbage", "huge"] as const) {
      it.effect(`a partner that is ${behaviour} gets the bet refused and rolled back: no money half-moved`, () =>
        Effect.gen(function*() {
          const player = yield* givenWalletPlayer(books, 40)
          const { external, playerId, userCode } = player
          books.behaviour = behaviour
          const answer = yield* winBet(userCode, `${behaviour}-1`, { bet: 15, win: 30 }).pipe(
            Effect.ensuring(Effect.sync(() => (books.behaviour = "fine")))
          )
          assert.deepStrictEqual(answer.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 40 })
          assert.strictEqual(yield* mirrorOf(playerId), 4_000n)
          const rollback = transactionEventId("rollback", `${behaviour}-1`)
          yield* eventually(Effect.sync(() => books.receivedFor(rollback).length), (n) => n >= 1, "the rollback")
          // Whether or not the partner took the stake (the slow one did), it has it back, and no win was paid.
          assert.strictEqual(books.balanceOf(external), 4_000n)
          assert.strictEqual(books.receivedFor(transactionEventId("win", `${behaviour}-1`)).length, 0)
          if (behaviour === "huge") {
            const sql = yield* SqlClient.SqlClient
            const [bet] = yield* sql<{ last_error: string }>`
              SELECT last_error FROM partner_callbacks WHERE event_id = ${transactionEventId("bet", `${behaviour}-1`)}
            `.pipe(Effect.orDie)
            assert.strictEqual(bet.last_error, "The partner answered HTTP 200 with an answer larger than 64 KiB.")
          }
          yield* assertConserved(books, player, answer.body)
        }))
    }

    it.effect("a partner that cannot check our signature (another secret) gets the bet refused", () =>
      Effect.gen(function*() {
        const { external, userCode } = yield* givenWalletPlayer(books, 40)
        const secrets = [...books.secrets]
        books.secrets.clear()
        books.secrets.add("whsec_not_the_one")
        const answer = yield* winBet(userCode, "wrong-secret-1", { bet: 15, win: 0 }).pipe(
          Effect.ensuring(Effect.sync(() => {
            books.secrets.clear()
            for (const secret of secrets) books.secrets.add(secret)
          }))
        )
        assert.deepStrictEqual(answer.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 40 })
        assert.isFalse(books.receivedFor(transactionEventId("bet", "wrong-secret-1"))[0].verified)
        assert.strictEqual(books.balanceOf(external), 4_000n)
      }))

    it.effect("a partner without a callback_url cannot take bets: INVALID_USER", () =>
      Effect.gen(function*() {
        const { partner } = yield* givenWalletPartner(books, { callbackUrl: null })
        const player = yield* givenPlayer(books, partner.id, `no-url-${partner.id}`, 20)
        const answer = yield* winBet(player.internalUserId, "no-url-1", { bet: 1, win: 0 })
        assert.deepStrictEqual(answer.body, { msg: "INVALID_USER", balance: 0 })
      }))
  })

  describe("Refund", () => {
    it.effect("undoes its round once; another refund of it moves nothing; a round never seen is a tombstone", () =>
      Effect.gen(function*() {
        const player = yield* givenWalletPlayer(books, 100)
        const { external, playerId, userCode } = player
        yield* winBet(userCode, "r-bet-1", { bet: 10, win: 0 }, "round-1")
        const refunded = yield* refund(userCode, "r-refund-1", "round-1")
        assert.deepStrictEqual(refunded.body, { msg: "", balance: 100 })
        const repeated = yield* refund(userCode, "r-refund-1", "round-1")
        assert.deepStrictEqual(repeated.body, refunded.body)
        const another = yield* refund(userCode, "r-refund-2", "round-1")
        assert.deepStrictEqual(another.body, { msg: "", balance: 100 })
        // Refunded before any bet: answered as done (nothing moves), and the round's bet is refused if it comes.
        const early = yield* refund(userCode, "r-refund-3", "round-never")
        assert.deepStrictEqual(early.body, { msg: "", balance: 100 })
        const late = yield* winBet(userCode, "r-bet-late", { bet: 3, win: 0 }, "round-never")
        assert.deepStrictEqual(late.body, { msg: "ROUND_REFUNDED", balance: 100 })
        assert.strictEqual(
          books.receivedFor(transactionEventId("bet", "r-bet-late")).length,
          0,
          "the partner was not asked"
        )

        assert.deepStrictEqual(
          (yield* ledgerOf(playerId)).map((entry) => [entry.txn_id, entry.status, entry.note, BigInt(entry.amount)]),
          [
            ["r-bet-1", "applied", null, -1_000n],
            ["r-refund-1", "applied", null, 1_000n],
            ["r-refund-2", "applied", "already_refunded", 0n],
            ["r-refund-3", "applied", "early_refund", 0n],
            ["r-bet-late", "refused", null, 0n]
          ]
        )
        yield* eventually(
          Effect.sync(() => books.balanceOf(external)),
          (cents) => cents === 10_000n,
          "the refund at the partner"
        )
        const notice = books.receivedFor(transactionEventId("refund", "r-refund-1"))[0].body
        assert.deepInclude(notice, { kind: "refund", amount: 10, bet: 10, win: 0, round_id: "round-1" })
        assert.strictEqual(books.receivedFor(transactionEventId("refund", "r-refund-2")).length, 0)
        yield* assertConserved(books, player, late.body)
      }))

    it.effect("two refunds of one round at once: exactly one is applied", () =>
      Effect.gen(function*() {
        const player = yield* givenWalletPlayer(books, 50)
        const { external, playerId, userCode } = player
        yield* winBet(userCode, "rr-bet", { bet: 20, win: 5 }, "round-2")
        const answers = yield* Effect.all([
          refund(userCode, "rr-a", "round-2"),
          refund(userCode, "rr-b", "round-2"),
          refund(userCode, "rr-a", "round-2")
        ], { concurrency: "unbounded" })
        for (const answer of answers) assert.deepStrictEqual(answer.body, { msg: "", balance: 50 })
        const refunds = (yield* ledgerOf(playerId)).filter((entry) => entry.kind === "refund")
        assert.sameMembers(refunds.map((entry) => entry.note), [null, "already_refunded"])
        yield* eventually(Effect.sync(() => books.balanceOf(external)), (cents) =>
          cents === 5_000n, "stake back, win taken back")
        yield* assertConserved(books, player, answers[0].body)
      }))
  })
})
