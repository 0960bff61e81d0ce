import { Cache, Clock, Context, Duration, Effect, Equal, Hash, Layer, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import {
  balanceBody,
  betBody,
  type CallbackParty,
  type CallbackTransaction,
  refundBody,
  rollbackBody,
  transactionEventId,
  winBody
} from "../domain/Callbacks.ts"
import { type Cents, fromCents, toCents } from "../domain/Money.ts"
import { IdFromBigInt, NumberFromNumeric } from "../platform/SqlCodecs.ts"
import { type AnsweredBet, CallbackOutbox, type NewCallback } from "./CallbackOutbox.ts"
import { type CallbackTarget, PartnerCallbacks } from "./PartnerCallbacks.ts"
import {
  accepted,
  type Refusal,
  refused,
  type WalletAnswer,
  type WalletCall
} from "./WalletProtocol.ts"

/** A refund that names no transaction or no round cannot be matched to anything. */
export class InvalidWalletCall extends Schema.TaggedError<InvalidWalletCall>()("InvalidWalletCall", {
  message: Schema.String
}) {}

const PlayerRow = Schema.Struct({
  id: IdFromBigInt,
  partner_id: IdFromBigInt,
  slug: Schema.String,
  status: Schema.String,
  external_player_id: Schema.String,
  internal_user_id: IdFromBigInt,
  balance: NumberFromNumeric,
  callback_url: Schema.NullOr(Schema.String),
  webhook_secret: Schema.String
})
type PlayerRow = typeof PlayerRow.Type

const StoredAnswer = Schema.Struct({ msg: Schema.String, balance: Schema.Finite })

const PlayerWithAnswer = Schema.Struct({ ...PlayerRow.fields, stored: Schema.NullOr(StoredAnswer) })

// Decoders built once: each call of the wallet reads through them.
const decodePlayerRows = Schema.decodeUnknownEffect(Schema.Array(PlayerRow))
const decodePlayerWithAnswerRows = Schema.decodeUnknownEffect(Schema.Array(PlayerWithAnswer))
const decodeStoredAnswer = Schema.decodeUnknownEffect(StoredAnswer)

/** What a wallet call decided, written in one transaction with its callbacks. */
interface Decision {
  readonly outcome: "applied" | "refused" | "already_refunded"
  readonly refusal: Refusal | null
  /** The change to the player's balance. */
  readonly amount: Cents
  readonly balanceAfter: Cents
  readonly answer: WalletAnswer
  readonly notifications: ReadonlyArray<NewCallback>
}

/** Concurrent calls with one transaction id share one run: equal by the id, whatever else they carry. */
class TransactionCall implements Equal.Equal {
  readonly txnId: string
  readonly run: Effect.Effect<WalletAnswer, InvalidWalletCall>
  constructor(txnId: string, run: Effect.Effect<WalletAnswer, InvalidWalletCall>) {
    this.txnId = txnId
    this.run = run
  }
  [Equal.symbol](that: Equal.Equal): boolean {
    return that instanceof TransactionCall && that.txnId === this.txnId
  }
  [Hash.symbol](): number {
    return Hash.string(this.txnId)
  }
}

/**
 * The aggregator's wallet calls, answered for the partner who keeps the
 * player's money. Every transaction id is recorded once in the ledger
 * (wallet_transactions) with the answer given, so a repeat (or 50 at once)
 * moves nothing again and gets that answer. A stake is taken only when the
 * partner confirms it; a partner that is down, slow or answers garbage gets
 * the bet refused and a rollback notification, so if it did take the stake
 * it gives it back. Wins and refunds are notifications through the outbox,
 * written in the same transaction as the ledger entry.
 */
export class Wallet extends Context.Service<Wallet, {
  handle(call: WalletCall): Effect.Effect<WalletAnswer, InvalidWalletCall>
}>()("partner-api/callbacks/Wallet") {
  static readonly layer = Layer.effect(
    Wallet,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const partners = yield* PartnerCallbacks
      const outbox = yield* CallbackOutbox

      const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

      const findPlayer = (userCode: number) =>
        sql`
          SELECT pp.id, pp.partner_id, p.slug, p.status, pp.external_player_id, pp.internal_user_id, pp.balance,
                 p.callback_url, p.webhook_secret
          FROM partner_players pp JOIN partners p ON p.id = pp.partner_id
          WHERE pp.internal_user_id = ${userCode}
        `.pipe(
          Effect.flatMap(decodePlayerRows),
          Effect.map((rows) => Option.fromNullishOr(rows[0])),
          Effect.orDie
        )

      /** The player behind a user code and, when this transaction id was seen before, the answer it got: one query. */
      const lookup = (userCode: number, txnId: string) =>
        sql`
          SELECT pp.id, pp.partner_id, p.slug, p.status, pp.external_player_id, pp.internal_user_id, pp.balance,
                 p.callback_url, p.webhook_secret,
                 (SELECT answer FROM wallet_transactions WHERE txn_id = ${txnId}) AS stored
          FROM partner_players pp JOIN partners p ON p.id = pp.partner_id
          WHERE pp.internal_user_id = ${userCode}
        `.pipe(
          Effect.flatMap(decodePlayerWithAnswerRows),
          Effect.map((rows) => ({
            player: Option.fromNullishOr(rows[0]),
            stored: Option.fromNullishOr(rows[0]?.stored) as Option.Option<WalletAnswer>
          })),
          Effect.orDie
        )

      const storedAnswer = (txnId: string) =>
        sql<{ answer: unknown }>`SELECT answer FROM wallet_transactions WHERE txn_id = ${txnId}`.pipe(
          Effect.flatMap((rows) =>
            rows.length === 0
              ? Effect.succeed(Option.none<WalletAnswer>())
              : Effect.map(decodeStoredAnswer(rows[0].answer), (answer) => Option.some(answer as WalletAnswer))
          ),
          Effect.orDie
        )

      const partyOf = (player: PlayerRow): CallbackParty => ({
        partnerSlug: player.slug,
        externalPlayerId: player.external_player_id,
        userCode: player.internal_user_id
      })
      const targetOf = (player: PlayerRow): Option.Option<CallbackTarget> =>
        player.status === "active" && player.callback_url !== null
          ? Option.some({ partnerId: player.partner_id, callbackUrl: player.callback_url, webhookSecret: player.webhook_secret })
          : Option.none()

      interface Recording {
        readonly kind: "bet" | "refund"
        readonly player: PlayerRow
        readonly txn: CallbackTransaction
        readonly amounts: { readonly bet: Cents; readonly win: Cents }
        readonly betAsked?: { readonly eventId: string; readonly body: string; readonly error: string | null } | undefined
      }

      /**
       * One statement writes a decision: the ledger entry (once per transaction id: a copy that got there
       * first wins), the mirror, the bet callback's record, the notifications and their players' lines.
       * Everything after the ledger entry happens only if the entry was written, and a single statement is
       * all-or-nothing by itself.
       */
      const write = ({ amounts, betAsked, kind, player, txn }: Recording, decision: Decision) => {
        const callbacks: Array<NewCallback | AnsweredBet> = [...decision.notifications]
        if (betAsked !== undefined) {
          callbacks.unshift({
            partnerId: player.partner_id,
            playerId: player.id,
            kind: "bet",
            txnId: txn.txnId,
            eventId: betAsked.eventId,
            body: betAsked.body,
            error: betAsked.error
          })
        }
        return sql<{ recorded: boolean; lines: number }>`
          WITH ledger AS (
            INSERT INTO wallet_transactions (txn_id, kind, partner_id, player_id, round_id, game_code, provider_code, bet, win,
                                             amount, balance_after, outcome, refusal, answer)
            VALUES (${txn.txnId}, ${kind}, ${player.partner_id}, ${player.id}, ${txn.roundId}, ${txn.gameCode},
                    ${txn.providerCode}, ${fromCents(amounts.bet)}, ${fromCents(amounts.win)}, ${fromCents(decision.amount)},
                    ${fromCents(decision.balanceAfter)}, ${decision.outcome}, ${decision.refusal},
                    ${JSON.stringify(decision.answer)}::jsonb)
            ON CONFLICT DO NOTHING
            RETURNING id
          ),
          mirror AS (
            UPDATE partner_players SET balance = ${fromCents(decision.balanceAfter)}, updated_at = now()
            WHERE id = ${player.id} AND ${decision.outcome === "applied"} AND EXISTS (SELECT 1 FROM ledger)
            RETURNING id
          ),
          ${outbox.writing(callbacks, "ledger")}
          SELECT EXISTS (SELECT 1 FROM ledger) AS recorded, (SELECT count(*) FROM scheduled_lines)::int AS lines
        `.pipe(Effect.map(([row]) => row.recorded))
      }

      /** What was recorded answers; if a copy of this call got there first (another instance), its answer does. */
      const answerOf = (txnId: string, decision: Decision) => (recorded: boolean) =>
        recorded
          ? Effect.succeed(decision.answer)
          : Effect.flatMap(storedAnswer(txnId), Option.match({ onSome: Effect.succeed, onNone: () => Effect.die("lost transaction") }))

      /** Records a decision that does not depend on the player's balance as this service last knew it. */
      const record = (recording: Recording, decision: Decision) =>
        write(recording, decision).pipe(Effect.orDie, Effect.flatMap(answerOf(recording.txn.txnId, decision)))

      /**
       * Records a decision made from the player's mirrored balance (a free round's win, a refund): the player's
       * row is locked first, so such calls for one player take turns and never lose an update.
       */
      const recordFromMirror = (recording: Recording, decide: (mirror: Cents) => Effect.Effect<Decision>) =>
        sql.withTransaction(Effect.gen(function*() {
          const [locked] = yield* sql<{ balance: string }>`
            SELECT balance FROM partner_players WHERE id = ${recording.player.id} FOR UPDATE
          `
          const decision = yield* decide(toCents(Number(locked.balance)))
          return { decision, recorded: yield* write(recording, decision) }
        })).pipe(
          Effect.orDie,
          Effect.flatMap(({ decision, recorded }) => answerOf(recording.txn.txnId, decision)(recorded))
        )

      const notification = (player: PlayerRow, kind: NewCallback["kind"], txnId: string, body: string): NewCallback => ({
        partnerId: player.partner_id,
        playerId: player.id,
        kind,
        txnId,
        eventId: transactionEventId(kind as "win" | "refund" | "rollback", txnId),
        body
      })

      const refusedDecision = (refusal: Refusal, mirror: Cents, answerBalance: Cents = mirror): Decision => ({
        outcome: "refused",
        refusal,
        amount: 0,
        balanceAfter: mirror,
        answer: refused(refusal, answerBalance),
        notifications: []
      })

      const balance = (userCode: number) =>
        Effect.gen(function*() {
          const found = yield* findPlayer(userCode)
          if (Option.isNone(found) || found.value.status !== "active") return refused("INVALID_USER", 0)
          const player = found.value
          const mirror = toCents(player.balance)
          const target = targetOf(player)
          if (Option.isNone(target)) return accepted(mirror)
          const asked = balanceBody(partyOf(player), yield* now)
          const answer = yield* partners.ask(target.value, asked.eventId, asked.body).pipe(Effect.result)
          if (answer._tag === "Failure") {
            // A balance moves no money: the last one the partner confirmed is a fair answer while it is away.
            yield* Effect.logWarning("Partner balance callback failed; answering the last known balance").pipe(
              Effect.annotateLogs({ partner_id: player.partner_id, player_id: player.id, detail: answer.failure.message })
            )
            return accepted(mirror)
          }
          const reply = answer.success
          if (reply._tag === "UnknownPlayer") return refused("INVALID_USER", 0)
          const confirmed = reply._tag === "Balance" ? reply.balance : reply.balance ?? mirror
          yield* sql`UPDATE partner_players SET balance = ${fromCents(confirmed)}, updated_at = now() WHERE id = ${player.id}`
            .pipe(Effect.orDie)
          return accepted(confirmed)
        })

      const winBet = (call: Extract<WalletCall, { type: "WinBet" }>) =>
        Effect.gen(function*() {
          const slot = call.slot
          const txn: CallbackTransaction = {
            txnId: slot.txn_id,
            roundId: slot.round_id ?? null,
            gameCode: slot.game_code ?? null,
            providerCode: slot.provider_code ?? null
          }
          const { player: found, stored } = yield* lookup(call.user_code, txn.txnId)
          if (Option.isSome(stored)) return stored.value
          if (Option.isNone(found)) return refused("INVALID_USER", 0)
          const player = found.value
          const bet = slot.bet ?? 0
          const win = slot.win ?? 0
          const recording: Recording = { kind: "bet", player, txn, amounts: { bet, win } }
          const party = partyOf(player)
          const at = yield* now
          const target = targetOf(player)
          // A refusal moves nothing: it answers the balance last confirmed (or the partner's own figure).
          const mirror = toCents(player.balance)

          if (Option.isNone(target)) return yield* record(recording, refusedDecision("INVALID_USER", mirror, 0))

          const applied = (balanceAfter: Cents): Decision => ({
            outcome: "applied",
            refusal: null,
            amount: win - bet,
            balanceAfter,
            answer: accepted(balanceAfter),
            notifications: win > 0
              ? [notification(player, "win", txn.txnId, winBody(party, txn, win, balanceAfter, at))]
              : []
          })

          if (bet === 0) {
            // Nothing to take (a free round): the win is credited through the outbox.
            return yield* recordFromMirror(recording, (locked) => Effect.succeed(applied(locked + win)))
          }

          const eventId = transactionEventId("bet", txn.txnId)
          const body = betBody(party, txn, bet, at)
          const answer = yield* partners.ask(target.value, eventId, body).pipe(Effect.result)
          if (answer._tag === "Failure") {
            yield* Effect.logWarning("Partner bet callback failed; bet refused and rolled back").pipe(
              Effect.annotateLogs({ partner_id: player.partner_id, txn_id: txn.txnId, detail: answer.failure.message })
            )
            return yield* record({ ...recording, betAsked: { eventId, body, error: answer.failure.message } }, {
              ...refusedDecision("INSUFFICIENT_USER_FUNDS", mirror),
              notifications: [notification(player, "rollback", txn.txnId, rollbackBody(party, txn, bet, at))]
            })
          }
          const reply = answer.success
          const asked: Recording = { ...recording, betAsked: { eventId, body, error: null } }
          switch (reply._tag) {
            case "Balance":
              return yield* record(asked, applied(reply.balance + win))
            case "InsufficientFunds":
              return yield* record(asked, refusedDecision("INSUFFICIENT_USER_FUNDS", mirror, reply.balance ?? mirror))
            case "UnknownPlayer":
              return yield* record(asked, refusedDecision("INVALID_USER", mirror, 0))
          }
        })

      const RoundRow = Schema.Struct({
        seen: Schema.Int,
        net: NumberFromNumeric,
        bet: NumberFromNumeric,
        win: NumberFromNumeric,
        refunded: Schema.Boolean
      })
      const decodeRoundRows = Schema.decodeUnknownEffect(Schema.Array(RoundRow))

      const refund = (call: Extract<WalletCall, { type: "Refund" }>) =>
        Effect.gen(function*() {
          const txnId = call.slot?.txn_id ?? call.txn_id
          const roundId = call.slot?.round_id ?? call.round_id
          if (txnId === undefined || roundId === undefined || roundId === null) {
            return yield* new InvalidWalletCall({ message: "A refund needs txn_id and round_id (in slot or at the top level)." })
          }
          const txn: CallbackTransaction = {
            txnId,
            roundId,
            gameCode: call.slot?.game_code ?? null,
            providerCode: call.slot?.provider_code ?? null
          }
          const { player: found, stored } = yield* lookup(call.user_code, txnId)
          if (Option.isSome(stored)) return stored.value
          if (Option.isNone(found)) return refused("INVALID_USER", 0)
          const player = found.value
          const party = partyOf(player)
          const at = yield* now

          return yield* recordFromMirror({ kind: "refund", player, txn, amounts: { bet: 0, win: 0 } }, (mirror) =>
            Effect.gen(function*() {
              const [round] = yield* sql`
                SELECT count(*)::int AS seen,
                       coalesce(sum(amount) FILTER (WHERE outcome = 'applied'), 0)::text AS net,
                       coalesce(sum(bet) FILTER (WHERE outcome = 'applied'), 0)::text AS bet,
                       coalesce(sum(win) FILTER (WHERE outcome = 'applied'), 0)::text AS win,
                       EXISTS (SELECT 1 FROM wallet_transactions
                               WHERE player_id = ${player.id} AND round_id = ${roundId} AND kind = 'refund'
                                 AND outcome = 'applied') AS refunded
                FROM wallet_transactions
                WHERE player_id = ${player.id} AND round_id = ${roundId} AND kind = 'bet'
              `.pipe(Effect.flatMap(decodeRoundRows), Effect.orDie)
              if (round.seen === 0) return refusedDecision("ROUND_NOT_FOUND", mirror)
              if (round.refunded) {
                return {
                  outcome: "already_refunded",
                  refusal: null,
                  amount: 0,
                  balanceAfter: mirror,
                  answer: accepted(mirror),
                  notifications: []
                } satisfies Decision
              }
              // The round is undone: its stake back, its win taken back. The mirror never goes below 0;
              // the partner, who holds the money, has the last word.
              const amount = -toCents(round.net)
              const balanceAfter = Math.max(0, mirror + amount)
              return {
                outcome: "applied",
                refusal: null,
                amount,
                balanceAfter,
                answer: accepted(balanceAfter),
                notifications: amount === 0 ? [] : [
                  notification(
                    player,
                    "refund",
                    txnId,
                    refundBody(party, txn, { bet: toCents(round.bet), win: toCents(round.win) }, amount, balanceAfter, at)
                  )
                ]
              } satisfies Decision
            }))
        })

      // A transaction's copies arriving together share one run (one partner call); it runs to the end
      // even if the aggregator hangs up, so what the ledger says and what the partner did stay together.
      const running = yield* Cache.makeWith((call: TransactionCall) => Effect.uninterruptible(call.run), {
        capacity: 100_000,
        timeToLive: () => Duration.zero
      })
      const once = (txnId: string | undefined, run: Effect.Effect<WalletAnswer, InvalidWalletCall>) =>
        txnId === undefined ? run : Cache.get(running, new TransactionCall(txnId, run))

      const handle = (call: WalletCall): Effect.Effect<WalletAnswer, InvalidWalletCall> => {
        switch (call.type) {
          case "Balance":
            return balance(call.user_code)
          case "WinBet":
            return once(`bet:${call.slot.txn_id}`, winBet(call))
          case "Refund": {
            const txnId = call.slot?.txn_id ?? call.txn_id
            return once(txnId === undefined ? undefined : `refund:${txnId}`, refund(call))
          }
        }
      }

      return Wallet.of({ handle: (call) => handle(call).pipe(Effect.withSpan("Wallet.handle", { attributes: { type: call.type } })) })
    })
  )
}
