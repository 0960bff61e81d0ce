import { Option, Schema } from "effect"
import { Integer, Maybe } from "./ApiFootballFields.ts"

/**
 * What every API-Football answer shares (../shared/spec/api-football.md §2-4): its envelope, read `errors` first
 * since the host answers most failures with HTTP 200; the quota its headers tell; and `/status`, the account and its
 * day's use (free of quota).
 */

// ---- the envelope

/** How a failed answer failed, by the key of `errors`. */
export type FailureKind = "token" | "requests" | "rateLimit" | "plan" | "parameter"

export interface Failure {
  readonly kind: FailureKind
  /** Only for "parameter" from an `errors` object: the key, the name of the parameter refused. */
  readonly parameter?: string
  readonly message: string
}

/** An answer's envelope: errors first (`[]`, `{}` or `{k: msg}` or `string[]`), then results/paging/response. */
export type Envelope =
  | {
    readonly _tag: "Ok"
    readonly results: number
    readonly paging: { readonly current: number; readonly total: number } | undefined
    readonly response: unknown
  }
  | { readonly _tag: "Failed"; readonly failures: ReadonlyArray<Failure> }
  | { readonly _tag: "Invalid" }

/** `errors` in each of the ways it comes: a list (empty on success, or of messages), or an object by error class. */
export const Errors = Schema.Union([Schema.Array(Schema.Unknown), Schema.Record(Schema.String, Schema.Unknown)])

export const Paging = Schema.Struct({ current: Integer, total: Integer })

/** A successful answer's body; `response` is an array, or an object for `/status`. */
export const Success = Schema.Struct({
  results: Maybe(Integer),
  paging: Maybe(Paging),
  response: Schema.Unknown
})

const keyKinds: Readonly<Record<string, FailureKind>> = {
  token: "token",
  requests: "requests",
  rateLimit: "rateLimit",
  plan: "plan"
}

/** A message's kind where `errors` is a list of messages, by the wording the host is seen to use. */
const kindOfText = (message: string): FailureKind => {
  const text = message.toLowerCase()
  if (text.includes("request limit for the day")) return "requests"
  if (text.includes("too many requests") || text.includes("per minute")) return "rateLimit"
  if (text.includes("application key") || text.includes("token")) return "token"
  if (text.includes("plan") || text.includes("do not have access")) return "plan"
  return "parameter"
}

const messageOf = (raw: unknown): string =>
  typeof raw === "string"
    ? raw
    : Array.isArray(raw) && raw.every((item) => typeof item === "string")
    ? raw.join(" ")
    : JSON.stringify(raw) ?? String(raw)

const failuresOf = (errors: typeof Errors.Type): ReadonlyArray<Failure> =>
  Array.isArray(errors)
    ? errors.map((raw: unknown) => {
      const message = messageOf(raw)
      return { kind: kindOfText(message), message }
    })
    : Object.entries(errors).map(([key, raw]): Failure => {
      const kind = keyKinds[key]
      return kind === undefined
        ? { kind: "parameter", parameter: key, message: messageOf(raw) }
        : { kind, message: messageOf(raw) }
    })

/**
 * Reads an answer's envelope. The host answers most failures with HTTP 200, so `errors` is read first: an empty one
 * (`[]` or `{}`) is success. A missing `results` is counted from `response`; a missing or null `paging` (as on
 * `/status`) is `undefined`.
 */
export const readEnvelope = (raw: unknown): Envelope => {
  const errors = Schema.decodeUnknownOption(Schema.Struct({ errors: Errors }))(raw)
  if (Option.isNone(errors)) return { _tag: "Invalid" }
  const failures = failuresOf(errors.value.errors)
  if (failures.length > 0) return { _tag: "Failed", failures }
  const success = Schema.decodeUnknownOption(Success)(raw)
  if (Option.isNone(success)) return { _tag: "Invalid" }
  const { paging, response, results } = success.value
  return {
    _tag: "Ok",
    results: results ?? (Array.isArray(response) ? response.length : response === null ? 0 : 1),
    paging: paging ?? undefined,
    response
  }
}

// ---- the quota headers

/** The quota the headers tell (any may be missing). */
export interface QuotaHeaders {
  readonly dayLimit?: number
  readonly dayRemaining?: number
  readonly minuteLimit?: number
  readonly minuteRemaining?: number
}

const headerCount = (raw: string | undefined): number | undefined =>
  raw !== undefined && /^\s*\d+\s*$/.test(raw) ? Number(raw) : undefined

/**
 * The quota of the direct channel's headers: `x-ratelimit-requests-*` is the day, `x-ratelimit-*` the minute. Names
 * are matched whatever their case; a value that is not a whole number is left out.
 */
export const quotaOf = (headers: Readonly<Record<string, string | undefined>>): QuotaHeaders => {
  const byName = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]))
  const counts = {
    dayLimit: headerCount(byName.get("x-ratelimit-requests-limit")),
    dayRemaining: headerCount(byName.get("x-ratelimit-requests-remaining")),
    minuteLimit: headerCount(byName.get("x-ratelimit-limit")),
    minuteRemaining: headerCount(byName.get("x-ratelimit-remaining"))
  }
  const quota: { -readonly [K in keyof QuotaHeaders]: number } = {}
  for (const [name, count] of Object.entries(counts) as Array<[keyof QuotaHeaders, number | undefined]>) {
    if (count !== undefined) quota[name] = count
  }
  return quota
}

// ---- /status

/** `/status`'s response object (the account's name and email are not read). */
export const Status = Schema.Struct({
  subscription: Schema.Struct({ plan: Maybe(Schema.String), end: Maybe(Schema.String), active: Schema.Boolean }),
  requests: Schema.Struct({ current: Integer, limit_day: Integer })
})

/** `/status`'s response object. */
export interface Account {
  readonly plan: string | null
  readonly active: boolean
  readonly dayUsed: number
  readonly dayLimit: number
}

/** The account `/status` tells, or `undefined` when its response is not that object (an error answer's `[]`). */
export const toAccount = (response: unknown): Account | undefined =>
  Option.getOrUndefined(Option.map(Schema.decodeUnknownOption(Status)(response), (status) => ({
    plan: status.subscription.plan ?? null,
    active: status.subscription.active,
    dayUsed: status.requests.current,
    dayLimit: status.requests.limit_day
  })))
