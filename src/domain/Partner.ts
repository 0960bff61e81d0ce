import { Schema } from "effect"
import { Environment } from "./Environment.ts"
import { ErrorMessages } from "./ErrorMessages.ts"
import { RtpPolicy } from "./RtpPolicy.ts"

/** Where the partner API is served; the contract (src/api/Api.ts) is mounted here, start-up hints point here. */
export const partnerApiPrefix = "/api/partner/v1"

export const PartnerStatus = Schema.Literals(["active", "inactive"])
export type PartnerStatus = typeof PartnerStatus.Type

/**
 * What a partner token may look like, judged before any look-up: 20 to 200
 * characters of the bearer-token alphabet (RFC 6750: letters, digits and
 * `-._~+/`, `=` only at the end). Generated tokens (`pak_` and 43 base64url
 * characters), prefixed ones (`pak_live_…`, `pak_test_…`) and any
 * DEMO_PARTNER_TOKEN an operator chooses within it pass.
 */
export const isPartnerTokenShaped = (token: string): boolean => /^(?=.{20,200}$)[A-Za-z0-9._~+/-]+=*$/.test(token)

export const partnerTokenShape = "20 to 200 characters: letters, digits and - . _ ~ + / (= only at the end)"

/** A token of that shape; anything else is refused with `partnerTokenShape`. */
export const PartnerToken = Schema.String.check(
  Schema.makeFilter(isPartnerTokenShaped, { message: `must be ${partnerTokenShape}` })
)

/** A partner (operator) as the service knows it. The token is never part of it. */
export class Partner extends Schema.Class<Partner>("Partner")({
  id: Schema.Int,
  name: Schema.String,
  slug: Schema.String,
  status: PartnerStatus,
  commissionPercent: Schema.Finite,
  callbackUrl: Schema.NullOr(Schema.String),
  /** Requests a minute this partner may send to the partner API; null: PARTNER_RATE_LIMIT. */
  rateLimitPerMinute: Schema.NullOr(Schema.Int),
  /** What its launches do with the `user_rtp` it sends (both environments). */
  rtpPolicy: RtpPolicy,
  /** The currency of a launch that names none (a code, see Currency.ts); null: the deployment's DEFAULT_CURRENCY. */
  defaultCurrency: Schema.NullOr(Schema.String),
  /** The only currencies its launches may be in (1 to 64 codes); null: every currency the deployment enables. */
  currencies: Schema.NullOr(Schema.Array(Schema.String)),
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}) {
  get isActive(): boolean {
    return this.status === "active"
  }
}

/**
 * A partner as one of its tokens admits it: the partner and the environment the token belongs to, and when the
 * token stops working (a token rolled with an overlap; absent or null: the current token, valid until rolled).
 */
export class PartnerAccess extends Partner.extend<PartnerAccess>("PartnerAccess")({
  environment: Environment,
  tokenExpiresAt: Schema.optionalKey(Schema.NullOr(Schema.Date))
}) {
  /** Whether the token still admits the partner at `now` (a look-up kept in a cache may outlive the token). */
  admitsAt(now: number): boolean {
    return this.tokenExpiresAt === undefined || this.tokenExpiresAt === null ||
      this.tokenExpiresAt.getTime() > now
  }
}

/**
 * One of a partner's environments as an operator sees it: where its callbacks go and when its token was
 * issued (null: none yet; a partner created before environments gets its test token by a rotation).
 * Neither the token nor the webhook secret is part of it.
 */
export const PartnerEnvironmentSettings = Schema.Struct({
  partnerId: Schema.Int,
  environment: Environment,
  callbackUrl: Schema.NullOr(Schema.String),
  tokenIssuedAt: Schema.NullOr(Schema.Date),
  /** Until when the webhook secret rotated out last still signs callbacks beside the current one; null: it does not. */
  previousSecretUntil: Schema.NullOr(Schema.Date)
})
export type PartnerEnvironmentSettings = typeof PartnerEnvironmentSettings.Type

/**
 * One of an environment's tokens as its partner and operators may see it: never the token, only its first
 * characters (`prefix`; null for tokens issued before prefixes were kept), when it was issued and last used, and
 * when it stops working (null: the current token; a date: a token rolled with an overlap).
 */
export const IssuedToken = Schema.Struct({
  id: Schema.Int,
  environment: Environment,
  prefix: Schema.NullOr(Schema.String),
  createdAt: Schema.Date,
  lastUsedAt: Schema.NullOr(Schema.Date),
  expiresAt: Schema.NullOr(Schema.Date)
})
export type IssuedToken = typeof IssuedToken.Type

/** A callback URL as a form sends it: blank is none (null), absent is unchanged (undefined), else trimmed. */
export const blankIsNull = (url: string | null | undefined) =>
  url === undefined ? undefined : url === null || url.trim() === "" ? null : url.trim()

/** How long a rolled token may stay valid beside its successor: 1 hour to 7 days (or not at all: rolled now). */
export const tokenOverlapHours = { minimum: 1, maximum: 7 * 24 } as const

/** What a token shows of itself: `pak_live_` or `pak_test_` and four characters, or a chosen token's first four. */
export const tokenDisplayPrefix = (token: string) =>
  token.slice(0, (/^pak_(live_|test_)?/.exec(token)?.[0].length ?? 0) + 4)

/**
 * The partner spent its allowance of requests (its own rate_limit_per_minute or PARTNER_RATE_LIMIT):
 * `retryAfterSeconds` until the next one is admitted. The HTTP edge answers it as a 429.
 */
export class PartnerRateLimited extends Schema.TaggedError<PartnerRateLimited>()("PartnerRateLimited", {
  limit: Schema.Int,
  retryAfterSeconds: Schema.Int
}) {
  override get message() {
    return ErrorMessages.rateLimited(this.limit, this.retryAfterSeconds)
  }
}

/**
 * A partner as its wallet callbacks see it: whether it is active (only an
 * active partner's players can bet), where callbacks go (none until the
 * operator registers a callback_url) and what signs them: the webhook
 * secret, and for a while after a rotation the previous one too, so a
 * partner can switch its verification without refusing anything.
 */
export const CallbackTarget = Schema.Struct({
  partnerId: Schema.Int,
  environment: Environment,
  partnerSlug: Schema.String,
  active: Schema.Boolean,
  callbackUrl: Schema.NullOr(Schema.String),
  webhookSecret: Schema.String,
  previousSecret: Schema.NullOr(Schema.Struct({ secret: Schema.String, until: Schema.Date }))
})
export type CallbackTarget = typeof CallbackTarget.Type

/** The secrets a callback is signed with at `now`: the current one first. */
export const signingSecrets = (target: CallbackTarget, now: Date): ReadonlyArray<string> =>
  target.previousSecret !== null && target.previousSecret.until > now
    ? [target.webhookSecret, target.previousSecret.secret]
    : [target.webhookSecret]

/**
 * What the service keeps of a partner's players: `persisted` (name, e-mail and the balance mirror) or
 * `shadow` (only the partner, the environment and the partner's external id behind the user code).
 */
export const PlayerMode = Schema.Literals(["persisted", "shadow"])
export type PlayerMode = typeof PlayerMode.Type

/**
 * A partner's player in one of the partner's environments and one currency (the same external
 * id in live and test, or in BRL and JPY, is two players). `internalUserId` is the user code
 * this service uses for the player at the aggregator: unique across partners, environments
 * and currencies, never reused. `balance` (in minor units) is the last balance the
 * partner confirmed (at launch, or through the wallet); null for a shadow
 * player, whose balance only the partner keeps (and so its name and e-mail).
 */
export class PartnerPlayer extends Schema.Class<PartnerPlayer>("PartnerPlayer")({
  id: Schema.Int,
  partnerId: Schema.Int,
  environment: Environment,
  externalPlayerId: Schema.String,
  internalUserId: Schema.Int,
  /** The currency this row of the player plays in: a player has one row, user code and balance per currency. */
  currency: Schema.String,
  name: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  balance: Schema.NullOr(Schema.BigInt)
}) {
  /** A shadow player: the service keeps no balance of it (its partner's player_mode was `shadow` at its last launch). */
  get isShadow(): boolean {
    return this.balance === null
  }
}

/**
 * What never changes about a player once created: who it is, whose, in which environment, and its user code
 * (never reused). The wallet keeps it in memory by user code; the balance, name and e-mail are read afresh.
 */
export type PlayerIdentity = Pick<
  PartnerPlayer,
  "id" | "partnerId" | "environment" | "externalPlayerId" | "internalUserId" | "currency"
>

/** What may change about a player: its mirror (null: a shadow player), name and e-mail. */
export type PlayerState = Pick<PartnerPlayer, "balance" | "name" | "email">

export const playerOf = (identity: PlayerIdentity, state: PlayerState): PartnerPlayer =>
  new PartnerPlayer({
    id: identity.id,
    partnerId: identity.partnerId,
    environment: identity.environment,
    externalPlayerId: identity.externalPlayerId,
    internalUserId: identity.internalUserId,
    currency: identity.currency,
    name: state.name,
    email: state.email,
    balance: state.balance
  })
