/**
 * Hub88's wallet calls under races, over real HTTP (signed) and PostgreSQL, the partner's wallet the fake over real
 * HTTP. After every scenario, conservation: the partner's wallet holds its start plus the ledger's applied changes,
 * exact to the minor unit, and nothing is left pending.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber, Layer } from "effect"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import {
  AnotherHub88Instance,
  assertHub88Conserved,
  betOf,
  gameCode,
  givenHub88Player,
  hub88Call,
  Hub88WalletApp,
  implied,
  rollbackOf,
  winOf
} from "../support/Hub88Wallet.ts"
import { eventually, live } from "../support/live.ts"

const books = new PartnerBooks()
const restore = Effect.sync(() => {
  books.behaviour = "fine"
  books.delayMillis = 1_500
  books.failNotifications = 0
})

layer(Hub88WalletApp(books), live)("Hub88's wallet calls under races", (it) => {
  it.effect("copies of one bet at once while the partner is slow: one ask, one stake, one answer", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 5_000n)
      books.behaviour = "slow"
      books.delayMillis = 400
      const bet = betOf(player, "hr-copies", 500_000)
      const answers = yield* Effect.all(
        Array.from({ length: 20 }, () => hub88Call("/transaction/bet", bet)),
        { concurrency: "unbounded" }
      )
      yield* restore
      for (const answer of answers) assert.deepStrictEqual([answer.status, answer.balance], ["RS_OK", 4_500_000])
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "hr-copies", "hub88")).length, 1)
      const { ledger } = yield* assertHub88Conserved(books, player, answers[0])
      assert.deepStrictEqual(ledger.map((row) => [row.kind, row.amount]), [["bet", "-500"]])
    }).pipe(Effect.ensuring(restore)))

  it.effect("a win and a rollback of one bet at once: the stake back once, the win paid only if it came first", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      yield* hub88Call("/transaction/bet", betOf(player, "hr-wr-bet", 1_000_000))
      const [paid, undone] = yield* Effect.all([
        hub88Call("/transaction/win", winOf(player, "hr-wr-win", "hr-wr-bet", 2_500_000)),
        hub88Call("/transaction/rollback", rollbackOf(player, "hr-wr-rb", "hr-wr-bet"))
      ], { concurrency: "unbounded" })
      assert.strictEqual(undone.status, "RS_OK")
      assert.include(["RS_OK", "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"], paid.status)
      const { ledger } = yield* assertHub88Conserved(books, player, paid.balance > undone.balance ? paid : undone)
      assert.deepStrictEqual(ledger.filter((row) => row.kind === "rollback").map((row) => row.amount), ["1000"])
      assert.strictEqual(ledger.filter((row) => row.kind === "credit").length, paid.status === "RS_OK" ? 1 : 0)
    }))

  // Hub88's ids are one space for every kind: the database's key decides which of two calls at once takes one.
  it.effect("a bet and a win wearing one transaction_uuid at once, many times: exactly one of each pair moves money", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 100_000n)
      yield* hub88Call("/transaction/bet", betOf(player, "hr-id-paid", 100_000))
      const pairs = 24
      const answers = yield* Effect.forEach(
        Array.from({ length: pairs }, (_, i) => `hr-id-${i}`),
        (txn) =>
          Effect.all([
            hub88Call("/transaction/bet", betOf(player, txn, 100_000)),
            hub88Call("/transaction/win", winOf(player, txn, "hr-id-paid", 300_000))
          ], { concurrency: "unbounded" }),
        { concurrency: 4 }
      )
      for (const [staked, paid] of answers) {
        // One takes the id; the other is a used id, never a 500 (hub88Call asserts HTTP 200).
        assert.sameMembers([staked.status, paid.status], ["RS_OK", "RS_ERROR_DUPLICATE_TRANSACTION"])
      }
      const { held, ledger } = yield* assertHub88Conserved(books, player)
      for (let i = 0; i < pairs; i++) {
        const rows = ledger.filter((row) => row.txn_id === `hr-id-${i}`)
        assert.strictEqual(rows.length, 1, `one row holds hr-id-${i}`)
        assert.strictEqual(rows[0].kind, answers[i][0].status === "RS_OK" ? "bet" : "credit")
      }
      const bets = answers.filter(([staked]) => staked.status === "RS_OK").length
      // The first stake (R$ 1), then R$ 1 per bet taken and R$ 3 per win taken.
      assert.strictEqual(held, 100_000n - 100n - 100n * BigInt(bets) + 300n * BigInt(pairs - bets))
    }))

  it.effect("a win and a rollback wearing one transaction_uuid at once: exactly one takes it", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 100_000n)
      yield* hub88Call("/transaction/bet", betOf(player, "hr-idr-paid", 100_000))
      const pairs = 12
      const answers = yield* Effect.forEach(
        Array.from({ length: pairs }, (_, i) => `hr-idr-${i}`),
        (txn) =>
          Effect.all([
            hub88Call("/transaction/win", winOf(player, txn, "hr-idr-paid", 300_000)),
            // A rollback of a bet never seen: its tombstone, moving nothing, if it takes the id.
            hub88Call("/transaction/rollback", rollbackOf(player, txn, `${txn}-never`))
          ], { concurrency: "unbounded" }),
        { concurrency: 4 }
      )
      for (const [paid, undone] of answers) {
        assert.sameMembers([paid.status, undone.status], ["RS_OK", "RS_ERROR_DUPLICATE_TRANSACTION"])
      }
      const { held, ledger } = yield* assertHub88Conserved(books, player)
      for (let i = 0; i < pairs; i++) {
        assert.strictEqual(ledger.filter((row) => row.txn_id === `hr-idr-${i}`).length, 1)
      }
      const wins = answers.filter(([paid]) => paid.status === "RS_OK").length
      assert.strictEqual(held, 100_000n - 100n + 300n * BigInt(wins))
    }))

  it.effect("several bets and wins of one round, each sent twice at once: each moves its money once", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "BRL", 10_000n)
      const round = { round: "hr-round" }
      const bets = Array.from({ length: 6 }, (_, i) => betOf(player, `hr-r-bet-${i}`, (i + 1) * 100_000, round))
      const staked = yield* Effect.all(
        [...bets, ...bets].map((bet) => hub88Call("/transaction/bet", bet)),
        { concurrency: "unbounded" }
      )
      for (const answer of staked) assert.strictEqual(answer.status, "RS_OK")
      // The wins, each twice, with the bets' retries and a rollback of the last bet, all at once.
      const wins = bets.slice(0, 5).map((_, i) =>
        winOf(player, `hr-r-win-${i}`, `hr-r-bet-${i}`, (i + 1) * 200_000, { ...round, round_closed: i === 4 })
      )
      const settled = yield* Effect.all(
        [
          ...[...wins, ...wins].map((win) => hub88Call("/transaction/win", win)),
          ...bets.map((bet) => hub88Call("/transaction/bet", bet)),
          hub88Call("/transaction/rollback", rollbackOf(player, "hr-r-rb", "hr-r-bet-5", round))
        ],
        { concurrency: "unbounded" }
      )
      for (const answer of settled) assert.strictEqual(answer.status, "RS_OK")
      const { held, ledger } = yield* assertHub88Conserved(books, player)
      // Once the win notifications are delivered, the balance Hub88 reads is the partner's.
      yield* assertHub88Conserved(books, player, yield* hub88Call("/user/info", { user: player.user }))
      // Stakes 1..6 reais (21), wins 2..10 reais (30), the sixth stake (6) given back: 100 - 21 + 30 + 6.
      assert.strictEqual(held, 11_500n)
      assert.strictEqual(ledger.filter((row) => row.kind === "bet").length, 6)
      assert.strictEqual(ledger.filter((row) => row.kind === "credit").length, 5)
      for (let i = 0; i < 6; i++) {
        assert.strictEqual(books.receivedFor(transactionEventId("bet", `hr-r-bet-${i}`, "hub88")).length, 1)
      }
    }))

  // Hub88 rolls a bet back when its answer is late, and resends the bet: all three meet the bet still at the partner.
  for (const [currency, stake] of [["JPY", 700n], ["KWD", 1_250n]] as const) {
    it.effect(`${currency}: a rollback and two copies of its bet while the bet waits at the partner: the stake back once, told exactly`, () =>
      Effect.gen(function*() {
        const player = yield* givenHub88Player(books, currency, 5_000n)
        const txn = `hr-pending-${currency}`
        const bet = betOf(player, txn, implied(stake, currency))
        books.behaviour = "slow"
        books.delayMillis = 600
        const first = yield* Effect.forkChild(hub88Call("/transaction/bet", bet))
        yield* eventually(
          Effect.sync(() => books.receivedFor(transactionEventId("bet", txn, "hub88")).length),
          (received) => received === 1,
          "the partner was asked for the stake"
        )
        // The rollback's notification fails once: it waits for its retry when Hub88 asks the balance below.
        books.failNotifications = 1
        const [undone, ...copies] = yield* Effect.all([
          hub88Call("/transaction/rollback", rollbackOf(player, `${txn}-rb`, txn)),
          hub88Call("/transaction/bet", bet),
          hub88Call("/transaction/bet", bet)
        ], { concurrency: "unbounded" })
        const staked = yield* Fiber.join(first)
        books.behaviour = "fine"
        assert.deepStrictEqual([undone.status, undone.balance], ["RS_OK", implied(5_000n, currency)])
        // The bet's copies replay its answer, the stake taken; the rollback that followed gave it back.
        for (const answer of [staked, ...copies]) {
          assert.deepStrictEqual([answer.status, answer.balance], ["RS_OK", implied(5_000n - stake, currency)])
        }
        assert.strictEqual(books.receivedFor(transactionEventId("bet", txn, "hub88")).length, 1)
        yield* eventually(
          Effect.sync(() =>
            books.received.filter((got) => got.kind === "rollback" && got.body.rolls_back !== undefined)
          ),
          (sent) => sent.some((got) => got.body.player?.external_player_id === player.external),
          "the rollback's notification was tried and failed"
        )
        assert.strictEqual(books.balanceOf(player.wallet), 5_000n - stake, "the partner has not applied it yet")
        // Asked while the notification waits for its retry: it is delivered first, so the answer includes it.
        const told = yield* hub88Call("/user/balance", { user: player.user, token: player.token, game_code: gameCode })
        const { held, ledger } = yield* assertHub88Conserved(books, player, told)
        assert.strictEqual(held, 5_000n, "the stake came back, once")
        assert.deepStrictEqual(ledger.map((row) => [row.kind, row.amount]), [
          ["bet", String(-stake)],
          ["rollback", String(stake)]
        ])
      }).pipe(Effect.ensuring(restore)))
  }

  // The credit's and the rollback's decisions meet on the round and the player in PostgreSQL (one guarded write each,
  // compared as they lock), whichever instance reads them: in a currency of no places and one of three.
  for (const [currency, stake, prize] of [["JPY", 900n, 2_300n], ["KWD", 1_250n, 3_125n]] as const) {
    it.effect(`${currency}, two instances: a win at one and its bet's rollback at the other, each twice, at once: one takes the bet, told exactly`, () =>
      Effect.gen(function*() {
        const player = yield* givenHub88Player(books, currency, 10_000n)
        const other = yield* Layer.build(AnotherHub88Instance())
        const txn = `hr-two-${currency}`
        yield* hub88Call("/transaction/bet", betOf(player, txn, implied(stake, currency)))
        const paid = winOf(player, `${txn}-win`, txn, implied(prize, currency))
        const undone = rollbackOf(player, `${txn}-rb`, txn)
        const [wins, rollbacks] = yield* Effect.all([
          Effect.all([hub88Call("/transaction/win", paid), hub88Call("/transaction/win", paid)], {
            concurrency: "unbounded"
          }),
          Effect.all([hub88Call("/transaction/rollback", undone), hub88Call("/transaction/rollback", undone)], {
            concurrency: "unbounded"
          }).pipe(Effect.provide(other))
        ], { concurrency: "unbounded" })
        // A rollback always takes its bet back; the win is paid only if it came first, and its copy replays it.
        for (const answer of rollbacks) assert.strictEqual(answer.status, "RS_OK")
        assert.deepStrictEqual(wins[1].status, wins[0].status)
        assert.include(["RS_OK", "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"], wins[0].status)
        const won = wins[0].status === "RS_OK"
        const told = yield* hub88Call("/user/balance", { user: player.user, token: player.token, game_code: gameCode })
        const { held, ledger } = yield* assertHub88Conserved(books, player, told)
        assert.strictEqual(held, 10_000n + (won ? prize : 0n), `the stake back once, in ${currency}'s minor units`)
        assert.deepStrictEqual(
          ledger.map((row) => [row.kind, row.amount]).sort(),
          [["bet", String(-stake)], ["rollback", String(stake)], ...(won ? [["credit", String(prize)]] : [])].sort()
        )
      }).pipe(Effect.scoped))
  }

  it.effect("a bet asked while a rollback's notification waits for its retry: delivered first, so the answer has it", () =>
    Effect.gen(function*() {
      const player = yield* givenHub88Player(books, "KWD", 5_000n)
      yield* hub88Call("/transaction/bet", betOf(player, "hr-next-1", implied(2_000n, "KWD")))
      books.failNotifications = 1
      const undone = yield* hub88Call("/transaction/rollback", rollbackOf(player, "hr-next-rb", "hr-next-1"))
      assert.deepStrictEqual([undone.status, undone.balance], ["RS_OK", implied(5_000n, "KWD")])
      yield* eventually(
        Effect.sync(() => books.failNotifications),
        (left) => left === 0,
        "the rollback's notification was tried and failed"
      )
      assert.strictEqual(books.balanceOf(player.wallet), 3_000n, "the partner has not applied it yet")
      const next = yield* hub88Call("/transaction/bet", betOf(player, "hr-next-2", implied(125n, "KWD")))
      assert.deepStrictEqual([next.status, next.balance], ["RS_OK", implied(4_875n, "KWD")])
      const { held } = yield* assertHub88Conserved(books, player, next)
      assert.strictEqual(held, 4_875n)
    }).pipe(Effect.ensuring(restore)))
})
