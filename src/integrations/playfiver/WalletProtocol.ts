import { Result, Schema, SchemaGetter } from "effect"
import { JsonNumber, JsonNumberSchema } from "../../domain/ExactJson.ts"
import type { Currency } from "../../domain/Currency.ts"
import { amountOnWire, DecimalAmount, isFinerThanMinorUnit, minorOf } from "../../domain/Money.ts"
import { isStorableText } from "../../domain/Text.ts"
import type { Refusal, WalletEvent, WalletOutcome } from "../../domain/WalletEvents.ts"
import type { Aggregator } from "../../domain/Aggregator.ts"

/**
 * The aggregator's seamless-wallet protocol (PlayFiver style, see
 * docs/upstreams.md): one operator URL receives POSTs whose `type` is
 * `Balance`, `WinBet` or `Refund`, each carrying the agent's code and
 * secret. The body is read with ExactJson, so ids keep every digit and
 * amounts every decimal they were written with. Public clients disagree on
 * details: ids come as strings or numbers, and a refund's ids may sit in
 * `slot` or at the top level. A call becomes one of the ledger's events (a WinBet its stake and win in one, a Refund
 * the undo of its whole round), and the ledger's outcome becomes its answer, `{msg, balance}`.
 */

/** Text PostgreSQL can keep as it came (see domain/Text), and without control characters. */
// oxlint-disable-next-line eslint/no-control-regex -- finding control characters is the point
const isCleanText = (text: string) => isStorableText(text) && !/[\u0001-\u001f\u007f]/.test(text)

const idMessage =
  "must be a non-empty string or a whole number (at most 200 characters, no surrounding spaces or control characters)"

/** An id as JSON may carry it: a string as it is, or a whole number exactly as written (never rounded). */
const Id = Schema.Union([Schema.String, JsonNumberSchema]).pipe(
  Schema.decodeTo(
    Schema.String.check(
      Schema.makeFilter((id: string) => id.length >= 1 && id.length <= 200 && id.trim() === id && isCleanText(id), {
        message: idMessage
      })
    ),
    {
      decode: SchemaGetter.transform((value: string | JsonNumber) =>
        // A number with a fraction or an exponent is no id: it becomes "", which the check refuses.
        value instanceof JsonNumber ? (/^-?\d+$/.test(value.source) ? value.source : "") : value
      ),
      encode: SchemaGetter.transform((id: string) => id)
    }
  )
).annotate({ message: idMessage })

/** The user code this service gave the player at launch (partner_players.internal_user_id). */
const UserCode = Id.pipe(
  Schema.decodeTo(Schema.Int, {
    decode: SchemaGetter.transform((value: string) => /^\d{1,15}$/.test(value) ? Number(value) : -1),
    encode: SchemaGetter.transform((value: number) => String(value))
  }),
  Schema.check(Schema.isGreaterThanOrEqualTo(0))
)

const Text = Schema.optional(Schema.NullOr(
  Schema.String.check(Schema.makeFilter((text: string) => text.length <= 255 && isCleanText(text), {
    message: "must be text of at most 255 characters, without control characters"
  }))
))

const Credentials = {
  user_code: UserCode,
  agent_code: Schema.String,
  agent_secret: Schema.String
}

const WinBetWire = Schema.Struct({
  type: Schema.Literal("WinBet"),
  ...Credentials,
  slot: Schema.Struct({
    txn_id: Id,
    round_id: Schema.optional(Schema.NullOr(Id)),
    bet: DecimalAmount,
    win: DecimalAmount,
    game_code: Text,
    provider_code: Text
  })
})

const RefundWire = Schema.Struct({
  type: Schema.Literal("Refund"),
  ...Credentials,
  slot: Schema.optional(Schema.Struct({
    txn_id: Schema.optional(Id),
    round_id: Schema.optional(Schema.NullOr(Id)),
    game_code: Text,
    provider_code: Text
  })),
  txn_id: Schema.optional(Id),
  round_id: Schema.optional(Schema.NullOr(Id))
})

const BalanceWire = Schema.Struct({ type: Schema.Literal("Balance"), ...Credentials })

const WireCall = Schema.Union([BalanceWire, WinBetWire, RefundWire])
const decodeWire = Schema.decodeUnknownResult(WireCall, { errors: "all" })

const decodeUserCode = Schema.decodeUnknownResult(Schema.Struct({ user_code: UserCode }))

/** The user code a call names, when it names one: its player's currency is what its amounts are in. */
export const userCodeOf = (body: unknown): number | undefined =>
  Result.getOrUndefined(Result.map(decodeUserCode(body), (call) => call.user_code))

/** Just enough to authenticate a call before its body is trusted. */
export const CallEnvelope = Schema.Struct({
  type: Schema.optional(Schema.Unknown),
  agent_code: Schema.optional(Schema.Unknown),
  agent_secret: Schema.optional(Schema.Unknown)
})

/**
 * A WinBet whose amount is finer than the currency's minor unit (`slot.bet` 0.001 in BRL): no amount of it, so nothing
 * moves; what the route records for the operator (a stuck item) when the call names a known player.
 */
export interface FinerAmount {
  readonly _tag: "FinerAmount"
  readonly txnId: string
  readonly roundId: string
  /** Where the amount was: `slot.bet` or `slot.win`. */
  readonly field: "slot.bet" | "slot.win"
  /** Its text as sent. */
  readonly amount: string
  readonly message: string
}

/**
 * A call read into the ledger's events, or why it cannot be. A bet without
 * a round is its own round; a refund must name its transaction and round.
 * Amounts are in the player's currency: one finer than its minor unit is no
 * amount of it (FinerAmount), and nothing moves.
 */
export const readWalletCall = (
  body: unknown,
  aggregator: Aggregator,
  currency: Currency
): Result.Result<WalletEvent, Schema.SchemaError | string | FinerAmount> => {
  const wire = decodeWire(body)
  if (Result.isFailure(wire)) return Result.fail(wire.failure)
  const call = wire.success
  switch (call.type) {
    case "Balance":
      return Result.succeed({ _tag: "Balance", userCode: call.user_code })
    case "WinBet": {
      const bet = minorOf(call.slot.bet, currency)
      const win = minorOf(call.slot.win, currency)
      if (bet === undefined || win === undefined) {
        const [field, text] = bet === undefined
          ? ["slot.bet" as const, call.slot.bet]
          : ["slot.win" as const, call.slot.win]
        if (!isFinerThanMinorUnit(text, currency)) return Result.fail(`${field} ${text} is above the largest amount.`)
        return Result.fail({
          _tag: "FinerAmount",
          txnId: call.slot.txn_id,
          roundId: call.slot.round_id ?? call.slot.txn_id,
          field,
          amount: text,
          message: `${field} ${text} is finer than ${currency.code}'s minor unit (${currency.exponent} decimals).`
        })
      }
      return Result.succeed({
        _tag: "DebitAndCredit",
        aggregator,
        userCode: call.user_code,
        txnId: call.slot.txn_id,
        roundId: call.slot.round_id ?? call.slot.txn_id,
        bet,
        win,
        gameCode: call.slot.game_code ?? null,
        providerCode: call.slot.provider_code ?? null
      })
    }
    case "Refund": {
      const txnId = call.slot?.txn_id ?? call.txn_id
      const roundId = call.slot?.round_id ?? call.round_id
      if (txnId === undefined || roundId === undefined || roundId === null) {
        return Result.fail("A refund needs txn_id and round_id (in slot or at the top level).")
      }
      return Result.succeed({
        _tag: "Rollback",
        aggregator,
        userCode: call.user_code,
        txnId,
        roundId,
        debitTxnId: null,
        gameCode: call.slot?.game_code ?? null,
        providerCode: call.slot?.provider_code ?? null
      })
    }
  }
}

/**
 * The protocol's `msg` for each refusal of the ledger: PlayFiver's own two (INSUFFICIENT_USER_FUNDS, INVALID_USER),
 * and this service's (docs/architecture.md). The ledger's last two come only of events this protocol never sends.
 */
const refusalCodes: Record<Refusal, string> = {
  INSUFFICIENT_USER_FUNDS: "INSUFFICIENT_USER_FUNDS",
  INVALID_USER: "INVALID_USER",
  ROUND_REFUNDED: "ROUND_REFUNDED",
  DUPLICATE_TRANSACTION: "DUPLICATE_TRANSACTION",
  ROUND_NOT_FOUND: "ROUND_NOT_FOUND",
  DEBIT_NOT_FOUND: "DEBIT_NOT_FOUND",
  DEBIT_ROLLED_BACK: "DEBIT_ROLLED_BACK"
}

/** What the aggregator is answered: `msg` empty on success, the refusal's code otherwise, and the player's balance. */
export const WalletAnswer = Schema.Struct({ msg: Schema.String, balance: Schema.Union([Schema.Finite, Schema.String]) })
export type WalletAnswer = typeof WalletAnswer.Type

/** The ledger's outcome in this protocol's words, the balance in the aggregator's currency. */
export const answerOf = (outcome: WalletOutcome, currency: Currency): WalletAnswer => ({
  msg: outcome._tag === "Accepted" ? "" : refusalCodes[outcome.refusal],
  balance: amountOnWire(outcome.balance, currency)
})
