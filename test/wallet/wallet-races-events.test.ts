/**
 * The ledger's events that no aggregator sends yet (a debit alone, a credit naming the debit it pays, a rollback
 * naming the debit it undoes), under races, driven through the Wallet service over PostgreSQL, with the partner's
 * wallet over real HTTP. After every scenario: conservation (the partner holds its start, less the applied stakes,
 * plus the applied credits and rollbacks, and the ledger's rows say the same).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import type { Aggregator } from "../../src/domain/Aggregator.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { amountOnWire } from "../../src/domain/Money.ts"
import type { Credit, Debit, Rollback, WalletOutcome } from "../../src/domain/WalletEvents.ts"
import { PartnerAdmin } from "../../src/changes/PartnerAdmin.ts"
import { Wallet } from "../../src/wallet/Wallet.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"
import { assertConserved, givenWalletPlayer, ledgerOf, WalletApp } from "../support/WalletApp.ts"

const books = new PartnerBooks()
const restore = Effect.sync(() => {
  books.behaviour = "fine"
  books.delayMillis = 1_500
})

const fields = (userCode: number, roundId: string, aggregator: Aggregator = "sandbox") => ({
  aggregator,
  userCode,
  roundId,
  gameCode: "g",
  providerCode: "p"
})
const debit = (userCode: number, txnId: string, bet: number, roundId = "ev-round"): Debit => ({
  _tag: "Debit",
  ...fields(userCode, roundId),
  txnId,
  bet: BigInt(bet)
})
const credit = (userCode: number, txnId: string, win: number, debitTxnId: string | null): Credit => ({
  _tag: "Credit",
  ...fields(userCode, "ev-round"),
  txnId,
  win: BigInt(win),
  debitTxnId
})
const rollback = (userCode: number, txnId: string, debitTxnId: string, aggregator?: Aggregator): Rollback => ({
  _tag: "Rollback",
  ...fields(userCode, "ev-round", aggregator),
  txnId,
  debitTxnId
})

const handle = (event: Debit | Credit | Rollback) =>
  Effect.flatMap(Effect.service(Wallet), (w) => w.handle(event, "live"))
const accepted = (balance: bigint): WalletOutcome => ({ _tag: "Accepted", balance })

/**
 * Conservation in the events' terms: once every notification is delivered, the partner holds its start less the
 * applied stakes plus the applied credits and rollbacks, which is what the ledger's applied rows add up to, and
 * what the last outcome told.
 */
const conserved = (
  player: { readonly external: string; readonly playerId: number; readonly start: number },
  last: WalletOutcome
) =>
  Effect.gen(function*() {
    const held = yield* assertConserved(books, player, { balance: amountOnWire(last.balance, knownCurrency("BRL")!) })
    const rows = (yield* ledgerOf(player.playerId)).filter((row) => row.status === "applied")
    const sum = (kind: string) =>
      rows.filter((row) => row.kind === kind).reduce((total, row) => total + BigInt(row.amount), 0n)
    assert.strictEqual(held, BigInt(player.start * 100) + sum("bet") + sum("credit") + sum("rollback"))
    return rows
  })

layer(WalletApp(books), live)("the ledger's events under races", (it) => {
  it.effect("copies of one debit at once while the partner is slow: one ask, one stake, one answer", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 50)
      books.behaviour = "slow"
      books.delayMillis = 400
      const outcomes = yield* Effect.all(
        Array.from({ length: 20 }, () => handle(debit(player.userCode, "ev-copies-1", 500))),
        { concurrency: "unbounded" }
      )
      yield* restore
      for (const outcome of outcomes) assert.deepStrictEqual(outcome, accepted(4_500n))
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "ev-copies-1")).length, 1)
      const rows = yield* conserved(player, outcomes[0])
      assert.deepStrictEqual(rows.map((row) => [row.kind, row.amount]), [["bet", "-500"]])
    }).pipe(Effect.ensuring(restore)))

  it.effect("a credit and a rollback of one debit at once: the stake back once, the win paid only before it", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      assert.deepStrictEqual(yield* handle(debit(player.userCode, "ev-cr-debit", 1_000)), accepted(9_000n))
      const [paid, undone] = yield* Effect.all([
        handle(credit(player.userCode, "ev-cr-credit", 2_500, "ev-cr-debit")),
        handle(rollback(player.userCode, "ev-cr-rollback", "ev-cr-debit"))
      ], { concurrency: "unbounded" })
      assert.strictEqual(undone._tag, "Accepted")
      // Either order is right: the credit first pays the win; the rollback first leaves no stake to pay a win for.
      if (paid._tag === "Refused") assert.strictEqual(paid.refusal, "DEBIT_NOT_FOUND")
      // Each of the two only adds to the balance: the later one told the larger.
      const rows = yield* conserved(player, paid.balance > undone.balance ? paid : undone)
      assert.deepStrictEqual(
        rows.filter((row) => row.kind === "rollback").map((row) => row.amount),
        ["1000"],
        "the stake given back once"
      )
      assert.strictEqual(rows.filter((row) => row.kind === "credit").length, paid._tag === "Accepted" ? 1 : 0)
    }))

  it.effect("rollbacks of one debit under different ids at once: one gives the stake back, the others move nothing", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      yield* handle(debit(player.userCode, "ev-rr-debit", 700))
      const outcomes = yield* Effect.all(
        Array.from({ length: 6 }, (_, i) => handle(rollback(player.userCode, `ev-rr-${i}`, "ev-rr-debit"))),
        { concurrency: "unbounded" }
      )
      for (const outcome of outcomes) assert.strictEqual(outcome._tag, "Accepted")
      const rows = yield* conserved(player, outcomes[0])
      const rollbacks = rows.filter((row) => row.kind === "rollback")
      assert.strictEqual(rollbacks.length, 6)
      assert.deepStrictEqual(rollbacks.filter((row) => row.note === null).map((row) => row.amount), ["700"])
      assert.isTrue(rollbacks.filter((row) => row.note !== null).every((row) => row.note === "already_rolled_back"))
      assert.strictEqual(books.receivedFor(transactionEventId("rollback", "ev-rr-debit")).length, 1)
      assert.strictEqual(books.balanceOf(player.external), 10_000n)
    }))

  it.effect("under PlayFiver's key too: a debit and its rollbacks under different ids at once, its stake back once", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      const stake: Debit = { ...debit(player.userCode, "ev-pf-debit", 700), aggregator: "playfiver" }
      const outcomes = yield* Effect.all(
        [
          handle(stake),
          ...Array.from(
            { length: 4 },
            (_, i) => handle(rollback(player.userCode, `ev-pf-${i}`, "ev-pf-debit", "playfiver"))
          )
        ],
        { concurrency: "unbounded" }
      )
      const rows = yield* conserved(
        player,
        yield* handle(rollback(player.userCode, "ev-pf-last", "ev-pf-debit", "playfiver"))
      )
      const keys = yield* Effect.flatMap(
        Effect.service(SqlClient.SqlClient),
        (sql) =>
          sql<
            { aggregator: string }
          >`SELECT DISTINCT aggregator FROM wallet_transactions WHERE player_id = ${player.playerId}`
      )
      assert.deepStrictEqual(keys, [{ aggregator: "playfiver" }], "every row under PlayFiver's key")
      assert.isAtMost(rows.filter((row) => row.kind === "rollback" && row.amount !== "0").length, 1)
      assert.lengthOf(outcomes, 5)
      assert.strictEqual(books.balanceOf(player.external), 10_000n, "whatever came first, nothing is left taken")
    }))

  it.effect("a rollback overtaking its pending debit waits for it, then gives its stake back; its repeats replay", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      books.behaviour = "slow"
      books.delayMillis = 600
      const pending = yield* Effect.forkChild(handle(debit(player.userCode, "ev-ov-debit", 1_000)))
      yield* eventually(
        Effect.sync(() => books.receivedFor(transactionEventId("bet", "ev-ov-debit")).length),
        (n) => n === 1
      )
      const undone = yield* handle(rollback(player.userCode, "ev-ov-rollback", "ev-ov-debit"))
      const taken = yield* Fiber.join(pending)
      yield* restore
      assert.deepStrictEqual(taken, accepted(9_000n), "the debit was taken...")
      assert.deepStrictEqual(undone, accepted(10_000n), "...and then given back")
      assert.deepStrictEqual(yield* handle(rollback(player.userCode, "ev-ov-rollback", "ev-ov-debit")), undone)
      const rows = yield* conserved(player, undone)
      assert.deepStrictEqual(rows.map((row) => [row.kind, row.amount]), [["bet", "-1000"], ["rollback", "1000"]])
    }).pipe(Effect.ensuring(restore)))

  it.effect("a rollback before its debit is a tombstone: the late debit refused, the partner never asked", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      assert.deepStrictEqual(
        yield* handle(rollback(player.userCode, "ev-ts-rollback", "ev-ts-debit")),
        accepted(10_000n)
      )
      const late = yield* handle(debit(player.userCode, "ev-ts-debit", 1_000))
      assert.deepStrictEqual(late, { _tag: "Refused", refusal: "DEBIT_ROLLED_BACK", balance: 10_000n })
      assert.deepStrictEqual(yield* handle(debit(player.userCode, "ev-ts-debit", 1_000)), late, "its repeat replays")
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "ev-ts-debit")).length, 0)
      const credited = yield* handle(credit(player.userCode, "ev-ts-credit", 500, "ev-ts-debit"))
      assert.deepStrictEqual(credited, { _tag: "Refused", refusal: "DEBIT_NOT_FOUND", balance: 10_000n })
      yield* conserved(player, credited)
    }))

  it.effect("a debit and its rollback at once: whichever comes first, nothing is left taken", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      books.behaviour = "slow"
      books.delayMillis = 100
      const [taken, undone] = yield* Effect.all([
        handle(debit(player.userCode, "ev-at-debit", 1_500)),
        handle(rollback(player.userCode, "ev-at-rollback", "ev-at-debit"))
      ], { concurrency: "unbounded" })
      yield* restore
      assert.deepStrictEqual(undone, accepted(10_000n))
      if (taken._tag === "Refused") assert.strictEqual(taken.refusal, "DEBIT_ROLLED_BACK")
      yield* conserved(player, undone)
      assert.strictEqual(books.balanceOf(player.external), 10_000n)
    }).pipe(Effect.ensuring(restore)))

  it.effect("a credit naming no debit is a free win on its round; one naming another player's debit is refused", () =>
    Effect.gen(function*() {
      const ana = yield* givenWalletPlayer(books, 100)
      const bia = yield* givenWalletPlayer(books, 100)
      yield* handle(debit(ana.userCode, "ev-own-debit", 300))
      assert.deepStrictEqual(
        yield* handle(credit(bia.userCode, "ev-other-credit", 900, "ev-own-debit")),
        { _tag: "Refused", refusal: "DEBIT_NOT_FOUND", balance: 10_000n }
      )
      const free = yield* handle(credit(bia.userCode, "ev-free-credit", 900, null))
      assert.deepStrictEqual(free, accepted(10_900n))
      yield* conserved(bia, free)
      yield* conserved(ana, accepted(9_700n))
    }))

  // Each decision is written only on the player as it read them: credits and rollbacks of one player's rounds at once
  // meet on the player's row (the mirror, or a shadow player's count of callbacks), and every one that met a change
  // is read and decided again, never written on a stale balance.
  for (const mode of ["persisted", "shadow"] as const) {
    it.effect(`${mode}: credits and rollbacks in eight rounds of one player at once each move their money once`, () =>
      Effect.gen(function*() {
        const player = yield* givenWalletPlayer(books, 100)
        if (mode === "shadow") {
          yield* (yield* PartnerAdmin).setPlayerMode({ name: "tester", via: "cli" }, player.partner.slug, "shadow")
        }
        const rounds = Array.from({ length: 8 }, (_, i) => i)
        for (const i of rounds) {
          const staked = yield* handle(
            debit(player.userCode, `ev-many-${mode}-debit-${i}`, 100 + i, `ev-many-${mode}-round-${i}`)
          )
          assert.strictEqual(
            staked._tag,
            "Accepted",
            JSON.stringify(staked, (_, v) => typeof v === "bigint" ? String(v) : v)
          )
        }
        const outcomes = yield* Effect.all(
          rounds.map((i) =>
            i % 2 === 0
              ? handle(credit(player.userCode, `ev-many-${mode}-credit-${i}`, 1_000 + i, `ev-many-${mode}-debit-${i}`))
              : handle(rollback(player.userCode, `ev-many-${mode}-rollback-${i}`, `ev-many-${mode}-debit-${i}`))
          ),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(outcomes.map((outcome) => outcome._tag), rounds.map(() => "Accepted"))
        const stakes = rounds.reduce((total, i) => total + 100 + i, 0)
        const wins = rounds.filter((i) => i % 2 === 0).reduce((total, i) => total + 1_000 + i, 0)
        const givenBack = rounds.filter((i) => i % 2 === 1).reduce((total, i) => total + 100 + i, 0)
        // Each only adds to the balance: the last written told the largest, every stake, win and give-back in it. A
        // shadow player's answers are the partner's balance as asked, taken as it is after a few asks met a change
        // (LedgerSteps' balanceTries): the partner's books are what must add up.
        const last = outcomes.reduce((top, outcome) => outcome.balance > top.balance ? outcome : top)
        if (mode === "persisted") assert.strictEqual(last.balance, BigInt(10_000 - stakes + wins + givenBack))
        const rows = mode === "persisted"
          ? yield* conserved(player, last)
          : (yield* ledgerOf(player.playerId)).filter((row) => row.status === "applied")
        if (mode === "shadow") {
          assert.strictEqual(yield* assertConserved(books, player), BigInt(10_000 - stakes + wins + givenBack))
        }
        assert.deepStrictEqual(
          rows.filter((row) => row.kind !== "bet").map((row) => [row.kind, row.amount]).sort(),
          rounds.map((i) => i % 2 === 0 ? ["credit", String(1_000 + i)] : ["rollback", String(100 + i)]).sort(),
          "each credit and each give-back written once, exactly"
        )
      }))
  }
})
