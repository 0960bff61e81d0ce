import { Effect, Predicate, Result, Schema, SchemaGetter } from "effect"
import type { Currency } from "../../domain/Currency.ts"
import * as ExactJson from "../../domain/ExactJson.ts"
import { type ImpliedDecimalsRefusal, impliedOfMinor, minorOfImplied } from "../../domain/ImpliedDecimals.ts"
import type { Minor } from "../../domain/Money.ts"

/**
 * Hub88's Wallet API, the calls Hub88 makes to the operator (../shared/spec/hub88.md, section 4): five POST paths
 * under the wallet URL registered with Hub88, each a JSON body carrying `request_uuid` (echoed) and answered HTTP 200
 * with `{user, status, request_uuid, currency, balance}`. Pure: the wire shapes (snake_case) are only here, read into
 * camelCase values; amounts are integers worth the amount times 100000 (domain/ImpliedDecimals.ts), read exactly
 * (ExactJson keeps every digit of a number) and converted to the player's currency's minor units or refused.
 * Nothing here is served yet: the route that verifies the signature and relays these to the ledger is a later step.
 */

/** The wallet's paths, under the URL registered with Hub88 (`{PUBLIC_URL}/aggregator/hub88`). */
export const walletPaths = {
  info: "/user/info",
  balance: "/user/balance",
  bet: "/transaction/bet",
  win: "/transaction/win",
  rollback: "/transaction/rollback"
} as const
export type WalletCall = keyof typeof walletPaths

/** The statuses an answer carries ([H-STAT]); `RS_ERROR_LIMIT_REACHED` is named on the supplier side only. */
export const Status = Schema.Literals([
  "RS_OK",
  "RS_ERROR_UNKNOWN",
  "RS_ERROR_INVALID_PARTNER",
  "RS_ERROR_INVALID_TOKEN",
  "RS_ERROR_INVALID_GAME",
  "RS_ERROR_WRONG_CURRENCY",
  "RS_ERROR_NOT_ENOUGH_MONEY",
  "RS_ERROR_USER_DISABLED",
  "RS_ERROR_INVALID_SIGNATURE",
  "RS_ERROR_TOKEN_EXPIRED",
  "RS_ERROR_WRONG_SYNTAX",
  "RS_ERROR_WRONG_TYPES",
  "RS_ERROR_DUPLICATE_TRANSACTION",
  "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
  "RS_ERROR_LIMIT_REACHED"
])
export type Status = typeof Status.Type

const int64Max = 2n ** 63n - 1n

/**
 * An amount or balance on the wire: a JSON integer (Hub88's Int64), at least 0. Read from ExactJson by its source
 * digits, so a value past 2^53 keeps every digit; a plain number (JSON.parse) only when it is a safe integer. A
 * fraction, an exponent, a sign or a string is refused.
 */
export const ImpliedAmount = Schema.Union([ExactJson.JsonNumberSchema, Schema.Number]).pipe(
  Schema.decodeTo(
    Schema.BigInt.check(
      Schema.makeFilter((value: bigint) => value >= 0n && value <= int64Max, {
        message: "must be a whole number from 0 to 2^63-1 (the amount times 100000)"
      })
    ),
    {
      decode: SchemaGetter.transform((value: ExactJson.JsonNumber | number) =>
        // -1 is refused by the check: what is not plain digits, or a double past the safe range, is no amount.
        value instanceof ExactJson.JsonNumber
          ? (/^(0|[1-9]\d{0,18})$/.test(value.source) ? BigInt(value.source) : -1n)
          : Number.isSafeInteger(value)
          ? BigInt(value)
          : -1n
      ),
      encode: SchemaGetter.transform((value: bigint) => new ExactJson.JsonNumber(value.toString()))
    }
  )
).annotate({ message: "must be a whole number from 0 to 2^63-1 (the amount times 100000)" })

/** An id or code: non-empty text of at most 255 characters. */
const Text = Schema.String.check(
  Schema.makeFilter((text: string) => text.length >= 1 && text.length <= 255, {
    message: "must be text of 1 to 255 characters"
  })
)
const Optional = <S extends Schema.Top>(schema: S) => Schema.optional(Schema.NullOr(schema))
const Flag = Schema.Boolean.pipe(Schema.withDecodingDefault(Effect.succeed(false)))
const Free = Schema.Unknown

export const UserInfoRequest = Schema.Struct({
  requestUuid: Text,
  user: Text
}).pipe(Schema.encodeKeys({ requestUuid: "request_uuid" }))
export type UserInfoRequest = typeof UserInfoRequest.Type

export const BalanceRequest = Schema.Struct({
  requestUuid: Text,
  user: Text,
  token: Text,
  gameCode: Optional(Text)
}).pipe(Schema.encodeKeys({ requestUuid: "request_uuid", gameCode: "game_code" }))
export type BalanceRequest = typeof BalanceRequest.Type

const movementFields = {
  requestUuid: Text,
  user: Text,
  token: Text,
  gameCode: Text,
  currency: Text,
  amount: ImpliedAmount,
  transactionUuid: Text,
  supplierTransactionId: Optional(Text),
  supplierUser: Optional(Text),
  round: Text,
  roundClosed: Flag,
  rewardUuid: Optional(Text),
  isFree: Flag,
  isAggregated: Flag,
  bet: Optional(Free),
  meta: Optional(Free)
}
const movementKeys = {
  requestUuid: "request_uuid",
  gameCode: "game_code",
  transactionUuid: "transaction_uuid",
  supplierTransactionId: "supplier_transaction_id",
  supplierUser: "supplier_user",
  roundClosed: "round_closed",
  rewardUuid: "reward_uuid",
  isFree: "is_free",
  isAggregated: "is_aggregated"
} as const

/** A stake (`/transaction/bet`). */
export const BetRequest = Schema.Struct(movementFields).pipe(Schema.encodeKeys(movementKeys))
export type BetRequest = typeof BetRequest.Type

/** A win (`/transaction/win`), paying the bet it names. */
export const WinRequest = Schema.Struct({ ...movementFields, referenceTransactionUuid: Text }).pipe(
  Schema.encodeKeys({ ...movementKeys, referenceTransactionUuid: "reference_transaction_uuid" })
)
export type WinRequest = typeof WinRequest.Type

/** The undoing of the transaction it names (`/transaction/rollback`); it carries no amount. */
export const RollbackRequest = Schema.Struct({
  requestUuid: Text,
  user: Text,
  token: Text,
  gameCode: Text,
  transactionUuid: Text,
  referenceTransactionUuid: Text,
  supplierTransactionId: Optional(Text),
  round: Text,
  roundClosed: Flag,
  meta: Optional(Free)
}).pipe(Schema.encodeKeys({
  requestUuid: "request_uuid",
  gameCode: "game_code",
  transactionUuid: "transaction_uuid",
  referenceTransactionUuid: "reference_transaction_uuid",
  supplierTransactionId: "supplier_transaction_id",
  roundClosed: "round_closed"
}))
export type RollbackRequest = typeof RollbackRequest.Type

/** A wallet call read: which one, and its request. */
export type WalletRequest =
  | { readonly call: "info"; readonly request: UserInfoRequest }
  | { readonly call: "balance"; readonly request: BalanceRequest }
  | { readonly call: "bet"; readonly request: BetRequest }
  | { readonly call: "win"; readonly request: WinRequest }
  | { readonly call: "rollback"; readonly request: RollbackRequest }

const requestSchemas = {
  info: UserInfoRequest,
  balance: BalanceRequest,
  bet: BetRequest,
  win: WinRequest,
  rollback: RollbackRequest
} as const

/** A call that could not be read, with what it echoes: its `request_uuid` and `user` when those could be found. */
export interface UnreadableRequest {
  readonly status: "RS_ERROR_WRONG_SYNTAX" | "RS_ERROR_WRONG_TYPES"
  readonly requestUuid: string
  readonly user: string
}

const echoed = (body: unknown, key: string): string =>
  Predicate.isObject(body) && Predicate.isString((body as Record<string, unknown>)[key])
    ? (body as Record<string, string>)[key]!
    : ""

/**
 * A wallet call's body (its raw text, after its signature was verified) read for `call`: text that is not a JSON
 * object is `RS_ERROR_WRONG_SYNTAX`; an object without the call's fields, or with a field of another type, is
 * `RS_ERROR_WRONG_TYPES`.
 */
export const readWalletRequest = (call: WalletCall, body: string): Result.Result<WalletRequest, UnreadableRequest> => {
  let json: unknown
  try {
    json = ExactJson.parse(body)
  } catch {
    return Result.fail({ status: "RS_ERROR_WRONG_SYNTAX", requestUuid: "", user: "" })
  }
  if (!Predicate.isObject(json) || Array.isArray(json)) {
    return Result.fail({ status: "RS_ERROR_WRONG_SYNTAX", requestUuid: "", user: "" })
  }
  const decoded = Schema.decodeUnknownResult(requestSchemas[call] as Schema.Codec<unknown, unknown>)(json)
  return Result.isSuccess(decoded)
    ? Result.succeed({ call, request: decoded.success } as WalletRequest)
    : Result.fail({
      status: "RS_ERROR_WRONG_TYPES",
      requestUuid: echoed(json, "request_uuid"),
      user: echoed(json, "user")
    })
}

/** The answer to every wallet call: HTTP 200 with this body, whatever the status. */
export interface WalletAnswer {
  readonly user: string
  readonly status: Status
  readonly requestUuid: string
  readonly currency: string
  /** The player's balance times 100000 (`RS_ERROR_NOT_ENOUGH_MONEY` carries the real one). */
  readonly balance: bigint
}

/**
 * An answer in the player's currency: the balance in minor units, written times 100000. A currency finer than Hub88's
 * five places has no answer (HUB88_CURRENCIES refuses one at start, so this is a defect if it happens).
 */
export const walletAnswer = (input: {
  readonly user: string
  readonly status: Status
  readonly requestUuid: string
  readonly currency: Currency
  readonly balance: Minor
}): Result.Result<WalletAnswer, ImpliedDecimalsRefusal> =>
  Result.map(impliedOfMinor(input.balance, input.currency), (balance) => ({
    user: input.user,
    status: input.status,
    requestUuid: input.requestUuid,
    currency: input.currency.code,
    balance
  }))

/**
 * The answer's JSON text, the balance written as the integer it is (JSON.stringify would round one past 2^53).
 * Keys in the documented order.
 */
export const encodeWalletAnswer = (answer: WalletAnswer): string =>
  `{"user":${JSON.stringify(answer.user)},"status":${JSON.stringify(answer.status)},` +
  `"request_uuid":${JSON.stringify(answer.requestUuid)},"currency":${JSON.stringify(answer.currency)},` +
  `"balance":${answer.balance.toString()}}`

/** Why a movement's amount is not one the player's wallet can take. */
export type AmountRefusal = "RS_ERROR_WRONG_CURRENCY" | "RS_ERROR_WRONG_TYPES"

/**
 * A bet's or win's amount in the player's currency's minor units, exactly: another currency than the player's is
 * `RS_ERROR_WRONG_CURRENCY`; an integer that is no whole number of its minor units (1 in BRL: a thousandth of a
 * centavo) is refused as `RS_ERROR_WRONG_TYPES`, never rounded, as is any amount in a currency finer than Hub88's
 * five places.
 */
export const amountInMinor = (
  request: { readonly currency: string; readonly amount: bigint },
  playerCurrency: Currency
): Result.Result<Minor, AmountRefusal> =>
  request.currency !== playerCurrency.code
    ? Result.fail("RS_ERROR_WRONG_CURRENCY")
    : Result.mapError(minorOfImplied(request.amount, playerCurrency), () => "RS_ERROR_WRONG_TYPES" as const)
