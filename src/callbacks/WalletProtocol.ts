import { Schema, SchemaGetter } from "effect"
import { type Cents, fromCents, MoneyCents } from "../domain/Money.ts"

/**
 * The aggregator's seamless-wallet protocol (PlayFiver style, see
 * ../shared/spec/upstreams.md): one operator URL receives POSTs whose `type`
 * is `Balance`, `WinBet` or `Refund`, each carrying the agent's code and
 * secret. Public clients disagree on details, so ids are read as strings or
 * numbers and a refund's ids may sit in `slot` or at the top level.
 */

/** An id as JSON may carry it: a string, or a number written out as a string. */
const Id = Schema.Union([Schema.String, Schema.Finite]).pipe(
  Schema.decodeTo(Schema.String.check(Schema.isTrimmed(), Schema.isMinLength(1), Schema.isMaxLength(200)), {
    decode: SchemaGetter.transform((value: string | number) => String(value).trim()),
    encode: SchemaGetter.transform((value: string) => value)
  })
)

/** The user code this service gave the player at launch (partner_players.internal_user_id). */
const UserCode = Id.pipe(
  Schema.decodeTo(Schema.Int, {
    decode: SchemaGetter.transform((value: string) => /^\d{1,15}$/.test(value) ? Number(value) : -1),
    encode: SchemaGetter.transform((value: number) => String(value))
  })
)

const Credentials = {
  user_code: UserCode,
  agent_code: Schema.String,
  agent_secret: Schema.String
}

const Slot = Schema.Struct({
  txn_id: Id,
  round_id: Schema.optional(Schema.NullOr(Id)),
  bet: Schema.optional(MoneyCents),
  win: Schema.optional(MoneyCents),
  game_code: Schema.optional(Schema.NullOr(Schema.String)),
  provider_code: Schema.optional(Schema.NullOr(Schema.String))
})

export const BalanceCall = Schema.Struct({ type: Schema.Literal("Balance"), ...Credentials })

export const WinBetCall = Schema.Struct({
  type: Schema.Literal("WinBet"),
  ...Credentials,
  game_original: Schema.optional(Schema.Unknown),
  slot: Slot
})

export const RefundCall = Schema.Struct({
  type: Schema.Literal("Refund"),
  ...Credentials,
  slot: Schema.optional(Slot.mapFields((fields) => ({ ...fields, txn_id: Schema.optional(Id) }))),
  txn_id: Schema.optional(Id),
  round_id: Schema.optional(Id)
})

export const WalletCall = Schema.Union([BalanceCall, WinBetCall, RefundCall])
export type WalletCall = typeof WalletCall.Type

/** Just enough to authenticate a call before its body is trusted. */
export const CallEnvelope = Schema.Struct({
  type: Schema.optional(Schema.Unknown),
  agent_code: Schema.optional(Schema.Unknown),
  agent_secret: Schema.optional(Schema.Unknown)
})

/** Refusals in the aggregator's terms (and ROUND_NOT_FOUND for a refund of a round never seen). */
export type Refusal = "INSUFFICIENT_USER_FUNDS" | "INVALID_USER" | "ROUND_NOT_FOUND"

/** What the aggregator is told: `msg` empty on success, the refusal otherwise, and the player's balance. */
export interface WalletAnswer {
  readonly msg: "" | Refusal
  readonly balance: number
}

export const accepted = (balance: Cents): WalletAnswer => ({ msg: "", balance: fromCents(balance) })
export const refused = (refusal: Refusal, balance: Cents): WalletAnswer => ({ msg: refusal, balance: fromCents(balance) })
