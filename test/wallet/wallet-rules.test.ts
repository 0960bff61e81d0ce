/**
 * The wallet's rules without a database: the Wallet service over the
 * in-memory repository, players and callback targets, with a partner that
 * answers in memory. What reaches partners over HTTP and PostgreSQL is in
 * wallet.test.ts and wallet-races.test.ts; here each rule is checked on its own. The rules as pure functions are
 * test/domain/wallet-rules.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Fiber, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { CallbacksConfig } from "../../src/wallet/CallbacksConfig.ts"
import { CallbackOutbox } from "../../src/wallet/outbox/CallbackOutbox.ts"
import { OutboxRepo } from "../../src/wallet/outbox/OutboxRepo.ts"
import { PartnerCallbacks } from "../../src/wallet/outbox/PartnerCallbacks.ts"
import { PendingBets } from "../../src/wallet/PendingBets.ts"
import { Wallet } from "../../src/wallet/Wallet.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { MemoryCallbacks } from "../../src/wallet/WalletRepoMemory.ts"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { minorOf } from "../../src/domain/Money.ts"
import type { PartnerAnswer } from "../../src/domain/Wallet.ts"
import {
  type Credit,
  type Debit,
  type DebitAndCredit,
  fingerprint,
  type Rollback
} from "../../src/domain/WalletEvents.ts"
import { CallbackTargets } from "../../src/partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { bet, refundOf } from "../support/SandboxEvents.ts"
import { testCallbacksConfig } from "../support/TestApp.ts"

/** A partner's wallet in memory: takes stakes it can cover, after `delay`, or is away. */
const partner = { balance: 10_000n, away: false, delay: Duration.zero, asked: [] as Array<string> }
const MemoryPartner = Layer.succeed(
  PartnerCallbacks,
  PartnerCallbacks.of({
    ask: (_target, eventId, body) =>
      Effect.gen(function*() {
        partner.asked.push(eventId)
        yield* Effect.sleep(partner.delay)
        if (partner.away) return { _tag: "Unavailable", reason: "away" } satisfies PartnerAnswer
        const amount = minorOf(String(JSON.parse(body).amount ?? 0), knownCurrency("BRL")!) ?? 0n
        if (amount > partner.balance) {
          return { _tag: "InsufficientFunds", balance: partner.balance } satisfies PartnerAnswer
        }
        partner.balance -= amount
        return { _tag: "Balance", balance: partner.balance } satisfies PartnerAnswer
      }),
    deliver: () => Effect.void,
    send: () => Effect.die("the wallet sends no certification callback")
  })
)

const target = {
  partnerId: 1,
  environment: "live" as const,
  partnerSlug: "acme",
  active: true,
  callbackUrl: "https://acme.example/wallet",
  webhookSecret: "s",
  previousSecret: null
}

const RulesLive = Wallet.layer.pipe(
  Layer.provideMerge(CallbackOutbox.layer),
  Layer.provideMerge(OutboxRepo.layerMemory),
  Layer.provideMerge(WalletRepo.layerMemory),
  Layer.provideMerge(Layer.mergeAll(
    PartnerPlayers.layerMemory,
    CallbackTargets.layerMemory([target]),
    MemoryPartner,
    Layer.succeed(CallbacksConfig, testCallbacksConfig({ pendingTimeout: Duration.seconds(5) }))
  ))
)

const given = Effect.gen(function*() {
  partner.balance = 10_000n
  partner.away = false
  partner.delay = Duration.zero
  partner.asked.length = 0
  return yield* (yield* PartnerPlayers).arrive({
    partnerId: 1,
    environment: "live",
    externalPlayerId: "p",
    currency: "BRL",
    name: null,
    email: null,
    balance: 10_000n
  })
})

layer(RulesLive)("the wallet's rules over memory", (it) => {
  it.effect("a bet asked and taken: applied, the mirror follows, the win is a notification", () =>
    Effect.gen(function*() {
      const player = yield* given
      const wallet = yield* Wallet
      const answer = yield* wallet.handle(bet("m-1", { bet: 1_000, win: 300 }), "live")
      assert.deepStrictEqual(answer, { _tag: "Accepted", balance: 9300n })
      assert.strictEqual(Option.getOrThrow(yield* (yield* PartnerPlayers).findById(player.id)).balance, 9_300n)
      const written = (yield* MemoryCallbacks).filter((callback) => callback.txnId === "m-1").map((callback) =>
        callback.kind
      )
      assert.deepStrictEqual(written, ["bet", "win"])
    }))

  it.effect("two aggregators' equal ids are two transactions of two rounds; their event ids are the ones partners know", () =>
    Effect.gen(function*() {
      const player = yield* given
      const wallet = yield* Wallet
      const sandboxBet = bet("m-same", { bet: 1_000, win: 0 }, "m-same-round")
      const playfiverBet: DebitAndCredit = { ...sandboxBet, aggregator: "playfiver" }
      assert.deepStrictEqual(yield* wallet.handle(sandboxBet, "live"), { _tag: "Accepted", balance: 9000n })
      assert.deepStrictEqual(yield* wallet.handle(playfiverBet, "live"), { _tag: "Accepted", balance: 8000n })
      // A repeat is a repeat within its aggregator only: it moves nothing.
      assert.deepStrictEqual(yield* wallet.handle(playfiverBet, "live"), { _tag: "Accepted", balance: 8000n })
      const repo = yield* WalletRepo
      const sandboxEntry = Option.getOrThrow(yield* repo.findTransaction("live", "sandbox", "bet", "m-same"))
      const playfiverEntry = Option.getOrThrow(yield* repo.findTransaction("live", "playfiver", "bet", "m-same"))
      assert.notStrictEqual(sandboxEntry.roundRef, playfiverEntry.roundRef)
      assert.strictEqual(sandboxEntry.amount + playfiverEntry.amount, -2_000n)
      assert.strictEqual(Option.getOrThrow(yield* (yield* PartnerPlayers).findById(player.id)).balance, 8_000n)
      // The partner was asked twice, each under the event id it has always had for that aggregator's transaction
      // (PlayFiver's and the sandbox's ids predate aggregators' names: an aggregator added later has its name in them).
      assert.deepStrictEqual(partner.asked, [transactionEventId("bet", "m-same"), transactionEventId("bet", "m-same")])
      assert.strictEqual(transactionEventId("bet", "m-same", "playfiver"), transactionEventId("bet", "m-same"))
      // A refund undoes only its own aggregator's round.
      assert.deepStrictEqual(
        yield* wallet.handle({ ...refundOf("m-same-refund", "m-same-round"), aggregator: "playfiver" }, "live"),
        { _tag: "Accepted", balance: 9000n }
      )
      const rounds = yield* repo.roundsByRef([sandboxEntry.roundRef, playfiverEntry.roundRef])
      assert.deepStrictEqual(rounds.map((round) => [round.aggregator, round.status]), [
        ["sandbox", "settled"],
        ["playfiver", "refunded"]
      ])
    }))

  it.effect("a partner away: refused, and a rollback recorded for the stake it may have taken", () =>
    Effect.gen(function*() {
      yield* given
      partner.away = true
      const answer = yield* (yield* Wallet).handle(bet("m-2", { bet: 1_000, win: 0 }), "live")
      assert.deepStrictEqual(answer, { _tag: "Refused", refusal: "INSUFFICIENT_USER_FUNDS", balance: 10_000n })
      const written = (yield* MemoryCallbacks).filter((callback) => callback.txnId === "m-2")
      assert.deepStrictEqual(written.map((callback) => [callback.kind, callback.asked?.error ?? null]), [[
        "bet",
        "away"
      ], ["rollback", null]])
    }))

  it.effect("an early refund is a tombstone: answered done, and the round's late bet refused without asking", () =>
    Effect.gen(function*() {
      yield* given
      const wallet = yield* Wallet
      assert.deepStrictEqual(yield* wallet.handle(refundOf("m-r1", "m-round-3"), "live"), {
        _tag: "Accepted",
        balance: 10_000n
      })
      assert.deepStrictEqual(yield* wallet.handle(bet("m-3", { bet: 500, win: 0 }, "m-round-3"), "live"), {
        _tag: "Refused",
        refusal: "ROUND_REFUNDED",
        balance: 10_000n
      })
      assert.deepStrictEqual(partner.asked, [])
    }))

  it.effect("a refund gives the stake back and takes the win back; the mirror never goes below 0", () =>
    Effect.gen(function*() {
      const player = yield* given
      const wallet = yield* Wallet
      yield* wallet.handle(bet("m-4", { bet: 1_000, win: 6_000 }, "m-round-4"), "live")
      // The player spent the win elsewhere: the partner says 20.00.
      yield* (yield* PartnerPlayers).confirmBalance(player.id, 2_000n, Effect.succeed(true))
      const refunded = yield* wallet.handle(refundOf("m-r4", "m-round-4"), "live")
      assert.deepStrictEqual(refunded, { _tag: "Accepted", balance: 0n })
      const entry = Option.getOrThrow(yield* (yield* WalletRepo).findTransaction("live", "sandbox", "refund", "m-r4"))
      assert.strictEqual(entry.amount, -5_000n, "the partner is told the whole reversal")
    }))

  it.effect("a refund waits for its round's pending bet, then undoes it", () =>
    Effect.gen(function*() {
      yield* given
      partner.delay = Duration.millis(200)
      const wallet = yield* Wallet
      const pending = yield* Effect.forkChild(wallet.handle(bet("m-5", { bet: 700, win: 0 }, "m-round-5"), "live"))
      yield* TestClock.adjust("50 millis")
      const refunding = yield* Effect.forkChild(wallet.handle(refundOf("m-r5", "m-round-5"), "live"))
      yield* TestClock.adjust("1 second")
      assert.deepStrictEqual(yield* Fiber.join(pending), { _tag: "Accepted", balance: 9300n })
      assert.deepStrictEqual(yield* Fiber.join(refunding), { _tag: "Accepted", balance: 10_000n })
    }))

  it.effect("a bet left pending past the time-out is recovered: refused with a rollback, and its repeat gets that", () =>
    Effect.gen(function*() {
      const player = yield* given
      const repo = yield* WalletRepo
      const opened = yield* repo.openBet({
        aggregator: "sandbox",
        currency: "BRL",
        kind: "bet",
        txnId: "m-6",
        fingerprint: fingerprint(bet("m-6", { bet: 100, win: 0 })),
        partnerId: 1,
        environment: "live",
        playerId: player.id,
        roundId: "m-6",
        debitTxnId: null,
        gameCode: "g",
        providerCode: "p",
        bet: 100n,
        win: 0n
      }, player)
      assert.strictEqual(opened._tag, "Opened")
      const wallet = yield* Wallet
      const pendingBets = yield* PendingBets
      assert.strictEqual(yield* pendingBets.recover, 0, "not yet stale")
      yield* TestClock.adjust("6 seconds")
      assert.strictEqual(yield* pendingBets.recover, 1)
      const entry = Option.getOrThrow(yield* repo.findTransaction("live", "sandbox", "bet", "m-6"))
      assert.deepInclude(entry, { status: "refused", note: "recovered", refusal: "INSUFFICIENT_USER_FUNDS" })
      assert.deepStrictEqual(yield* wallet.handle(bet("m-6", { bet: 100, win: 0 }), "live"), {
        _tag: "Refused",
        refusal: "INSUFFICIENT_USER_FUNDS",
        balance: 10_000n
      })
      assert.isTrue(
        (yield* MemoryCallbacks).some((callback) => callback.txnId === "m-6" && callback.kind === "rollback")
      )
    }))

  it.effect("the ledger's other events over memory: a debit, a credit paying it, its rollback once, one before its debit", () =>
    Effect.gen(function*() {
      const player = yield* given
      const wallet = yield* Wallet
      const fields = {
        aggregator: "sandbox",
        userCode: 100_001,
        roundId: "m-ev",
        gameCode: "g",
        providerCode: "p"
      } as const
      const debitOf = (txnId: string): Debit => ({ _tag: "Debit", ...fields, txnId, bet: 1_000n })
      const rollbackOf = (txnId: string, debitTxnId: string): Rollback => ({
        _tag: "Rollback",
        ...fields,
        txnId,
        debitTxnId
      })
      const credit: Credit = { _tag: "Credit", ...fields, txnId: "m-ev-c", win: 2_500n, debitTxnId: "m-ev-d" }
      assert.deepStrictEqual(yield* wallet.handle(debitOf("m-ev-d"), "live"), { _tag: "Accepted", balance: 9_000n })
      assert.deepStrictEqual(yield* wallet.handle(credit, "live"), { _tag: "Accepted", balance: 11_500n })
      assert.deepStrictEqual(yield* wallet.handle(rollbackOf("m-ev-r1", "m-ev-d"), "live"), {
        _tag: "Accepted",
        balance: 12_500n
      })
      assert.deepStrictEqual(yield* wallet.handle(rollbackOf("m-ev-r2", "m-ev-d"), "live"), {
        _tag: "Accepted",
        balance: 12_500n
      })
      assert.deepStrictEqual(yield* wallet.handle({ ...credit, txnId: "m-ev-c2" }, "live"), {
        _tag: "Refused",
        refusal: "DEBIT_NOT_FOUND",
        balance: 12_500n
      })
      assert.deepStrictEqual(yield* wallet.handle(rollbackOf("m-ev-r3", "m-ev-late"), "live"), {
        _tag: "Accepted",
        balance: 12_500n
      })
      assert.deepStrictEqual(yield* wallet.handle(debitOf("m-ev-late"), "live"), {
        _tag: "Refused",
        refusal: "DEBIT_ROLLED_BACK",
        balance: 12_500n
      })
      assert.notInclude(partner.asked, transactionEventId("bet", "m-ev-late"))
      assert.strictEqual(Option.getOrThrow(yield* (yield* PartnerPlayers).findById(player.id)).balance, 12_500n)
      const notified = (yield* MemoryCallbacks).filter((c) => c.kind !== "bet" && c.txnId.startsWith("m-ev"))
      assert.deepStrictEqual(notified.map((c) => [c.kind, c.txnId]), [["win", "m-ev-c"], ["rollback", "m-ev-d"]])
    }))
})
