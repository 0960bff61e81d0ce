import { Effect, Option } from "effect"
import type { Environment } from "../domain/Environment.ts"
import type { PartnerPlayer } from "../domain/Partner.ts"
import type { Round, WalletTransaction } from "../domain/Wallet.ts"
import {
  creditRecords,
  debitRollbackRecords,
  debitState,
  decideCredit,
  decideDebitRollback,
  isPlayersDebit
} from "../domain/WalletDebits.ts"
import { type Credit, refused, type Rollback, type WalletOutcome } from "../domain/WalletEvents.ts"
import type { DebitRolledBack, RoundChanged, TransactionExists } from "../domain/WalletRecords.ts"
import type { LedgerSteps } from "./LedgerSteps.ts"

/** One try at a decision on a debit's round: done, or wait for the debit, or look again. */
type Step =
  | { readonly _tag: "Done"; readonly outcome: WalletOutcome }
  | { readonly _tag: "Wait"; readonly debit: WalletTransaction }
  /** The round or the debit changed under the decision, or a shadow player's balance did: look again. */
  | { readonly _tag: "Again"; readonly balanceChanged: boolean }
  /** Another call wrote this transaction first: replay it. */
  | { readonly _tag: "Existing" }

/**
 * The events that name a debit (wallet/Wallet.ts hands them here): a credit paying it and a rollback undoing it. Each
 * is decided with the debit's round locked (a rollback of a debit not seen yet, on its own round), by the rules of
 * domain/WalletDebits.ts, and written in one step with its round, the mirror and its notification. The database has
 * the last word on the races: a second undo of one debit, or a tombstone beside its debit, is refused by its unique
 * keys, and the decision is taken again on what is there.
 */
export const makeDebitEvents = (steps: LedgerSteps) => {
  const { balanceOf, balanceHolds, now, pendingBets, players, record, repo, replay, replayStored } = steps

  /** Decides on the round `roundId` locked, turning the write's conflicts into another look. */
  const onRound = (
    player: PartnerPlayer,
    event: Credit | Rollback,
    roundId: string,
    decide: (round: Option.Option<Round>) => Effect.Effect<Step, RoundChanged | TransactionExists | DebitRolledBack>
  ): Effect.Effect<Step> =>
    repo.withRoundLocked(player.id, event.aggregator, roundId, decide).pipe(
      Effect.catchTag("TransactionExists", () => Effect.succeed<Step>({ _tag: "Existing" })),
      Effect.catchTag(
        ["RoundChanged", "DebitRolledBack"],
        () => Effect.succeed<Step>({ _tag: "Again", balanceChanged: false })
      )
    )

  /** Runs `step` until it is done: waiting for a pending debit, replaying a transaction written first. */
  const settle = (
    event: Credit | Rollback,
    player: PartnerPlayer,
    step: (tries: number) => Effect.Effect<Step>
  ) =>
    Effect.gen(function*() {
      let tries = 1
      while (true) {
        const taken = yield* step(tries)
        switch (taken._tag) {
          case "Done":
            return taken.outcome
          case "Existing":
            return yield* replayStored(event, player)
          case "Wait":
            yield* pendingBets.awaitSettled(taken.debit)
            break
          case "Again":
            if (taken.balanceChanged) tries++
            break
        }
      }
    })

  /** The debit the event names, of its aggregator in the player's environment. */
  const debitOf = (event: Credit | Rollback, player: PartnerPlayer) =>
    repo.findTransaction(player.environment, event.aggregator, "bet", event.debitTxnId!)

  /** The player, and nothing done yet under this id: else the refusal or the replay. */
  const start = (
    event: Credit | Rollback,
    environment: Environment,
    decide: (player: PartnerPlayer) => Effect.Effect<WalletOutcome>
  ) =>
    Effect.gen(function*() {
      const found = yield* steps.playerOf(event.userCode, environment)
      if (Option.isNone(found)) return refused("INVALID_USER", 0n)
      const player = found.value
      const existing = yield* steps.findSeen(event, environment)
      if (Option.isSome(existing)) return yield* replay(existing.value, event, player)
      return yield* decide(player)
    })

  const credit = Effect.fn("Wallet.credit")(function*(event: Credit, environment: Environment) {
    return yield* start(event, environment, (player) =>
      Effect.gen(function*() {
        const slug = yield* steps.slugOf(player)
        return yield* settle(event, player, (tries) =>
          Effect.gen(function*() {
            const named = yield* debitOf(event, player)
            // No debit of this player's: refused, and not written, so a credit sent before its debit can be retried.
            if (Option.isNone(named) || !isPlayersDebit(named.value, player)) {
              return { _tag: "Done", outcome: refused("DEBIT_NOT_FOUND", yield* steps.currentBalance(player)) } as const
            }
            const debit = named.value
            const asked = yield* steps.askedBalance(player)
            return yield* onRound(player, event, debit.roundId, (round) =>
              Effect.gen(function*() {
                const ref = Option.getOrThrow(round).ref
                const state = debitState(yield* repo.transactionsOfRounds([ref]), debit.txnId, round)
                const decision = decideCredit(state, player)
                if (decision._tag === "Wait") return { _tag: "Wait", debit: decision.debit } as const
                const locked = yield* players.lockBalance(player.id)
                if (!(yield* balanceHolds(player, asked, tries))) {
                  return { _tag: "Again", balanceChanged: true } as const
                }
                const mirror = locked ?? balanceOf(asked)
                if (decision._tag !== "Pay") {
                  const refusal = decision._tag === "RoundRefunded" ? "ROUND_REFUNDED" : "DEBIT_NOT_FOUND"
                  return { _tag: "Done", outcome: refused(refusal, mirror) } as const
                }
                const decided = creditRecords(
                  event,
                  state.debit!,
                  player,
                  slug,
                  Option.getOrThrow(round),
                  mirror,
                  yield* now,
                  locked === null
                )
                return {
                  _tag: "Done",
                  outcome: yield* record(event, player, decided, decided.round, debit.roundId)
                } as const
              }))
          }))
      }))
  })

  const rollback = Effect.fn("Wallet.rollback")(function*(event: Rollback, environment: Environment) {
    return yield* start(event, environment, (player) =>
      Effect.gen(function*() {
        const slug = yield* steps.slugOf(player)
        return yield* settle(event, player, (tries) =>
          Effect.gen(function*() {
            const named = yield* debitOf(event, player)
            if (Option.isSome(named) && !isPlayersDebit(named.value, player)) {
              return { _tag: "Done", outcome: refused("DEBIT_NOT_FOUND", yield* steps.currentBalance(player)) } as const
            }
            // The debit's round; a debit not seen yet leaves its tombstone on the rollback's own.
            const roundId = Option.match(named, { onNone: () => event.roundId, onSome: (debit) => debit.roundId })
            const asked = yield* steps.askedBalance(player)
            return yield* onRound(player, event, roundId, (round) =>
              Effect.gen(function*() {
                const transactions = Option.isSome(round) ? yield* repo.transactionsOfRounds([round.value.ref]) : []
                const decision = decideDebitRollback(debitState(transactions, event.debitTxnId!, round), player)
                if (decision._tag === "Wait") return { _tag: "Wait", debit: decision.debit } as const
                // Seen a moment ago and gone from its round now cannot be; looked at again all the same.
                if (decision._tag === "Tombstone" && Option.isSome(named)) {
                  return { _tag: "Again", balanceChanged: false } as const
                }
                const locked = yield* players.lockBalance(player.id)
                if (!(yield* balanceHolds(player, asked, tries))) {
                  return { _tag: "Again", balanceChanged: true } as const
                }
                const mirror = locked ?? balanceOf(asked)
                if (decision._tag === "NoDebit") {
                  return { _tag: "Done", outcome: refused("DEBIT_NOT_FOUND", mirror) } as const
                }
                const decided = debitRollbackRecords(
                  decision,
                  player,
                  slug,
                  round,
                  mirror,
                  yield* now,
                  locked === null
                )
                return { _tag: "Done", outcome: yield* record(event, player, decided, decided.round, roundId) } as const
              }))
          }))
      }))
  })

  return { credit, rollback }
}
