/**
 * The wallet under races and crashes, driven as an aggregator and a
 * partner's wallet would drive it, over real HTTP and PostgreSQL. After
 * every scenario: conservation (the partner holds what it started with plus
 * the ledger's applied changes, which is what the aggregator was last told).
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"
import { AnotherInstance } from "../support/TestApp.ts"
import { assertConserved, givenWalletPlayer, ledgerOf, refund, WalletApp, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()

const restore = Effect.sync(() => {
  books.behaviour = "fine"
  books.delayMillis = 1_500
})

/**
 * Here a partner's answer, slow on purpose or not, comes long before the time-out (the tests' default); below, the
 * time-out is 2 s and a bet pending 3.5 s was abandoned, for a partner past it and for bets left pending.
 */
const pastTimeOut = { callbacks: { timeout: Duration.seconds(2), pendingTimeout: Duration.millis(3_500) } }

layer(WalletApp(books), live)("the wallet under races", (it) => {
  it.effect("a refund that arrives while its bet waits for the partner waits, then undoes it; its retries replay", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      books.behaviour = "slow"
      books.delayMillis = 600
      const bet = yield* Effect.forkChild(winBet(player.userCode, "race-bet-1", { bet: 10, win: 4 }, "race-round-1"))
      yield* eventually(
        Effect.sync(() => books.receivedFor(transactionEventId("bet", "race-bet-1")).length),
        (n) => n === 1
      )
      // The aggregator's own time-out: it refunds the round while the partner still works on the bet.
      const refunded = yield* refund(player.userCode, "race-refund-1", "race-round-1")
      const betAnswer = yield* Fiber.join(bet)
      yield* restore
      assert.deepStrictEqual(betAnswer.body, { msg: "", balance: 94 }, "the bet was applied...")
      assert.deepStrictEqual(
        refunded.body,
        { msg: "", balance: 100 },
        "...and then undone, not answered ROUND_NOT_FOUND"
      )
      for (let i = 0; i < 2; i++) {
        assert.deepStrictEqual((yield* refund(player.userCode, "race-refund-1", "race-round-1")).body, refunded.body)
      }
      const ledger = yield* ledgerOf(player.playerId)
      assert.deepStrictEqual(ledger.map((row) => [row.txn_id, row.status, BigInt(row.amount)]), [
        ["race-bet-1", "applied", -600n],
        ["race-refund-1", "applied", 600n]
      ])
      yield* assertConserved(books, player, refunded.body)
    }).pipe(Effect.ensuring(restore)))

  it.effect("copies of a bet sent while the partner is slow wait for the one call: one ask, one answer", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 50)
      books.behaviour = "slow"
      books.delayMillis = 500
      const answers = yield* Effect.all(
        Array.from({ length: 20 }, () => winBet(player.userCode, "slow-copies-1", { bet: 5, win: 0 })),
        { concurrency: "unbounded" }
      )
      yield* restore
      for (const answer of answers) assert.deepStrictEqual(answer.body, { msg: "", balance: 45 })
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "slow-copies-1")).length, 1)
      yield* assertConserved(books, player, answers[0].body)
    }).pipe(Effect.ensuring(restore)))

  it.effect("two instances: the bet at one, its refund at the other, the repeat at either", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 80)
      const other = yield* Layer.build(AnotherInstance())
      books.behaviour = "slow"
      books.delayMillis = 600
      const bet = yield* Effect.forkChild(winBet(player.userCode, "two-bet-1", { bet: 20, win: 0 }, "two-round-1"))
      yield* eventually(
        Effect.sync(() => books.receivedFor(transactionEventId("bet", "two-bet-1")).length),
        (n) => n === 1
      )
      const [refunded, repeated] = yield* Effect.all([
        refund(player.userCode, "two-refund-1", "two-round-1"),
        winBet(player.userCode, "two-bet-1", { bet: 20, win: 0 }, "two-round-1")
      ], { concurrency: "unbounded" }).pipe(Effect.provide(other))
      const betAnswer = yield* Fiber.join(bet)
      yield* restore
      assert.deepStrictEqual(betAnswer.body, { msg: "", balance: 60 })
      assert.deepStrictEqual(repeated.body, betAnswer.body, "the repeat at the other instance replays the bet")
      assert.deepStrictEqual(refunded.body, { msg: "", balance: 80 })
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "two-bet-1")).length, 1)
      yield* assertConserved(books, player, refunded.body)
    }).pipe(Effect.scoped, Effect.ensuring(restore)))
})

/**
 * A crash between the partner's answer and the settle, injected as a layer:
 * the wallet's repository, whose settle dies for `crash-` bets the first
 * time, as a process killed there would leave it.
 */
const crashing = new Set<string>()
const CrashingWalletRepo = Layer.effect(
  WalletRepo,
  Effect.gen(function*() {
    const repo = yield* WalletRepo
    return WalletRepo.of({
      ...repo,
      settleBet: (bet, outcome, callbacks, options) =>
        bet.txnId.startsWith("crash-") && !crashing.has(bet.txnId)
          ? Effect.sync(() => crashing.add(bet.txnId)).pipe(Effect.andThen(Effect.die("the instance stopped here")))
          : repo.settleBet(bet, outcome, callbacks, options)
    })
  })
).pipe(Layer.provide(WalletRepo.layerSql))

describe("a partner past the time-out", () => {
  const lateBooks = new PartnerBooks()
  const lateRestore = Effect.sync(() => (lateBooks.behaviour = "fine"))
  layer(WalletApp(lateBooks, pastTimeOut), live)("(a 2 s time-out)", (it) => {
    it.effect("a rollback overtakes a bet the partner handles late: the partner refuses it when it gets to it", () =>
      Effect.gen(function*() {
        const player = yield* givenWalletPlayer(lateBooks, 30)
        lateBooks.behaviour = "late"
        lateBooks.delayMillis = 3_000
        const answer = yield* winBet(player.userCode, "late-bet-1", { bet: 10, win: 50 })
        // Our call timed out at 2 s and was aborted; the bet is refused and rolled back.
        assert.deepStrictEqual(answer.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 30 })
        const betEvent = transactionEventId("bet", "late-bet-1")
        yield* eventually(
          Effect.sync(() => lateBooks.rolledBack.has(betEvent)),
          (seen) => seen,
          "the rollback before the bet"
        )
        // The partner finally gets to the bet: it remembers the rollback and refuses it.
        yield* eventually(
          Effect.sync(() => lateBooks.decided.includes(betEvent)),
          (seen) => seen,
          "the partner's late look at the bet"
        )
        yield* lateRestore
        assert.notInclude(lateBooks.applied, betEvent)
        assert.strictEqual(lateBooks.balanceOf(player.external), 3_000n)
        yield* assertConserved(lateBooks, player, answer.body)
      }).pipe(Effect.ensuring(lateRestore)))
  })
})

describe("a crash between the partner's answer and the settle", () => {
  const crashBooks = new PartnerBooks()
  layer(WalletApp(crashBooks, pastTimeOut, CrashingWalletRepo), live)("(the settle dies once)", (it) => {
    it.effect("leaves the bet pending; the aggregator's retry gets it refused and the partner gets its stake back", () =>
      Effect.gen(function*() {
        const player = yield* givenWalletPlayer(crashBooks, 70)
        const crashed = yield* winBet(player.userCode, "crash-1", { bet: 20, win: 5 })
        assert.strictEqual(crashed.status, 500, "the aggregator got no answer")
        assert.strictEqual(crashBooks.balanceOf(player.external), 5_000n, "the partner took the stake")
        assert.deepInclude((yield* ledgerOf(player.playerId))[0], { txn_id: "crash-1", status: "pending" })

        const retried = yield* winBet(player.userCode, "crash-1", { bet: 20, win: 5 })
        assert.deepStrictEqual(retried.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 70 })
        assert.deepInclude((yield* ledgerOf(player.playerId))[0], { status: "refused", note: "recovered" })
        assert.strictEqual(crashBooks.receivedFor(transactionEventId("win", "crash-1")).length, 0)
        yield* assertConserved(crashBooks, player, retried.body)
      }))

    it.effect("with no retry, recovery settles it on its own", () =>
      Effect.gen(function*() {
        const player = yield* givenWalletPlayer(crashBooks, 40)
        assert.strictEqual((yield* winBet(player.userCode, "crash-2", { bet: 15, win: 0 })).status, 500)
        yield* eventually(ledgerOf(player.playerId), (rows) => rows[0]?.status === "refused", "the recovery")
        const settled = yield* winBet(player.userCode, "crash-2", { bet: 15, win: 0 })
        assert.deepStrictEqual(settled.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 40 })
        yield* assertConserved(crashBooks, player, settled.body)
      }))
  })
})
