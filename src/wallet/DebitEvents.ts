import { Effect, Option } from "effect"
import type { Environment } from "../domain/Environment.ts"
import { type PartnerPlayer, playerOf } from "../domain/Partner.ts"
import type { WalletTransaction } from "../domain/Wallet.ts"
import {
  creditRecords,
  type DebitLedger,
  debitRollbackRecords,
  debitState,
  decideCredit,
  decideDebitRollback,
  isPlayersDebit
} from "../domain/WalletDebits.ts"
import { type Credit, kindOf, refused, type Rollback, type WalletOutcome } from "../domain/WalletEvents.ts"
import type { Decided, RoundWrite } from "../domain/WalletWrites.ts"
import type { LedgerSteps } from "./LedgerSteps.ts"

/** One try at a decision on a debit's round: done, or wait for the debit, or look again. */
type Step =
  | { readonly _tag: "Done"; readonly outcome: WalletOutcome }
  | { readonly _tag: "Wait"; readonly debit: WalletTransaction }
  /** The round or the player changed between the read and the write: read again. */
  | { readonly _tag: "Again" }
  /** Another call wrote this transaction first: replay it. */
  | { readonly _tag: "Existing" }

const done = (outcome: WalletOutcome): Step => ({ _tag: "Done", outcome })

/**
 * The events that name a debit (wallet/Wallet.ts hands them here): a credit paying it and a rollback undoing it. Each
 * is decided on one read of the ledger (WalletRepo.debitLedger: the player, the debit, its round and the round's
 * transactions, at one moment), by the rules of domain/WalletDebits.ts, and written by one statement with its round,
 * the mirror and its notification, which compares the round's version and the player's state as it writes: changed
 * since the read, nothing is written and the event is read and decided again. No transaction holds the round while
 * the service sends its next statement. The database has the last word on the races: a second undo of one debit, or
 * a tombstone beside its debit, is refused by its unique keys, and the decision is taken again on what is there.
 */
export const makeDebitEvents = (steps: LedgerSteps) => {
  const { asDecided, askedBalance, balanceOf, now, pendingBets, players, record, repo, replay, replayStored } = steps

  /** Writes a decision; a conflict with a write made since its read is another look. */
  const write = (
    event: Credit | Rollback,
    player: PartnerPlayer,
    decided: Decided & { readonly round: RoundWrite },
    held: ReturnType<typeof asDecided>,
    roundId: string
  ): Effect.Effect<Step> =>
    record(event, player, decided, decided.round, held, roundId).pipe(
      Effect.map(done),
      Effect.catchTag("TransactionExists", () => Effect.succeed<Step>({ _tag: "Existing" })),
      Effect.catchTag(["RoundChanged", "DebitRolledBack"], () => Effect.succeed<Step>({ _tag: "Again" }))
    )

  /**
   * Decides `event` until it is done: the player by its user code (of the aggregator's environment), the ledger read,
   * a transaction written before under the event's id replayed, else `decide`'s step, waiting for a pending debit or
   * reading again when the write met a change.
   */
  const decideOnLedger = (
    event: Credit | Rollback,
    environment: Environment,
    decide: (ledger: DebitLedger, player: PartnerPlayer, tries: number) => Effect.Effect<Step>
  ) =>
    Effect.gen(function*() {
      const found = Option.filter(
        yield* players.identityByUserCode(event.userCode),
        (who) => who.environment === environment
      )
      if (Option.isNone(found)) return refused("INVALID_USER", 0n)
      const who = found.value
      let tries = 1
      while (true) {
        const read = yield* repo.debitLedger({
          environment,
          aggregator: event.aggregator,
          kind: kindOf(event),
          txnId: event.txnId,
          debitTxnId: event.debitTxnId!,
          roundId: event.roundId,
          playerId: who.id
        })
        if (Option.isNone(read)) return refused("INVALID_USER", 0n)
        const ledger = read.value
        const player = playerOf(who, ledger.player)
        if (ledger.seen !== undefined) return yield* replay(ledger.seen, event, player)
        const step = yield* decide(ledger, player, tries)
        switch (step._tag) {
          case "Done":
            return step.outcome
          case "Existing":
            return yield* replayStored(event, player)
          case "Wait":
            yield* pendingBets.awaitSettled(step.debit)
            break
          case "Again":
            // A shadow player's balance is asked again with the next try, and taken as asked after a few.
            tries++
            break
        }
      }
    })

  const credit = Effect.fn("Wallet.credit")(function*(event: Credit, environment: Environment) {
    return yield* decideOnLedger(event, environment, (ledger, player, tries) =>
      Effect.gen(function*() {
        const { debit } = ledger
        // No debit of this player's: refused, and not written, so a credit sent before its debit can be retried.
        if (debit === undefined || !isPlayersDebit(debit, player)) {
          return done(refused("DEBIT_NOT_FOUND", yield* steps.currentBalance(player)))
        }
        const decision = decideCredit(debitState(ledger.transactions, debit.txnId, ledger.round), player)
        if (decision._tag === "Wait") return { _tag: "Wait", debit: decision.debit }
        const asked = yield* askedBalance(player)
        const mirror = player.balance ?? balanceOf(asked)
        if (decision._tag !== "Pay") {
          return done(refused(decision._tag === "RoundRefunded" ? "ROUND_REFUNDED" : "DEBIT_NOT_FOUND", mirror))
        }
        const slug = yield* steps.slugOf(player)
        const decided = creditRecords(
          event,
          debit,
          player,
          slug,
          Option.getOrThrow(ledger.round),
          mirror,
          yield* now,
          player.balance === null
        )
        return yield* write(event, player, decided, asDecided(player, asked, tries), debit.roundId)
      }))
  })

  const rollback = Effect.fn("Wallet.rollback")(function*(event: Rollback, environment: Environment) {
    return yield* decideOnLedger(event, environment, (ledger, player, tries) =>
      Effect.gen(function*() {
        const { debit } = ledger
        if (debit !== undefined && !isPlayersDebit(debit, player)) {
          return done(refused("DEBIT_NOT_FOUND", yield* steps.currentBalance(player)))
        }
        // The debit's round; a debit not seen yet leaves its tombstone on the rollback's own.
        const roundId = debit?.roundId ?? event.roundId
        const decision = decideDebitRollback(debitState(ledger.transactions, event.debitTxnId!, ledger.round), player)
        if (decision._tag === "Wait") return { _tag: "Wait", debit: decision.debit }
        const asked = yield* askedBalance(player)
        const mirror = player.balance ?? balanceOf(asked)
        if (decision._tag === "NoDebit") return done(refused("DEBIT_NOT_FOUND", mirror))
        const slug = yield* steps.slugOf(player)
        const decided = debitRollbackRecords(
          decision,
          player,
          slug,
          ledger.round,
          mirror,
          yield* now,
          player.balance === null
        )
        return yield* write(event, player, decided, asDecided(player, asked, tries), roundId)
      }))
  })

  return { credit, rollback }
}
