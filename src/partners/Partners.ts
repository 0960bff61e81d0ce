import { Cache, Context, Duration, Effect, Exit, Layer, Option, Result, Schema, SchemaIssue } from "effect"
import { hash, randomBytes } from "node:crypto"
import { changedCurrencySettings } from "../domain/Currency.ts"
import { type Environment, tokenPrefix } from "../domain/Environment.ts"
import type {
  IssuedToken,
  Partner,
  PartnerAccess,
  PartnerEnvironmentSettings,
  PartnerStatus
} from "../domain/Partner.ts"
import { tokenDisplayPrefix } from "../domain/Partner.ts"
import type { RtpPolicy } from "../domain/RtpPolicy.ts"
import { slugify } from "../domain/Slug.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { CurrencyConfig } from "../platform/CurrencyConfig.ts"
import { CallbackUrlPolicy } from "./CallbackUrlPolicy.ts"
import {
  type CreatedPartner,
  type CurrencyChange,
  InvalidPartnerInput,
  type NewPartner,
  type PartnerChanges,
  PartnerFields,
  PartnerNotFound
} from "./PartnerInputs.ts"
import { makeTokenCache } from "./TokenCache.ts"
import { type InsertedPartner, PartnerRepo, SlugTaken } from "./PartnerRepo.ts"
import { PartnersConfig } from "./PartnersConfig.ts"
import type { TokenInsert } from "./PartnerWrites.ts"
import * as TokenUsage from "./TokenUsage.ts"

/** Tokens are `pak_live_` or `pak_test_` + 32 random bytes; only their SHA-256 is stored. */
export const generateToken = (environment: Environment) =>
  `${tokenPrefix(environment)}${randomBytes(32).toString("base64url")}`
export const hashToken = (token: string): Uint8Array => hash("sha256", token, "buffer")
/** What is stored of a token: its hash and the characters it shows of itself. */
const stored = (token: string): TokenInsert => ({ hash: hashToken(token), prefix: tokenDisplayPrefix(token) })

/** Who a token admits, as the request path reads it. */
export interface TokenAccess {
  readonly partner: Option.Option<PartnerAccess>
  /** Whether the token belonged to a partner when this instance last looked it up (within a day). */
  readonly known: boolean
}

const validate = Schema.decodeUnknownEffect(PartnerFields, { errors: "all" })
const validatePartial = Schema.decodeUnknownEffect(
  Schema.Struct(PartnerFields.fields).mapFields((fields) => ({
    name: Schema.optional(fields.name),
    commissionPercent: Schema.optional(fields.commissionPercent),
    callbackUrl: Schema.optional(fields.callbackUrl),
    testCallbackUrl: Schema.optional(fields.testCallbackUrl),
    rateLimitPerMinute: Schema.optional(fields.rateLimitPerMinute)
  })),
  { errors: "all" }
)

const fieldNames: Record<string, string> = {
  name: "name",
  slug: "slug",
  status: "status",
  commissionPercent: "commission",
  callbackUrl: "callback URL",
  testCallbackUrl: "test callback URL",
  rateLimitPerMinute: "rate limit"
}
const issueFormatter = SchemaIssue.makeFormatterStandardSchemaV1()

const toInputError = (error: Schema.SchemaError) =>
  new InvalidPartnerInput({
    message: issueFormatter(error.issue).issues
      .map(({ message, path }) => `Invalid ${fieldNames[String(path?.[0])] ?? "value"}: ${message}.`)
      .join(" ")
  })

/**
 * Partners: token authentication for the hot path, and the operator's
 * account management used by the admin CLI.
 */
export class Partners extends Context.Service<Partners, {
  /**
   * The partner holding this token, when the token is known. Both answers are kept briefly in memory
   * (AUTH_CACHE_TTL), apart: unknown tokens never take the place of a real partner.
   */
  authenticate(token: string): Effect.Effect<Option.Option<PartnerAccess>>
  /**
   * The same, for the request path: the token is hashed once, a partner kept in memory is answered at
   * once, and only before a database look-up does `beforeLookup` run, told whether the token belonged
   * to a partner when this instance last looked it up (within a day); its failure stops the look-up.
   * `known` says the same of the token in the answer.
   */
  access<E>(
    token: string,
    beforeLookup: (known: boolean) => Effect.Effect<void, E>
  ): Effect.Effect<TokenAccess, E>
  /** A new partner, with a token and a webhook secret per environment (shown to the operator this once). */
  create(input: NewPartner): Effect.Effect<CreatedPartner, InvalidPartnerInput | SlugTaken>
  readonly list: Effect.Effect<ReadonlyArray<Partner>>
  readonly count: Effect.Effect<number>
  show(slug: string): Effect.Effect<Partner, PartnerNotFound>
  findById(id: number): Effect.Effect<Option.Option<Partner>>
  setStatus(slug: string, status: PartnerStatus): Effect.Effect<Partner, PartnerNotFound>
  /**
   * A new token for the environment (live unless said). Without `keepOld` every other token of the environment
   * stops working at once; with it, the one it had stays valid for that long beside the new one.
   */
  rotateToken(
    slug: string,
    environment?: Environment,
    token?: string,
    keepOld?: Duration.Duration
  ): Effect.Effect<{ partner: Partner; token: string }, PartnerNotFound>
  /** Withdraws the environment's token: it stops working at once, and none is issued until rotateToken. Whether it had one. */
  withdrawToken(slug: string, environment: Environment): Effect.Effect<boolean, PartnerNotFound>
  /** The environment's tokens still in an overlap stop working now. */
  endTokenOverlap(partner: Pick<Partner, "id">, environment: Environment): Effect.Effect<void>
  /** The partner's working tokens (never the tokens themselves), both environments. */
  tokensOf(partner: Pick<Partner, "id">): Effect.Effect<ReadonlyArray<IssuedToken>>
  update(slug: string, changes: PartnerChanges): Effect.Effect<Partner, PartnerNotFound | InvalidPartnerInput>
  /**
   * A new webhook secret in the environment; the old one keeps signing beside it for `overlap`
   * (PARTNER_WEBHOOK_SECRET_OVERLAP unless said).
   */
  rotateWebhookSecret(
    slug: string,
    environment?: Environment,
    overlap?: Duration.Duration
  ): Effect.Effect<{ partner: Partner; webhookSecret: string }, PartnerNotFound>
  /** Each partner's environments (callback URL, when its token was issued), without secrets. */
  environmentsOf(partners: ReadonlyArray<Pick<Partner, "id">>): Effect.Effect<ReadonlyArray<PartnerEnvironmentSettings>>
  /** What the partner's launches do with `user_rtp` from now on (every instance, at once: the change is announced). */
  setRtpPolicy(slug: string, policy: RtpPolicy): Effect.Effect<Partner, PartnerNotFound>
  /**
   * The partner's default currency and its restriction, from the next launch (announced as every change). Refused
   * (InvalidPartnerInput, saying what to do) for a code the deployment does not accept (CurrencyConfig), an empty or
   * too long restriction, or a restriction leaving the default out.
   */
  setCurrencies(slug: string, change: CurrencyChange): Effect.Effect<Partner, PartnerNotFound | InvalidPartnerInput>
}>()("partner-api/partners/Partners") {
  static readonly layerNoDeps = Layer.effect(
    Partners,
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const config = yield* AppConfig
      const partnersConfig = yield* PartnersConfig
      const urlPolicy = yield* CallbackUrlPolicy
      const currencyConfig = yield* CurrencyConfig

      // All three are keyed by the token's hash, so no raw token is kept in memory.
      const authCacheTtlMillis = config.authCacheTtlMillis
      // The partners found, each for AUTH_CACHE_TTL. Only found partners are put in (below), so no unknown
      // token, however many come, takes the place of a real partner. Read on every request: a plain map.
      const found = makeTokenCache<PartnerAccess>(10_000)
      // Look-ups in flight (concurrent requests with one token share one query), and the misses, kept as
      // long: a client repeating an unknown token asks the database once per AUTH_CACHE_TTL. Small: a
      // guesser sending new tokens gets nothing from it, and the per-address limit (PartnerAuth.ts) is
      // what stops it.
      const lookups = yield* Cache.makeWith(
        (hashBase64: string) => repo.findByTokenHash(Buffer.from(hashBase64, "base64")),
        {
          capacity: 1_000,
          timeToLive: (exit) =>
            Exit.isSuccess(exit) && Option.isNone(exit.value) ? Duration.millis(authCacheTtlMillis) : Duration.zero
        }
      )
      // Tokens that belonged to a partner lately: only a hint for the per-address limit, never an admission.
      const known = makeTokenCache<true>(10_000)
      const knownForMillis = Duration.toMillis(Duration.days(1))
      // Bumped by every change, so a look-up that began before one does not put a stale partner back.
      let generation = 0
      const forgetCachedTokens = Effect.andThen(
        Effect.sync(() => {
          generation++
          found.clear()
        }),
        Cache.invalidateAll(lookups)
      )

      // A change made anywhere (another instance, the admin CLI) empties the
      // cache at once; the TTL remains the bound if the listener is down.
      yield* repo.onChange(forgetCachedTokens)
      const usage = yield* TokenUsage.make(repo, partnersConfig.tokenLastUsedInterval)

      /** The operator's callback URL, judged by the policy (form, and where its host resolves). */
      const checkCallbackUrl = (url: string | null | undefined) =>
        url === null || url === undefined
          ? Effect.void
          : urlPolicy.check(url).pipe(
            Effect.mapError((unsafe) =>
              new InvalidPartnerInput({ message: `Invalid callback URL: ${unsafe.message}.` })
            )
          )

      /**
       * The database's answer for a token not kept in memory; a partner found is kept (unless a change came
       * meanwhile) for AUTH_CACHE_TTL, and never past its token's end (a token rolled with an overlap).
       */
      const lookUp = (key: string) => {
        const startedAt = generation
        return Effect.flatMap(Cache.get(lookups, key), (result) =>
          Effect.clockWith((clock) => {
            if (Option.isSome(result)) {
              const now = clock.currentTimeMillisUnsafe()
              const tokenEnd = result.value.tokenExpiresAt?.getTime() ?? Number.POSITIVE_INFINITY
              if (startedAt === generation) found.set(key, result.value, Math.min(now + authCacheTtlMillis, tokenEnd))
              known.set(key, true, now + knownForMillis)
            }
            return Effect.succeed(result)
          }))
      }

      /** A token that admits its partner now is noted as used (written later, off this path). */
      const admitted = (key: string, now: number, partner: Option.Option<PartnerAccess>) => {
        if (Option.isNone(partner) || !partner.value.admitsAt(now)) return Option.none<PartnerAccess>()
        usage.note(key, now)
        return partner
      }

      const access = <E>(token: string, beforeLookup: (known: boolean) => Effect.Effect<void, E>) =>
        Effect.clockWith((clock): Effect.Effect<TokenAccess, E> => {
          const key = hash("sha256", token, "base64")
          const now = clock.currentTimeMillisUnsafe()
          const partner = found.get(key, now)
          if (partner !== undefined) {
            return Effect.succeed({ partner: admitted(key, now, Option.some(partner)), known: true })
          }
          const wasKnown = known.has(key, now)
          return Effect.andThen(
            beforeLookup(wasKnown),
            Effect.map(
              lookUp(key),
              (partner): TokenAccess => ({ partner: admitted(key, now, partner), known: wasKnown })
            )
          )
        })

      const authenticate = (token: string) => Effect.map(access(token, () => Effect.void), (result) => result.partner)

      const show = (slug: string) =>
        repo.findBySlug(slug).pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(new PartnerNotFound({ slug })),
            onSome: Effect.succeed
          }))
        )

      const updated = (slug: string) => (result: Option.Option<Partner>) =>
        Option.match(result, {
          onNone: () => Effect.fail(new PartnerNotFound({ slug })),
          onSome: (partner) => Effect.as(forgetCachedTokens, partner)
        })

      const create = Effect.fn("Partners.create")(function*(input: NewPartner) {
        const explicitSlug = input.slug !== undefined
        const fields = yield* validate({
          name: input.name,
          slug: input.slug ?? slugify(input.name, "partner"),
          status: input.status ?? "active",
          commissionPercent: input.commissionPercent ?? 0,
          callbackUrl: input.callbackUrl ?? null,
          testCallbackUrl: input.testCallbackUrl ?? null,
          rateLimitPerMinute: input.rateLimitPerMinute ?? null
        }).pipe(Effect.mapError(toInputError))
        yield* checkCallbackUrl(fields.callbackUrl)
        yield* checkCallbackUrl(fields.testCallbackUrl)
        const token = input.token ?? generateToken("live")
        const testToken = generateToken("test")
        const insert = (slug: string) =>
          repo.insert({
            ...fields,
            slug,
            environments: {
              live: { callbackUrl: fields.callbackUrl, token: stored(token) },
              test: { callbackUrl: fields.testCallbackUrl, token: stored(testToken) }
            }
          })
        // A slug derived from the name gets a numeric suffix on collision; an explicit one is the operator's call.
        const insertWithFreeSlug = (attempt: number): Effect.Effect<InsertedPartner, SlugTaken> =>
          insert(attempt === 1 ? fields.slug : `${fields.slug.slice(0, 95)}-${attempt}`).pipe(
            Effect.catchTag(
              "SlugTaken",
              (taken) => attempt < 100 ? insertWithFreeSlug(attempt + 1) : Effect.fail(taken)
            )
          )
        const { partner, webhookSecrets } = yield* (explicitSlug ? insert(fields.slug) : insertWithFreeSlug(1))
        return {
          partner,
          token,
          webhookSecret: webhookSecrets.live,
          test: { token: testToken, webhookSecret: webhookSecrets.test }
        }
      })

      const rotateToken = Effect.fn("Partners.rotateToken")(
        function*(slug: string, environment: Environment = "live", newToken?: string, keepOld?: Duration.Duration) {
          const token = newToken ?? generateToken(environment)
          const partner = yield* repo.setToken(slug, environment, stored(token), keepOld).pipe(
            Effect.flatMap(updated(slug))
          )
          return { partner, token }
        }
      )

      const update = Effect.fn("Partners.update")(function*(slug: string, changes: PartnerChanges) {
        const { callbackUrl, testCallbackUrl, ...valid } = yield* validatePartial(changes).pipe(
          Effect.mapError(toInputError)
        )
        yield* checkCallbackUrl(callbackUrl)
        yield* checkCallbackUrl(testCallbackUrl)
        return yield* repo.update(slug, { ...valid, callbackUrls: { live: callbackUrl, test: testCallbackUrl } }).pipe(
          Effect.flatMap(updated(slug))
        )
      })

      const setCurrencies = Effect.fn("Partners.setCurrencies")(function*(slug: string, change: CurrencyChange) {
        const partner = yield* show(slug)
        const settings = changedCurrencySettings(
          partner,
          change,
          currencyConfig.currencies,
          currencyConfig.defaultCurrency
        )
        if (Result.isFailure(settings)) return yield* new InvalidPartnerInput({ message: settings.failure })
        return yield* repo.update(slug, settings.success).pipe(Effect.flatMap(updated(slug)))
      })

      return Partners.of({
        authenticate,
        access,
        create,
        list: repo.list,
        count: repo.count,
        show,
        findById: repo.findById,
        setStatus: (slug, status) => repo.update(slug, { status }).pipe(Effect.flatMap(updated(slug))),
        setRtpPolicy: (slug, rtpPolicy) => repo.update(slug, { rtpPolicy }).pipe(Effect.flatMap(updated(slug))),
        setCurrencies,
        rotateToken,
        withdrawToken: (slug, environment) =>
          repo.removeToken(slug, environment).pipe(Effect.flatMap(Option.match({
            onNone: () => Effect.fail(new PartnerNotFound({ slug })),
            onSome: (had) => Effect.as(forgetCachedTokens, had)
          }))),
        update,
        environmentsOf: (partners) => repo.environmentsOf(partners.map((partner) => partner.id)),
        endTokenOverlap: (partner, environment) =>
          Effect.andThen(repo.endTokenOverlap(partner.id, environment), forgetCachedTokens),
        tokensOf: (partner) => repo.tokensOf(partner.id),
        rotateWebhookSecret: (slug, environment = "live", overlap = partnersConfig.webhookSecretOverlap) =>
          repo.rotateWebhookSecret(slug, environment, overlap).pipe(
            Effect.flatMap(Option.match({
              onNone: () => Effect.fail(new PartnerNotFound({ slug })),
              onSome: Effect.succeed
            }))
          )
      })
    })
  )

  static readonly layer = this.layerNoDeps.pipe(
    Layer.provide(Layer.merge(PartnerRepo.layerSql, CallbackUrlPolicy.layer))
  )
}
