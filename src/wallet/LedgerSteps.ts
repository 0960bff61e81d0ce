import { Clock, Duration, Effect, Option } from "effect"
import { idsAcrossKinds } from "../domain/Aggregator.ts"
import type { PartnerPlayer, PlayerIdentity } from "../domain/Partner.ts"
import type { Environment } from "../domain/Environment.ts"
import type { StoredOutcome, WalletTransaction } from "../domain/Wallet.ts"
import { accepted, fingerprint, kindOf, type MoneyEvent, refused, type WalletOutcome } from "../domain/WalletEvents.ts"
import { newTransaction } from "../domain/WalletRecords.ts"
import type { Decided, PlayerAsDecided, RoundWrite } from "../domain/WalletWrites.ts"
import { CallbackTargets } from "../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../partners/PartnerPlayers.ts"
import { CallbacksConfig } from "./CallbacksConfig.ts"
import { PartnerAsks, type ShadowBalance } from "./PartnerAsks.ts"
import { PendingBets } from "./PendingBets.ts"
import { WalletRepo } from "./WalletRepo.ts"

/** Times a decision on a shadow player's balance asks it again because another decision of theirs was written meanwhile. */
const balanceTries = 3

/**
 * The steps every kind of wallet event is decided with (wallet/Wallet.ts, wallet/DebitEvents.ts): who the player is,
 * a shadow player's balance and whether it still holds under the round's lock, replaying a transaction seen before,
 * and recording one decided without a pending step.
 */
export const makeLedgerSteps = Effect.gen(function*() {
  const repo = yield* WalletRepo
  const players = yield* PartnerPlayers
  const targets = yield* CallbackTargets
  const asks = yield* PartnerAsks
  const pendingBets = yield* PendingBets
  const config = yield* CallbacksConfig
  const pendingMillis = Duration.toMillis(config.pendingTimeout)
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
  /** Where the player's callbacks go: its partner's target in the player's environment. */
  const targetOf = (player: PartnerPlayer) => targets.get(player.partnerId, player.environment)
  const slugOf = (player: PartnerPlayer) =>
    Effect.map(
      targetOf(player),
      Option.match({ onNone: () => `partner-${player.partnerId}`, onSome: (t) => t.partnerSlug })
    )
  /** The player behind a user code, if it is of the calling aggregator's environment. */
  const playerOf = (userCode: number, environment: Environment) =>
    Effect.map(players.findByUserCode(userCode), Option.filter((player) => player.environment === environment))
  /** A shadow player's balance (the partner's, asked now); null for a persisted player, whose mirror is kept. */
  const askedBalance = (player: PartnerPlayer) =>
    player.balance === null
      ? Effect.map(asks.shadowBalance(player), Option.some)
      : Effect.succeed(Option.none<ShadowBalance>())
  /**
   * Whether a decision on the round locked now may use `asked`: no callback of the player was written since it
   * was asked (that decision may not be in it). After `balanceTries` asks it is taken as it is, so that a player
   * whose calls never stop is still answered.
   */
  const balanceHolds = (player: PartnerPlayer, asked: Option.Option<ShadowBalance>, tries: number) =>
    Option.isNone(asked) || tries >= balanceTries ? Effect.succeed(true) : asks.isCurrent(player, asked.value)
  const balanceOf = (asked: Option.Option<ShadowBalance>) => Option.getOrUndefined(asked)?.balance ?? 0n
  /**
   * The player as a decision takes them, for its write to compare (balanceHolds' rule, held by the write): the mirror
   * read, and for a shadow player asked fewer than `balanceTries` times, the callbacks counted when it was asked.
   */
  const asDecided = (player: PartnerPlayer, asked: Option.Option<ShadowBalance>, tries: number): PlayerAsDecided => ({
    playerId: player.id,
    mirror: player.balance,
    callbacksWritten: Option.isSome(asked) && tries < balanceTries ? asked.value.callbacks : undefined
  })
  /** The balance to answer a refusal with: the mirror, or a shadow player's balance asked now. */
  const currentBalance = (player: PartnerPlayer) =>
    player.balance === null ? Effect.map(asks.shadowBalance(player), (asked) => asked.balance ?? 0n) : Effect.succeed(
      player.balance
    )

  /** A kept outcome as the aggregator hears it again: a shadow player's was kept without its balance, asked anew. */
  const answerAgain = Effect.fn("Wallet.answerAgain")(function*(kept: StoredOutcome, player: PartnerPlayer) {
    const balance = kept.balance ?? (yield* asks.shadowBalance(player)).balance ?? 0n
    return kept.refusal === null ? accepted(balance) : refused(kept.refusal, balance)
  })

  /** A transaction seen before: the same payload gets its answer (once settled); another payload is refused. */
  const replay = Effect.fn("Wallet.replay")(
    function*(existing: WalletTransaction, event: MoneyEvent, player: PartnerPlayer) {
      if (existing.fingerprint !== null && existing.fingerprint !== fingerprint(event)) {
        yield* Effect.logWarning("Wallet call refused: its transaction id was used before with another payload")
          .pipe(
            Effect.annotateLogs({ kind: existing.kind, txn_id: existing.txnId, user_code: event.userCode })
          )
        return refused("DUPLICATE_TRANSACTION", yield* currentBalance(player))
      }
      const settled = existing.status === "pending" ? yield* pendingBets.awaitSettled(existing) : existing
      return yield* answerAgain(settled.answer!, player)
    }
  )

  /**
   * The transaction an event's id already names, replayed. None of the event's kind holds it when the key met was
   * that of an aggregator whose ids are one space for every kind (Hub88's: another kind took the id at the same
   * moment): a used id, refused as a changed repeat is.
   */
  const replayStored = Effect.fn("Wallet.replayStored")(function*(event: MoneyEvent, player: PartnerPlayer) {
    const found = yield* repo.findTransaction(player.environment, event.aggregator, kindOf(event), event.txnId)
    if (Option.isSome(found) || !idsAcrossKinds(event.aggregator)) {
      return yield* replay(Option.getOrThrow(found), event, player)
    }
    yield* Effect.logWarning("Wallet call refused: its transaction id was taken by another kind of transaction").pipe(
      Effect.annotateLogs({ kind: kindOf(event), txn_id: event.txnId, user_code: event.userCode })
    )
    return refused("DUPLICATE_TRANSACTION", yield* currentBalance(player))
  })

  /** The transaction an event's id names, if seen before. */
  const findSeen = (event: MoneyEvent, environment: Environment) =>
    repo.findTransaction(environment, event.aggregator, kindOf(event), event.txnId)

  /**
   * Writes a transaction decided without a pending step, with its round and callbacks, if the round and the player
   * are still as decided on (`asDecided`); its answer.
   */
  const record = (
    event: MoneyEvent,
    player: PartnerPlayer,
    decided: Decided,
    write: RoundWrite,
    asDecided: PlayerAsDecided,
    roundId: string = event.roundId
  ) =>
    Effect.as(
      repo.recordDecided(
        { ...newTransaction(event, player), roundId },
        decided.outcome,
        write,
        decided.callbacks,
        asDecided
      ),
      decided.outcome.answer
    )

  /** The player as it is now, for the paths that decide without a pending step; INVALID_USER when it is gone. */
  const withPlayer = (who: PlayerIdentity, decide: (player: PartnerPlayer) => Effect.Effect<WalletOutcome>) =>
    Effect.flatMap(
      players.findById(who.id),
      (player): Effect.Effect<WalletOutcome> =>
        Option.isNone(player) ? Effect.succeed(refused("INVALID_USER", 0n)) : decide(player.value)
    )

  return {
    repo,
    players,
    targets,
    asks,
    pendingBets,
    pendingMillis,
    now,
    targetOf,
    slugOf,
    playerOf,
    askedBalance,
    balanceHolds,
    balanceOf,
    asDecided,
    currentBalance,
    replay,
    replayStored,
    findSeen,
    record,
    withPlayer
  }
})

export type LedgerSteps = Effect.Success<typeof makeLedgerSteps>
