import { Cache, Context, Duration, Effect, Exit, Layer, Option, Schema, SchemaIssue } from "effect"
import { hash, randomBytes } from "node:crypto"
import type { Partner, PartnerAccess, PartnerStatus } from "../domain/Partner.ts"
import { PartnerStatus as PartnerStatusSchema } from "../domain/Partner.ts"
import { slugify } from "../domain/Slug.ts"
import { AppConfig } from "../platform/AppConfig.ts"
import { CallbackUrlPolicy } from "./CallbackUrlPolicy.ts"
import { PartnerRepo, SlugTaken } from "./PartnerRepo.ts"
import { PartnersConfig } from "./PartnersConfig.ts"

/** Tokens are `pak_` + 32 random bytes; only their SHA-256 is stored. */
export const generateToken = () => `pak_${randomBytes(32).toString("base64url")}`
export const hashToken = (token: string): Uint8Array => hash("sha256", token, "buffer")

/** What an operator may set on a partner. Shared by create and update. */
export const PartnerFields = Schema.Struct({
  name: Schema.String.check(Schema.isTrimmed(), Schema.isMinLength(1), Schema.isMaxLength(255)),
  slug: Schema.String.check(
    Schema.isPattern(/^[a-z0-9]+(-[a-z0-9]+)*$/, {
      message: "must be lowercase letters, digits and single dashes (e.g. acme-bets)"
    }),
    Schema.isMaxLength(100)
  ),
  status: PartnerStatusSchema,
  commissionPercent: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 100 })),
  // Its form and where it leads are the CallbackUrlPolicy's to judge.
  callbackUrl: Schema.NullOr(Schema.String.check(Schema.isMaxLength(2048))),
  /** Requests a minute on the partner API; null follows PARTNER_RATE_LIMIT. */
  rateLimitPerMinute: Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000_000 })))
})

export class PartnerNotFound extends Schema.TaggedError<PartnerNotFound>()("PartnerNotFound", {
  slug: Schema.String
}) {
  override get message() {
    return `No partner with slug "${this.slug}".`
  }
}

export class InvalidPartnerInput extends Schema.TaggedError<InvalidPartnerInput>()("InvalidPartnerInput", {
  message: Schema.String
}) {}

export interface NewPartner {
  readonly name: string
  readonly slug?: string | undefined
  readonly status?: PartnerStatus | undefined
  readonly commissionPercent?: number | undefined
  readonly callbackUrl?: string | null | undefined
  /** Requests a minute on the partner API; absent or null: PARTNER_RATE_LIMIT. */
  readonly rateLimitPerMinute?: number | null | undefined
  /** A token to install instead of a generated one (the demo partner's). */
  readonly token?: string | undefined
}

export interface PartnerChanges {
  readonly name?: string | undefined
  readonly commissionPercent?: number | undefined
  readonly callbackUrl?: string | null | undefined
  /** null: back to PARTNER_RATE_LIMIT. */
  readonly rateLimitPerMinute?: number | null | undefined
}

const validate = Schema.decodeUnknownEffect(PartnerFields, { errors: "all" })
const validatePartial = Schema.decodeUnknownEffect(Schema.Struct(PartnerFields.fields).mapFields((fields) => ({
  name: Schema.optional(fields.name),
  commissionPercent: Schema.optional(fields.commissionPercent),
  callbackUrl: Schema.optional(fields.callbackUrl),
  rateLimitPerMinute: Schema.optional(fields.rateLimitPerMinute)
})), { errors: "all" })

const fieldNames: Record<string, string> = {
  name: "name",
  slug: "slug",
  status: "status",
  commissionPercent: "commission",
  callbackUrl: "callback URL",
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
  /** Whether this token belonged to a partner when this instance last looked it up (within a day). */
  isKnownToken(token: string): Effect.Effect<boolean>
  /** A new partner, with its token and webhook secret (shown to the operator this once). */
  create(input: NewPartner): Effect.Effect<
    { partner: Partner; token: string; webhookSecret: string },
    InvalidPartnerInput | SlugTaken
  >
  readonly list: Effect.Effect<ReadonlyArray<Partner>>
  readonly count: Effect.Effect<number>
  show(slug: string): Effect.Effect<Partner, PartnerNotFound>
  findById(id: number): Effect.Effect<Option.Option<Partner>>
  setStatus(slug: string, status: PartnerStatus): Effect.Effect<Partner, PartnerNotFound>
  rotateToken(slug: string, token?: string): Effect.Effect<{ partner: Partner; token: string }, PartnerNotFound>
  update(slug: string, changes: PartnerChanges): Effect.Effect<Partner, PartnerNotFound | InvalidPartnerInput>
  /** A new webhook secret; the old one keeps signing beside it for PARTNER_WEBHOOK_SECRET_OVERLAP. */
  rotateWebhookSecret(slug: string): Effect.Effect<{ partner: Partner; webhookSecret: string }, PartnerNotFound>

}>()("partner-api/partners/Partners") {
  static readonly layerNoDeps = Layer.effect(
    Partners,
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const config = yield* AppConfig
      const partnersConfig = yield* PartnersConfig
      const urlPolicy = yield* CallbackUrlPolicy

      // All three are keyed by the token's hash, so no raw token is kept in memory.
      const authCacheTtl = Duration.millis(config.authCacheTtlMillis)
      // The partners found, for AUTH_CACHE_TTL. Only found partners are put in (below), so no unknown
      // token, however many come, takes the place of a real partner.
      const found = yield* Cache.make({
        capacity: 10_000,
        timeToLive: authCacheTtl,
        lookup: (_hashBase64: string): Effect.Effect<PartnerAccess> => Effect.die("Partners: found partners are only set, never looked up")
      })
      // Look-ups in flight (concurrent requests with one token share one query), and the misses, kept as
      // long: a client repeating an unknown token asks the database once per AUTH_CACHE_TTL. Small: a
      // guesser sending new tokens gets nothing from it, and the per-address limit (PartnerAuth.ts) is
      // what stops it.
      const lookups = yield* Cache.makeWith(
        (hashBase64: string) => repo.findByTokenHash(Buffer.from(hashBase64, "base64")),
        {
          capacity: 1_000,
          timeToLive: (exit) => Exit.isSuccess(exit) && Option.isNone(exit.value) ? authCacheTtl : Duration.zero
        }
      )
      // Tokens that belonged to a partner lately: only a hint for the per-address limit, never an admission.
      const known = yield* Cache.make({
        capacity: 10_000,
        timeToLive: Duration.days(1),
        lookup: (_hashBase64: string) => Effect.void
      })
      // Bumped by every change, so a look-up that began before one does not put a stale partner back.
      let generation = 0
      const forgetCachedTokens = Effect.andThen(
        Effect.sync(() => generation++),
        Effect.andThen(Cache.invalidateAll(found), Cache.invalidateAll(lookups))
      )

      // A change made anywhere (another instance, the admin CLI) empties the
      // cache at once; the TTL remains the bound if the listener is down.
      yield* repo.onChange(forgetCachedTokens)

      /** The operator's callback URL, judged by the policy (form, and where its host resolves). */
      const checkCallbackUrl = (url: string | null | undefined) =>
        url === null || url === undefined
          ? Effect.void
          : urlPolicy.check(url).pipe(
            Effect.mapError((unsafe) => new InvalidPartnerInput({ message: `Invalid callback URL: ${unsafe.message}.` }))
          )

      const authenticate = Effect.fnUntraced(function*(token: string) {
        const key = hash("sha256", token, "base64")
        const cached = yield* Cache.getSuccess(found, key)
        if (Option.isSome(cached)) return cached
        const startedAt = generation
        const result = yield* Cache.get(lookups, key)
        if (Option.isSome(result)) {
          if (startedAt === generation) yield* Cache.set(found, key, result.value)
          yield* Cache.set(known, key, undefined)
        }
        return result
      })

      const isKnownToken = (token: string) => Cache.has(known, hash("sha256", token, "base64"))

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
          rateLimitPerMinute: input.rateLimitPerMinute ?? null
        }).pipe(Effect.mapError(toInputError))
        yield* checkCallbackUrl(fields.callbackUrl)
        const token = input.token ?? generateToken()
        const insert = (slug: string) => repo.insert({ ...fields, slug, tokenHash: hashToken(token) })
        // A slug derived from the name gets a numeric suffix on collision; an explicit one is the operator's call.
        const insertWithFreeSlug = (attempt: number): Effect.Effect<{ partner: Partner; webhookSecret: string }, SlugTaken> =>
          insert(attempt === 1 ? fields.slug : `${fields.slug.slice(0, 95)}-${attempt}`).pipe(
            Effect.catchTag("SlugTaken", (taken) => attempt < 100 ? insertWithFreeSlug(attempt + 1) : Effect.fail(taken))
          )
        const { partner, webhookSecret } = yield* (explicitSlug ? insert(fields.slug) : insertWithFreeSlug(1))
        return { partner, token, webhookSecret }
      })

      const rotateToken = Effect.fn("Partners.rotateToken")(function*(slug: string, newToken?: string) {
        const token = newToken ?? generateToken()
        const partner = yield* repo.update(slug, { tokenHash: hashToken(token) }).pipe(Effect.flatMap(updated(slug)))
        return { partner, token }
      })

      const update = Effect.fn("Partners.update")(function*(slug: string, changes: PartnerChanges) {
        const valid = yield* validatePartial(changes).pipe(Effect.mapError(toInputError))
        yield* checkCallbackUrl(valid.callbackUrl)
        return yield* repo.update(slug, valid).pipe(Effect.flatMap(updated(slug)))
      })

      return Partners.of({
        authenticate,
        isKnownToken,
        create,
        list: repo.list,
        count: repo.count,
        show,
        findById: repo.findById,
        setStatus: (slug, status) => repo.update(slug, { status }).pipe(Effect.flatMap(updated(slug))),
        rotateToken,
        update,
        rotateWebhookSecret: (slug) =>
          repo.rotateWebhookSecret(slug, partnersConfig.webhookSecretOverlap).pipe(
            Effect.flatMap(Option.match({
              onNone: () => Effect.fail(new PartnerNotFound({ slug })),
              onSome: Effect.succeed
            }))
          )
      })
    })
  )

  static readonly layer = this.layerNoDeps.pipe(Layer.provide(Layer.merge(PartnerRepo.layerSql, CallbackUrlPolicy.layer)))
}
