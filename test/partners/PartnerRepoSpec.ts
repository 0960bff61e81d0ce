import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import type { Environment } from "../../src/domain/Environment.ts"
import { passRtp } from "../../src/domain/RtpPolicy.ts"
import { type PartnerInsert, PartnerRepo, SlugTaken } from "../../src/partners/PartnerRepo.ts"

/**
 * What PartnerRepo promises, whichever form keeps it: run over PostgreSQL (layerSql) and over memory (layerMemory)
 * by partner-repo.test.ts, so the twin the handler specs stand on answers as the SQL does. The file's tests share the
 * layer's rows: each makes partners of its own slugs and tokens. `age` makes an overlap pass in each form's way (the
 * partner's token expiries moved back, or the test clock moved on).
 */
export const partnerRepoSpec = <R>(
  it: Vitest.MethodsNonLive<PartnerRepo | R>,
  age: (partnerId: number, by: Duration.Duration) => Effect.Effect<void, never, R>
) => {
  const unique = () => randomBytes(4).toString("hex")
  const token = () => ({ hash: randomBytes(32), prefix: `pak_test_${unique()}` })
  const insertOf = (overrides: Partial<PartnerInsert> = {}): PartnerInsert => {
    const slug = `p-${unique()}`
    return {
      name: `Partner ${slug}`,
      slug,
      status: "active",
      commissionPercent: 12.5,
      rateLimitPerMinute: null,
      environments: {
        live: { callbackUrl: "https://live.example/wallet", token: token() },
        test: { callbackUrl: null, token: token() }
      },
      ...overrides
    }
  }
  const given = (overrides: Partial<PartnerInsert> = {}) =>
    Effect.gen(function*() {
      const input = insertOf(overrides)
      const inserted = yield* (yield* PartnerRepo).insert(input).pipe(Effect.orDie)
      return { input, ...inserted }
    })
  const environmentOf = (partnerId: number, environment: Environment) =>
    Effect.map(
      Effect.flatMap(Effect.service(PartnerRepo), (repo) => repo.environmentsOf([partnerId])),
      (settings) => settings.find((one) => one.environment === environment)!
    )

  it.effect("a new partner has both environments, each with its token and its own webhook secret; a slug is taken once", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const before = yield* repo.count
      const { input, partner, webhookSecrets } = yield* given({ rateLimitPerMinute: 120 })
      assert.deepStrictEqual(
        [partner.name, partner.slug, partner.status, partner.commissionPercent, partner.rateLimitPerMinute],
        [input.name, input.slug, "active", 12.5, 120]
      )
      assert.strictEqual(partner.callbackUrl, "https://live.example/wallet", "the partner's callback URL is live's")
      assert.deepStrictEqual(partner.rtpPolicy, passRtp)
      assert.deepStrictEqual([partner.defaultCurrency, partner.currencies], [null, null], "the deployment's currencies")
      assert.strictEqual(partner.createdAt.getTime(), partner.updatedAt.getTime())
      assert.match(webhookSecrets.live, /^whsec_\w+$/)
      assert.match(webhookSecrets.test, /^whsec_\w+$/)
      assert.notStrictEqual(webhookSecrets.live, webhookSecrets.test)

      const taken = yield* Effect.flip(repo.insert(insertOf({ slug: input.slug, name: "Another" })))
      assert.instanceOf(taken, SlugTaken)
      assert.strictEqual(taken.slug, input.slug)
      assert.strictEqual(yield* repo.count, before + 1, "the refused insert left nothing")
      assert.strictEqual(Option.getOrThrow(yield* repo.findBySlug(input.slug)).name, input.name)
    }))

  it.effect("a partner is found by slug and by id and listed in the order of its ids; an unknown one is none", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const first = (yield* given()).partner
      const second = (yield* given()).partner
      assert.deepStrictEqual(Option.getOrThrow(yield* repo.findBySlug(second.slug)), second)
      assert.deepStrictEqual(Option.getOrThrow(yield* repo.findById(first.id)), first)
      assert.isTrue(Option.isNone(yield* repo.findBySlug(`none-${unique()}`)))
      assert.isTrue(Option.isNone(yield* repo.findById(second.id + 1_000_000)))
      const listed = (yield* repo.list).map((partner) => partner.id)
      assert.deepStrictEqual(listed.filter((id) => id === first.id || id === second.id), [first.id, second.id])
      assert.deepStrictEqual(listed, [...listed].sort((a, b) => a - b))
    }))

  it.effect("a token finds its partner in its own environment, as current (no end); another token finds nothing", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const { input, partner } = yield* given()
      for (const environment of ["live", "test"] as const) {
        const access = Option.getOrThrow(yield* repo.findByTokenHash(input.environments[environment].token.hash))
        assert.deepStrictEqual([access.id, access.slug, access.environment], [partner.id, partner.slug, environment])
        assert.strictEqual(access.commissionPercent, 12.5)
        assert.strictEqual(access.callbackUrl, "https://live.example/wallet")
        assert.isTrue(access.tokenExpiresAt === undefined || access.tokenExpiresAt === null)
      }
      assert.isTrue(Option.isNone(yield* repo.findByTokenHash(randomBytes(32))))
    }))

  it.effect("an update changes what it names and nothing else; callback URLs are per environment, null clears", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const { input, partner } = yield* given()
      const clamp = { mode: "clamp", min: 85, max: 96 } as const
      const changed = Option.getOrThrow(
        yield* repo.update(input.slug, {
          name: "Renamed",
          commissionPercent: 7.25,
          rateLimitPerMinute: 50,
          rtpPolicy: clamp,
          callbackUrls: { test: "https://test.example/wallet" }
        })
      )
      assert.deepStrictEqual(
        [changed.id, changed.slug, changed.name, changed.status, changed.commissionPercent, changed.rateLimitPerMinute],
        [partner.id, partner.slug, "Renamed", "active", 7.25, 50]
      )
      assert.deepStrictEqual(changed.rtpPolicy, clamp)
      assert.strictEqual(changed.callbackUrl, "https://live.example/wallet", "the live URL was not named")
      assert.strictEqual(changed.createdAt.getTime(), partner.createdAt.getTime())
      assert.isTrue(changed.updatedAt.getTime() >= partner.updatedAt.getTime())
      assert.strictEqual((yield* environmentOf(partner.id, "test")).callbackUrl, "https://test.example/wallet")

      const cleared = Option.getOrThrow(
        yield* repo.update(input.slug, { status: "inactive", rateLimitPerMinute: null, callbackUrls: { live: null } })
      )
      assert.deepStrictEqual(
        [cleared.name, cleared.status, cleared.rateLimitPerMinute, cleared.callbackUrl],
        ["Renamed", "inactive", null, null]
      )
      assert.strictEqual((yield* environmentOf(partner.id, "test")).callbackUrl, "https://test.example/wallet")
      assert.deepStrictEqual(Option.getOrThrow(yield* repo.findById(partner.id)), cleared)
      assert.isTrue(Option.isNone(yield* repo.update(`none-${unique()}`, { name: "Nobody" })))
    }))

  it.effect("a partner's currencies are set, kept by other changes, read by its tokens too, and cleared by null", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const { input, partner } = yield* given()
      const set = Option.getOrThrow(
        yield* repo.update(input.slug, { defaultCurrency: "mBTC", currencies: ["mBTC", "BRL", "USDT"] })
      )
      assert.deepStrictEqual([set.defaultCurrency, set.currencies], ["mBTC", ["mBTC", "BRL", "USDT"]], "in its order")
      const renamed = Option.getOrThrow(yield* repo.update(input.slug, { name: "Renamed" }))
      assert.deepStrictEqual([renamed.defaultCurrency, renamed.currencies], ["mBTC", ["mBTC", "BRL", "USDT"]])
      const access = Option.getOrThrow(yield* repo.findByTokenHash(input.environments.test.token.hash))
      assert.deepStrictEqual([access.defaultCurrency, access.currencies], ["mBTC", ["mBTC", "BRL", "USDT"]])
      const onlyList = Option.getOrThrow(yield* repo.update(input.slug, { currencies: ["mBTC"] }))
      assert.deepStrictEqual([onlyList.defaultCurrency, onlyList.currencies], ["mBTC", ["mBTC"]])
      const cleared = Option.getOrThrow(yield* repo.update(input.slug, { defaultCurrency: null, currencies: null }))
      assert.deepStrictEqual([cleared.defaultCurrency, cleared.currencies], [null, null])
      assert.deepStrictEqual(Option.getOrThrow(yield* repo.findById(partner.id)), cleared)
    }))

  it.effect("a new token replaces the old at once, or keeps it valid beside it until its overlap ends or is ended", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const { input, partner } = yield* given()
      const first = input.environments.live.token
      const second = token()
      assert.isTrue(Option.isSome(yield* repo.setToken(input.slug, "live", second)))
      assert.isTrue(Option.isNone(yield* repo.findByTokenHash(first.hash)), "replaced at once")
      assert.isTrue(Option.isSome(yield* repo.findByTokenHash(second.hash)))

      const third = token()
      yield* repo.setToken(input.slug, "live", third, Duration.hours(1))
      const rolled = Option.getOrThrow(yield* repo.findByTokenHash(second.hash))
      assert.instanceOf(rolled.tokenExpiresAt, Date, "the rolled token says when it stops")
      assert.isTrue(Option.isSome(yield* repo.findByTokenHash(third.hash)))
      const tokens = yield* repo.tokensOf(partner.id)
      assert.deepStrictEqual(
        tokens.map((one) => [one.environment, one.prefix, one.expiresAt === null]),
        [
          ["live", third.prefix, true],
          ["live", second.prefix, false],
          ["test", input.environments.test.token.prefix, true]
        ],
        "each environment's current token first"
      )
      assert.deepStrictEqual(tokens[1].expiresAt, rolled.tokenExpiresAt)

      yield* repo.endTokenOverlap(partner.id, "live")
      assert.isTrue(Option.isNone(yield* repo.findByTokenHash(second.hash)), "the overlap ended now")
      assert.isTrue(Option.isSome(yield* repo.findByTokenHash(third.hash)))
      assert.deepStrictEqual((yield* repo.tokensOf(partner.id)).map((one) => one.prefix), [
        third.prefix,
        input.environments.test.token.prefix
      ])

      const fourth = token()
      yield* repo.setToken(input.slug, "live", fourth, Duration.hours(1))
      yield* age(partner.id, Duration.hours(2))
      assert.isTrue(Option.isNone(yield* repo.findByTokenHash(third.hash)), "the overlap ran out")
      assert.isTrue(Option.isSome(yield* repo.findByTokenHash(fourth.hash)))
      assert.deepStrictEqual((yield* repo.tokensOf(partner.id)).map((one) => one.prefix), [
        fourth.prefix,
        input.environments.test.token.prefix
      ])
      assert.isTrue(Option.isNone(yield* repo.setToken(`none-${unique()}`, "live", token())))
    }))

  it.effect("removing an environment's tokens stops them and says whether it had one; the other environment keeps its own", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const { input, partner } = yield* given()
      assert.deepStrictEqual(yield* repo.removeToken(input.slug, "test"), Option.some(true))
      assert.deepStrictEqual(yield* repo.removeToken(input.slug, "test"), Option.some(false))
      assert.isTrue(Option.isNone(yield* repo.findByTokenHash(input.environments.test.token.hash)))
      assert.isTrue(Option.isSome(yield* repo.findByTokenHash(input.environments.live.token.hash)))
      assert.isNull((yield* environmentOf(partner.id, "test")).tokenIssuedAt)
      assert.instanceOf((yield* environmentOf(partner.id, "live")).tokenIssuedAt, Date)
      assert.isTrue(Option.isNone(yield* repo.removeToken(`none-${unique()}`, "test")))
    }))

  it.effect("a token's use is recorded once a minute at most", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const { input, partner } = yield* given()
      const live = input.environments.live.token.hash
      const lastUsed = Effect.map(
        repo.tokensOf(partner.id),
        (tokens) => tokens.find((one) => one.environment === "live")!.lastUsedAt
      )
      assert.isNull(yield* lastUsed)
      const at = new Date("2026-11-28T10:00:00.000Z")
      yield* repo.recordTokenUse([{ hash: live, at }])
      assert.deepStrictEqual(yield* lastUsed, at)
      yield* repo.recordTokenUse([{ hash: live, at: new Date(at.getTime() + 30_000) }])
      assert.deepStrictEqual(yield* lastUsed, at, "within the minute: not written again")
      const later = new Date(at.getTime() + 61_000)
      yield* repo.recordTokenUse([{ hash: live, at: later }, { hash: randomBytes(32), at: later }])
      assert.deepStrictEqual(yield* lastUsed, later)
      yield* repo.recordTokenUse([])
    }))

  it.effect("a rotated webhook secret signs from now on, the one before beside it until its overlap ends", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const { input, partner, webhookSecrets } = yield* given({ status: "inactive" })
      const target = Option.getOrThrow(yield* repo.findCallbackTarget(partner.id, "live"))
      assert.deepStrictEqual(target, {
        partnerId: partner.id,
        environment: "live",
        partnerSlug: input.slug,
        active: false,
        callbackUrl: "https://live.example/wallet",
        webhookSecret: webhookSecrets.live,
        previousSecret: null
      })

      const rotated = Option.getOrThrow(yield* repo.rotateWebhookSecret(input.slug, "live", Duration.hours(1)))
      assert.notStrictEqual(rotated.webhookSecret, webhookSecrets.live)
      assert.match(rotated.webhookSecret, /^whsec_\w+$/)
      assert.strictEqual(rotated.partner.id, partner.id)
      const after = Option.getOrThrow(yield* repo.findCallbackTarget(partner.id, "live"))
      assert.strictEqual(after.webhookSecret, rotated.webhookSecret)
      assert.strictEqual(after.previousSecret?.secret, webhookSecrets.live)
      const until = after.previousSecret!.until.getTime()
      assert.isTrue(Math.abs(until - (Date.now() + Duration.toMillis(Duration.hours(1)))) < 60_000, "an hour on")
      assert.deepStrictEqual(
        (yield* environmentOf(partner.id, "live")).previousSecretUntil,
        after.previousSecret!.until
      )
      const test = Option.getOrThrow(yield* repo.findCallbackTarget(partner.id, "test"))
      assert.deepStrictEqual([test.webhookSecret, test.previousSecret, test.callbackUrl], [
        webhookSecrets.test,
        null,
        null
      ])

      yield* repo.rotateWebhookSecret(input.slug, "test", Duration.zero)
      assert.isNull((yield* environmentOf(partner.id, "test")).previousSecretUntil, "an overlap that has ended")
      assert.isTrue(Option.isNone(yield* repo.rotateWebhookSecret(`none-${unique()}`, "live", Duration.hours(1))))
      assert.isTrue(Option.isNone(yield* repo.findCallbackTarget(partner.id + 1_000_000, "live")))
    }))

  it.effect("environments are read for many partners at once: by partner, live first, none for no partner", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerRepo
      const first = (yield* given()).partner
      const second = (yield* given()).partner
      const settings = yield* repo.environmentsOf([second.id, first.id])
      assert.deepStrictEqual(settings.map((one) => [one.partnerId, one.environment]), [
        [first.id, "live"],
        [first.id, "test"],
        [second.id, "live"],
        [second.id, "test"]
      ])
      assert.deepStrictEqual(settings.map((one) => one.callbackUrl), [
        "https://live.example/wallet",
        null,
        "https://live.example/wallet",
        null
      ])
      assert.isTrue(settings.every((one) => one.tokenIssuedAt instanceof Date && one.previousSecretUntil === null))
      assert.deepStrictEqual(yield* repo.environmentsOf([]), [])
    }))
}
