/**
 * The wallet's race and crash scenarios (wallet-races.test.ts) for the two
 * kinds of player those scenarios do not reach: a test-environment player
 * (its calls come with the sandbox test agent's credentials, its callbacks go
 * to the partner's test callback URL) and a shadow player (no balance kept:
 * every figure the aggregator hears is asked of the partner). After every
 * scenario: conservation, the partner's books equal what the aggregator was told.
 */
import { assert, describe, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer } from "effect"
import { PartnerAdmin } from "../../src/changes/PartnerAdmin.ts"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import type { Environment } from "../../src/domain/Environment.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { AnotherInstance } from "../support/TestApp.ts"
import {
  assertConserved,
  givenPlayer,
  ledgerOf,
  refund as refundAt,
  WalletApp,
  winBet as winBetAt
} from "../support/WalletApp.ts"

type Kind = "test" | "shadow"
const kinds: ReadonlyArray<Kind> = ["test", "shadow"]

let partners = 0

/**
 * A fresh partner whose live and test callbacks both go to the fake wallet (which knows both webhook
 * secrets), and one player of the kind: in the test environment, or live under a shadow partner.
 */
const givenRacePlayer = (books: PartnerBooks, start: number, kind: Kind) =>
  Effect.gen(function*() {
    const fake = yield* FakeUpstream
    const created = yield* Effect.orDie((yield* Partners).create({
      name: `Race Partner ${kind} ${++partners}`,
      callbackUrl: `${fake.url}/wallet`,
      testCallbackUrl: `${fake.url}/wallet-test`
    }))
    books.secrets.add(created.webhookSecret)
    books.secrets.add(created.test.webhookSecret)
    if (kind === "shadow") {
      yield* (yield* PartnerAdmin).setPlayerMode({ name: "tester", via: "cli" }, created.partner.slug, "shadow")
    }
    const environment: Environment = kind === "test" ? "test" : "live"
    const external = `${kind}-player-${created.partner.id}`
    const player = yield* givenPlayer(books, created.partner.id, external, start, environment)
    if (kind === "shadow") assert.strictEqual(player.balance, null, "a shadow player has no stored balance")
    assert.strictEqual(player.environment, environment)
    return { external, userCode: player.internalUserId, playerId: player.id, start, environment }
  })

type RacePlayer = Effect.Success<ReturnType<typeof givenRacePlayer>>

const winBet = (player: RacePlayer, txnId: string, amounts: { bet: number; win: number }, roundId: string = txnId) =>
  winBetAt(player.userCode, txnId, amounts, roundId, player.environment)
const refund = (player: RacePlayer, txnId: string, roundId: string) =>
  refundAt(player.userCode, txnId, roundId, player.environment)

/*
 * A shadow answer is the partner's figure, and these races are where that figure could leave out a decision already
 * made (the bet's win when a refund overtakes it, the rollback of a recovered bet): PartnerAsks delivers the player's
 * notifications before asking, and a decision whose figure was asked while another callback of the player was
 * written asks it again. The same assertions hold for both kinds of player.
 */

const books = new PartnerBooks()

const restore = Effect.sync(() => {
  books.behaviour = "fine"
  books.delayMillis = 1_500
})

/**
 * Here a partner's answer, slow on purpose or not, comes long before the time-out (the tests' default); for the
 * crashes below, a bet pending 3.5 s was abandoned (as in wallet-races.test.ts).
 */
const pastTimeOut = { callbacks: { timeout: Duration.seconds(2), pendingTimeout: Duration.millis(3_500) } }

layer(WalletApp(books), live)("the wallet under races, test and shadow players", (it) => {
  for (const kind of kinds) {
    it.effect(`${kind}: a refund that arrives while its bet waits for the partner waits, then undoes it; its retries replay`, () =>
      Effect.gen(function*() {
        const player = yield* givenRacePlayer(books, 100, kind)
        books.behaviour = "slow"
        books.delayMillis = 600
        const bet = yield* Effect.forkChild(
          winBet(player, `${kind}-race-bet-1`, { bet: 10, win: 4 }, `${kind}-race-round-1`)
        )
        yield* eventually(
          Effect.sync(() => books.receivedFor(transactionEventId("bet", `${kind}-race-bet-1`)).length),
          (n) => n === 1
        )
        const refunded = yield* refund(player, `${kind}-race-refund-1`, `${kind}-race-round-1`)
        const betAnswer = yield* Fiber.join(bet)
        yield* restore
        assert.deepStrictEqual(betAnswer.body, { msg: "", balance: 94 }, "the bet was applied...")
        assert.deepStrictEqual(
          refunded.body,
          { msg: "", balance: 100 },
          "...and then undone, not answered ROUND_NOT_FOUND"
        )
        for (let i = 0; i < 2; i++) {
          assert.deepStrictEqual(
            (yield* refund(player, `${kind}-race-refund-1`, `${kind}-race-round-1`)).body,
            refunded.body
          )
        }
        const ledger = yield* ledgerOf(player.playerId)
        assert.deepStrictEqual(ledger.map((row) => [row.txn_id, row.status, BigInt(row.amount)]), [
          [`${kind}-race-bet-1`, "applied", -600n],
          [`${kind}-race-refund-1`, "applied", 600n]
        ])
        yield* assertConserved(books, player, refunded.body)
      }).pipe(Effect.ensuring(restore)))

    it.effect(`${kind}: copies of a bet sent while the partner is slow wait for the one call: one ask, one answer`, () =>
      Effect.gen(function*() {
        const player = yield* givenRacePlayer(books, 50, kind)
        books.behaviour = "slow"
        books.delayMillis = 500
        const answers = yield* Effect.all(
          Array.from({ length: 20 }, () => winBet(player, `${kind}-slow-copies-1`, { bet: 5, win: 0 })),
          { concurrency: "unbounded" }
        )
        yield* restore
        for (const answer of answers) assert.deepStrictEqual(answer.body, { msg: "", balance: 45 })
        assert.strictEqual(books.receivedFor(transactionEventId("bet", `${kind}-slow-copies-1`)).length, 1)
        yield* assertConserved(books, player, answers[0].body)
      }).pipe(Effect.ensuring(restore)))

    it.effect(`${kind}: two instances: the bet at one, its refund at the other, the repeat at either`, () =>
      Effect.gen(function*() {
        const player = yield* givenRacePlayer(books, 80, kind)
        const other = yield* Layer.build(AnotherInstance())
        books.behaviour = "slow"
        books.delayMillis = 600
        const bet = yield* Effect.forkChild(
          winBet(player, `${kind}-two-bet-1`, { bet: 20, win: 0 }, `${kind}-two-round-1`)
        )
        yield* eventually(
          Effect.sync(() => books.receivedFor(transactionEventId("bet", `${kind}-two-bet-1`)).length),
          (n) => n === 1
        )
        const [refunded, repeated] = yield* Effect.all([
          refund(player, `${kind}-two-refund-1`, `${kind}-two-round-1`),
          winBet(player, `${kind}-two-bet-1`, { bet: 20, win: 0 }, `${kind}-two-round-1`)
        ], { concurrency: "unbounded" }).pipe(Effect.provide(other))
        const betAnswer = yield* Fiber.join(bet)
        yield* restore
        assert.deepStrictEqual(betAnswer.body, { msg: "", balance: 60 })
        if (kind === "shadow") {
          // Nothing was kept to replay: the repeat's balance is the partner's figure, before or after the refund.
          assert.strictEqual((repeated.body as { msg: string }).msg, "")
          assert.include([60, 80], (repeated.body as { balance: number }).balance)
        } else {
          assert.deepStrictEqual(repeated.body, betAnswer.body, "the repeat at the other instance replays the bet")
        }
        assert.deepStrictEqual(refunded.body, { msg: "", balance: 80 })
        assert.strictEqual(books.receivedFor(transactionEventId("bet", `${kind}-two-bet-1`)).length, 1)
        yield* assertConserved(books, player, refunded.body)
      }).pipe(Effect.scoped, Effect.ensuring(restore)))
  }
})

/** The settle dies once for `crash-` bets, as a process killed between the partner's answer and the settle would. */
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

describe("a crash between the partner's answer and the settle, test and shadow players", () => {
  const crashBooks = new PartnerBooks()
  layer(WalletApp(crashBooks, pastTimeOut, CrashingWalletRepo), live)("(the settle dies once)", (it) => {
    for (const kind of kinds) {
      it.effect(`${kind}: leaves the bet pending; the aggregator's retry gets it refused and the partner gets its stake back`, () =>
        Effect.gen(function*() {
          const player = yield* givenRacePlayer(crashBooks, 70, kind)
          const crashed = yield* winBet(player, `crash-${kind}-1`, { bet: 20, win: 5 })
          assert.strictEqual(crashed.status, 500, "the aggregator got no answer")
          assert.strictEqual(crashBooks.balanceOf(player.external), 5_000n, "the partner took the stake")
          assert.deepInclude((yield* ledgerOf(player.playerId))[0], { txn_id: `crash-${kind}-1`, status: "pending" })

          const retried = yield* winBet(player, `crash-${kind}-1`, { bet: 20, win: 5 })
          assert.deepStrictEqual(retried.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 70 })
          assert.deepInclude((yield* ledgerOf(player.playerId))[0], { status: "refused", note: "recovered" })
          assert.strictEqual(crashBooks.receivedFor(transactionEventId("win", `crash-${kind}-1`)).length, 0)
          yield* assertConserved(crashBooks, player, retried.body)
        }))

      it.effect(`${kind}: with no retry, recovery settles it on its own`, () =>
        Effect.gen(function*() {
          const player = yield* givenRacePlayer(crashBooks, 40, kind)
          assert.strictEqual((yield* winBet(player, `crash-${kind}-2`, { bet: 15, win: 0 })).status, 500)
          yield* eventually(ledgerOf(player.playerId), (rows) => rows[0]?.status === "refused", "the recovery")
          const settled = yield* winBet(player, `crash-${kind}-2`, { bet: 15, win: 0 })
          assert.deepStrictEqual(settled.body, { msg: "INSUFFICIENT_USER_FUNDS", balance: 40 })
          yield* assertConserved(crashBooks, player, settled.body)
        }))
    }
  })
})
