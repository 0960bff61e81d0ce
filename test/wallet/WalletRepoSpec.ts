import { assert, type Vitest } from "@effect/vitest"
import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import type { NewCallback } from "../../src/domain/Callbacks.ts"
import type { PartnerPlayer } from "../../src/domain/Partner.ts"
import { accepted, refused } from "../../src/domain/WalletEvents.ts"
import type { NewTransaction, Outcome, RoundWrite } from "../../src/domain/WalletWrites.ts"
import type { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { OutboxRepo } from "../../src/wallet/outbox/OutboxRepo.ts"
import { WalletRepo } from "../../src/wallet/WalletRepo.ts"
import { givenRepoPlayer, repoTransaction, repoWinCallback } from "../support/RepoPartner.ts"

/**
 * What the ledger's atomic write promises, whichever form keeps it: WalletRepo with the players' mirror
 * (PartnerPlayers) and the outbox that reads its callbacks (OutboxRepo), run over PostgreSQL (layerSql) and over
 * memory (layerMemory) by wallet-repo.test.ts, so the twins the rules and handler specs stand on answer as the SQL
 * does: one decision writes its transaction, round, mirror and callbacks together, and the keys refuse what must
 * not be written twice.
 */
export const walletRepoSpec = (it: Vitest.MethodsNonLive<WalletRepo | PartnerPlayers | OutboxRepo | PartnerRepo>) => {
  const unique = () => randomBytes(4).toString("hex")
  const givenPlayer = givenRepoPlayer
  const transaction = repoTransaction
  const applied = (balance: bigint | null, amount = 0n, more: Partial<Outcome> = {}): Outcome => ({
    status: "applied",
    refusal: null,
    note: null,
    amount,
    balanceAfter: balance,
    answer: accepted(balance ?? 0n),
    mirror: balance,
    ...more
  })
  const create: RoundWrite = { _tag: "Create", status: "settled", refundedEarly: false, addBet: 0n, addWin: 0n }
  const win = (player: PartnerPlayer, txnId: string) => repoWinCallback(player, txnId)
  /** A bet of 500 on a balance of 10,000, opened and settled: its transaction. */
  const settledBet = (player: PartnerPlayer, txnId: string) =>
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const opened = yield* repo.openBet(transaction(player, "bet", txnId, { bet: 500n }), player)
      if (opened._tag !== "Opened") return assert.fail("not opened")
      yield* repo.settleBet(opened.transaction, applied(9_500n, -500n), [])
      return opened.transaction
    })
  const mirrorOf = (player: PartnerPlayer) =>
    Effect.map(
      Effect.flatMap(Effect.service(PartnerPlayers), (players) => players.findById(player.id)),
      (found) => Option.getOrThrow(found).balance
    )
  /** A change of a round, written at the version the round has when it is written (a decision taken now). */
  type RoundChange = Omit<Extract<RoundWrite, { readonly _tag: "Update" }>, "version">
  const versionOf = (roundRef: number) =>
    Effect.flatMap(Effect.service(WalletRepo), (repo) => repo.roundsByRef([roundRef])).pipe(
      Effect.map(([round]) => round.version)
    )
  /** Records as a decision taken now would: on the player as they are and the round at its version. */
  const record = (
    written: NewTransaction,
    outcome: Outcome,
    round: RoundWrite | RoundChange,
    callbacks: ReadonlyArray<NewCallback> = []
  ) =>
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const players = yield* PartnerPlayers
      const mirror = Option.getOrThrow(yield* players.findById(written.playerId)).balance
      const write: RoundWrite = round._tag === "Create" || "version" in round
        ? round
        : { ...round, version: yield* versionOf(round.roundRef) }
      return yield* repo.recordDecided(written, outcome, write, callbacks, { playerId: written.playerId, mirror })
    })

  it.effect("a bet opened pending reads the mirror; its settle moves the mirror, its round and writes its callbacks", () =>
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const player = yield* givenPlayer
      const txnId = `bet-${unique()}`
      const opened = yield* repo.openBet(transaction(player, "bet", txnId, { bet: 1_000n, win: 300n }), player)
      assert.strictEqual(opened._tag, "Opened")
      if (opened._tag !== "Opened") return
      assert.strictEqual(opened.player.balance, 10_000n)
      assert.deepInclude(opened.transaction, { status: "pending", bet: 1_000n, win: 300n, debitTxnId: null })
      const ask: NewCallback = {
        ...win(player, txnId),
        kind: "bet",
        eventId: `evt_ask_${txnId}`,
        asked: { error: null }
      }
      assert.isTrue(yield* repo.settleBet(opened.transaction, applied(9_300n, -700n), [ask, win(player, txnId)]))
      assert.isFalse(yield* repo.settleBet(opened.transaction, applied(9_300n, -700n), []), "settled once")
      assert.strictEqual(yield* mirrorOf(player), 9_300n)
      const settled = Option.getOrThrow(yield* repo.findTransaction("live", "sandbox", "bet", txnId))
      assert.deepInclude(settled, { status: "applied", amount: -700n, balanceAfter: 9_300n })
      assert.deepStrictEqual(settled.answer, { refusal: null, balance: 9_300n })
      const [round] = yield* repo.roundsByRef([settled.roundRef])
      assert.deepInclude(round, { status: "settled", pendingBets: 0, betTotal: 1_000n, winTotal: 300n })
      const written = yield* (yield* OutboxRepo).list({ playerId: player.id, limit: 10 })
      assert.sameDeepMembers(written.map((c) => [c.kind, c.status, c.transactionRef]), [
        ["bet", "delivered", settled.ref],
        ["win", "pending", settled.ref]
      ])
    }))

  it.effect("a transaction id is written once; a refunded round opens no bet", () =>
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const player = yield* givenPlayer
      const txnId = `once-${unique()}`
      const first = yield* record(
        transaction(player, "refund", txnId),
        applied(null, 0n, { note: "early_refund" }),
        { ...create, status: "refunded", refundedEarly: true },
        []
      )
      // The round is met first: created meanwhile, the decision is taken again; on it, the id is taken.
      const created = yield* Effect.flip(
        record(transaction(player, "refund", txnId), applied(null), create, [])
      )
      assert.strictEqual(created._tag, "RoundChanged")
      const update: RoundChange = { _tag: "Update", roundRef: first.roundRef, refund: true, addBet: 0n, addWin: 0n }
      const again = yield* Effect.flip(
        record(transaction(player, "refund", txnId), applied(null), update, [])
      )
      assert.strictEqual(again._tag, "TransactionExists")
      const late = yield* repo.openBet(
        transaction(player, "bet", `late-${txnId}`, { roundId: `round-${txnId}`, bet: 100n }),
        player
      )
      assert.strictEqual(late._tag, "NotOpened")
      assert.strictEqual(yield* mirrorOf(player), 10_000n, "a decision without a mirror leaves it")
    }))

  it.effect("a rollback before its debit holds the debit's key: the debit is never opened, only refused", () =>
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const player = yield* givenPlayer
      const debitTxnId = `debit-${unique()}`
      yield* record(
        transaction(player, "rollback", `rb-${debitTxnId}`, { debitTxnId }),
        applied(null, 0n, { note: "early_rollback" }),
        create,
        []
      )
      const opened = yield* Effect.flip(repo.openBet(transaction(player, "bet", debitTxnId, { bet: 100n }), player))
      assert.strictEqual(opened._tag, "DebitRolledBack")
      const refusal: Outcome = {
        status: "refused",
        refusal: "DEBIT_ROLLED_BACK",
        note: null,
        amount: 0n,
        balanceAfter: 10_000n,
        answer: refused("DEBIT_ROLLED_BACK", 10_000n),
        mirror: null
      }
      const written = yield* record(
        transaction(player, "bet", debitTxnId, { bet: 100n }),
        refusal,
        create,
        []
      )
      assert.deepInclude(written, { status: "refused", refusal: "DEBIT_ROLLED_BACK" })
    }))

  it.effect("a debit is undone once: a second undo is refused by the keys, one that moves nothing is written", () =>
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const player = yield* givenPlayer
      const debitTxnId = `undo-${unique()}`
      const bet = yield* settledBet(player, debitTxnId)
      const update: RoundChange = {
        _tag: "Update",
        roundRef: bet.roundRef,
        refund: false,
        addBet: -500n,
        addWin: 0n
      }
      const undo = (txnId: string, outcome: Outcome) =>
        record(
          transaction(player, "rollback", txnId, { debitTxnId, roundId: bet.roundId }),
          outcome,
          update,
          []
        )
      yield* undo(`rb1-${debitTxnId}`, applied(10_000n, 500n))
      // A second undo that moves its round nothing (the round's totals never go below 0 either) meets the key.
      const twice = yield* Effect.flip(
        record(
          transaction(player, "rollback", `rb2-${debitTxnId}`, { debitTxnId, roundId: bet.roundId }),
          applied(10_500n, 500n),
          { ...update, addBet: 0n },
          []
        )
      )
      assert.strictEqual(twice._tag, "RoundChanged")
      yield* record(
        transaction(player, "rollback", `rb3-${debitTxnId}`, { debitTxnId, roundId: bet.roundId }),
        applied(null, 0n, { note: "already_rolled_back" }),
        { ...update, addBet: 0n },
        []
      )
      assert.strictEqual(yield* mirrorOf(player), 10_000n)
      const [round] = yield* repo.roundsByRef([bet.roundRef])
      assert.strictEqual(round.betTotal, 0n, "the stake is off its round")
      const rows = yield* repo.transactionsOfRounds([bet.roundRef])
      assert.deepStrictEqual(rows.map((t) => [t.kind, t.debitTxnId, t.amount]), [
        ["bet", null, -500n],
        ["rollback", debitTxnId, 500n],
        ["rollback", debitTxnId, 0n]
      ])
    }))

  it.effect("Hub88's ids are one space for every kind; PlayFiver's and the sandbox's are one per kind", () =>
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const player = yield* givenPlayer
      const txnId = `id-${unique()}`
      for (const aggregator of ["hub88", "sandbox", "playfiver"] as const) {
        const of = (kind: NewTransaction["kind"], more: Partial<NewTransaction> = {}) =>
          transaction(player, kind, txnId, { aggregator, roundId: `round-${aggregator}-${txnId}`, ...more })
        const credit = yield* record(of("credit", { win: 100n }), applied(null, 100n), create, [])
        const update: RoundChange = { _tag: "Update", roundRef: credit.roundRef, refund: false, addBet: 0n, addWin: 0n }
        const betting = repo.openBet(of("bet", { bet: 100n }), player)
        const undoing = record(
          of("rollback", { debitTxnId: `never-${txnId}` }),
          applied(null, 0n, { note: "early_rollback" }),
          update,
          []
        )
        if (aggregator === "hub88") {
          const bet = yield* Effect.flip(betting)
          assert.deepStrictEqual([bet._tag, bet.txnId], ["TransactionExists", txnId], "a bet wearing a win's id")
          const rollback = yield* Effect.flip(undoing)
          assert.deepStrictEqual([rollback._tag, "txnId" in rollback && rollback.txnId], ["TransactionExists", txnId])
        } else {
          assert.strictEqual((yield* betting)._tag, "Opened", aggregator)
          assert.strictEqual((yield* undoing).kind, "rollback", aggregator)
        }
      }
    }))

  it.effect("the mirror is locked with the round, and a shadow player's is never written", () =>
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const players = yield* PartnerPlayers
      const player = yield* givenPlayer
      const locked = yield* repo.withRoundLocked(
        player.id,
        "sandbox",
        `round-${unique()}`,
        (round) => Effect.map(players.lockBalance(player.id), (balance) => [Option.isNone(round), balance])
      )
      assert.deepStrictEqual(locked, [true, 10_000n])
      assert.isTrue(yield* players.setMode(player.partnerId, "shadow"))
      yield* record(
        transaction(player, "credit", `free-${unique()}`, { win: 100n }),
        applied(10_100n, 100n),
        {
          ...create,
          addWin: 100n
        },
        []
      )
      assert.isNull(yield* mirrorOf(player))
    }))

  it.effect("a decision's write holds only on the round's version and the player it was decided on, else writes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const players = yield* PartnerPlayers
      const player = yield* givenPlayer
      const debitTxnId = `guard-${unique()}`
      const bet = yield* settledBet(player, debitTxnId)
      const [round] = yield* repo.roundsByRef([bet.roundRef])
      const credit = (txnId: string) =>
        transaction(player, "credit", txnId, { debitTxnId, roundId: round.roundId, win: 300n })
      const paid = (version: number) =>
        ({ _tag: "Update", roundRef: round.ref, version, refund: false, addBet: 0n, addWin: 300n }) as const
      const stale = [
        // The round written since (its settle raised the version read before it).
        { write: paid(round.version - 1), held: { playerId: player.id, mirror: 9_500n } },
        // The mirror moved since.
        { write: paid(round.version), held: { playerId: player.id, mirror: 10_000n } }
      ]
      for (const [i, { held, write }] of stale.entries()) {
        const txnId = `stale-${i}-${debitTxnId}`
        const refused = yield* Effect.flip(
          repo.recordDecided(credit(txnId), applied(9_800n, 300n), write, [win(player, txnId)], held)
        )
        assert.strictEqual(refused._tag, "RoundChanged")
        assert.isTrue(Option.isNone(yield* repo.findTransaction("live", "sandbox", "credit", txnId)), "nothing written")
      }
      assert.strictEqual(yield* mirrorOf(player), 9_500n)
      assert.strictEqual(yield* repo.callbacksWritten(player.id), 0, "no callback written")
      const [unchanged] = yield* repo.roundsByRef([round.ref])
      assert.deepInclude(unchanged, { version: round.version, winTotal: 0n })

      const txnId = `held-${debitTxnId}`
      yield* repo.recordDecided(credit(txnId), applied(9_800n, 300n), paid(round.version), [win(player, txnId)], {
        playerId: player.id,
        mirror: 9_500n
      })
      assert.strictEqual(yield* mirrorOf(player), 9_800n)
      assert.strictEqual(yield* repo.callbacksWritten(player.id), 1)
      const [written] = yield* repo.roundsByRef([round.ref])
      assert.deepInclude(written, { version: round.version + 1, winTotal: 300n })

      // A shadow player's decision holds on the count of callbacks written when its partner was asked.
      assert.isTrue(yield* players.setMode(player.partnerId, "shadow"))
      const shadowTxnId = `shadow-${debitTxnId}`
      const asked = { playerId: player.id, mirror: null, callbacksWritten: 0 }
      const late = yield* Effect.flip(
        repo.recordDecided(credit(shadowTxnId), applied(null, 300n), paid(round.version + 1), [
          win(player, shadowTxnId)
        ], asked)
      )
      assert.strictEqual(late._tag, "RoundChanged", "a callback was written since the partner was asked")
      yield* repo.recordDecided(
        credit(shadowTxnId),
        applied(null, 300n),
        paid(round.version + 1),
        [win(player, shadowTxnId)],
        { ...asked, callbacksWritten: 1 }
      )
      assert.strictEqual(yield* repo.callbacksWritten(player.id), 2)
      assert.isNull(yield* mirrorOf(player))
    }))

  it.effect("the debit ledger read: the player, the event's own transaction, the debit (whoever's) and its round", () =>
    Effect.gen(function*() {
      const repo = yield* WalletRepo
      const player = yield* givenPlayer
      const other = yield* givenPlayer
      const debitTxnId = `read-${unique()}`
      const bet = yield* settledBet(player, debitTxnId)
      const query = {
        environment: "live",
        aggregator: "sandbox",
        kind: "credit",
        txnId: `credit-${debitTxnId}`,
        debitTxnId,
        roundId: "the-credit's-own",
        playerId: player.id
      } as const
      const before = Option.getOrThrow(yield* repo.debitLedger(query))
      assert.deepInclude(before.player, { balance: 9_500n, callbacksWritten: 0 })
      assert.isUndefined(before.seen)
      assert.strictEqual(before.debit?.ref, bet.ref)
      assert.strictEqual(Option.getOrThrow(before.round).ref, bet.roundRef, "the debit's round")
      assert.deepStrictEqual(before.transactions.map((t) => t.ref), [bet.ref])

      const [round] = yield* repo.roundsByRef([bet.roundRef])
      yield* record(
        transaction(player, "credit", query.txnId, { debitTxnId, roundId: round.roundId, win: 200n }),
        applied(9_700n, 200n),
        { _tag: "Update", roundRef: round.ref, refund: false, addBet: 0n, addWin: 200n }
      )
      const after = Option.getOrThrow(yield* repo.debitLedger(query))
      assert.strictEqual(after.seen?.kind, "credit")
      assert.deepStrictEqual(after.transactions.map((t) => t.kind), ["bet", "credit"])
      assert.strictEqual(Option.getOrThrow(after.round).version, round.version + 1)

      // Someone else's debit is shown as the debit, but the round read is the event's own (none yet).
      const foreign = Option.getOrThrow(yield* repo.debitLedger({ ...query, playerId: other.id }))
      assert.strictEqual(foreign.debit?.playerId, player.id)
      assert.isTrue(Option.isNone(foreign.round))
      assert.deepStrictEqual(foreign.transactions, [])
      assert.isTrue(Option.isNone(yield* repo.debitLedger({ ...query, playerId: 987_654_321 })), "a player gone")
    }))
}
