import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer, LayerMap } from "effect"
import { HttpServer } from "effect/http"
import { HttpApiTest } from "effect/http-api"
import { RateLimiter } from "effect/persistence"
import { randomBytes } from "node:crypto"
import { SessionUnauthorized } from "../../src/api/identity/Errors.ts"
import { PortalApi } from "../../src/api/portal/PortalApi.ts"
import { PartnerAccess } from "../../src/domain/Partner.ts"
import type { PartnerRole } from "../../src/domain/PartnerUser.ts"
import { sportsCapabilities } from "../../src/domain/Sports.ts"
import { PartnerUsers } from "../../src/identity/PartnerUsers.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { CallbackUrlPolicy } from "../../src/partners/CallbackUrlPolicy.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerRateLimit } from "../../src/partners/PartnerRateLimit.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { PortalUsageHandlers } from "../../src/portal/http/Data.ts"
import * as PortalAuth from "../../src/portal/http/PortalAuth.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { ProviderCaller, providerQuota } from "../../src/sports/ProviderQuota.ts"
import { SportsProvider } from "../../src/sports/SportsProvider.ts"
import { Upstreams, type UpstreamServices, type UpstreamsKey } from "../../src/upstreams/Upstreams.ts"
import type { AdminSession } from "../support/AdminConsole.ts"
import { asPortalUser, givenPortalUser } from "../support/Portal.ts"
import { CallbackTargetsOfRepo } from "../support/RepoPartner.ts"
import { givenPartner, TestConfig } from "../support/TestApp.ts"

/**
 * The portal's contract for what a partner uses of the service's limits (the envelope, each environment's rate limit
 * and share of its sports provider's quota, read without spending any; 401 without a session), through the real
 * handler and middleware over memory: no socket, no PostgreSQL, no provider called. Each environment reaches a
 * provider of its own name (the live one "betsapi", the test one "sandbox"), so the quota read is the environment's.
 */
const providerNamed = (name: string) => {
  const never = () => Effect.die(`the usage reads no ${name} data`)
  return SportsProvider.of({
    name,
    configured: true,
    capabilities: sportsCapabilities,
    sportIds: undefined,
    upcomingByDay: false,
    leagues: never,
    upcoming: never,
    live: never,
    ended: never,
    event: never,
    odds: never,
    liveOdds: never,
    lineup: never,
    statsTrend: never,
    result: never
  })
}

/** Only the sports provider of each key: the one service the usage reaches. */
const ProviderPerEnvironment = Layer.effect(
  Upstreams,
  LayerMap.make(
    (key: UpstreamsKey) =>
      Layer.succeed(SportsProvider, providerNamed(key.environment === "live" ? "betsapi" : "sandbox")) as Layer.Layer<
        UpstreamServices
      >,
    { idleTimeToLive: Duration.infinity }
  )
)

const InMemoryPortal = PortalUsageHandlers.pipe(
  Layer.provideMerge(Layer.mergeAll(PortalAuth.layer, RequestValidationLive)),
  Layer.provideMerge(Layer.mergeAll(PartnerUsers.layerMemory, PartnerRateLimit.layer, ProviderPerEnvironment)),
  Layer.provideMerge(Layer.mergeAll(Partners.layerNoDeps, AuditRepo.layerMemory, CallbackTargetsOfRepo)),
  Layer.provideMerge(Layer.mergeAll(PartnerRepo.layerMemory, CallbackUrlPolicy.layer, PartnerPlayers.layerMemory)),
  Layer.provideMerge(RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))),
  // A quota of 20 calls an hour, all of it a partner's share: a burst of 2, one more every 200 s, so a call spent
  // is still missing when the usage is read, however slow the machine.
  Layer.provideMerge(TestConfig({ sports: { rateLimitPerHour: 20 } })),
  Layer.provideMerge(HttpServer.layerServices)
)

const clientAs = (session?: AdminSession) =>
  HttpApiTest.groups(PortalApi, ["usage"]).pipe(Effect.provide(asPortalUser(session)))
const unique = () => randomBytes(3).toString("hex")
/** A partner of its own (its own rate limit, if given) and a portal client as its user of `role`. */
const given = (role: PartnerRole, rateLimitPerMinute?: number) =>
  Effect.gen(function*() {
    const { partner } = yield* givenPartner({ name: `Partner ${unique()}`, rateLimitPerMinute })
    const user = yield* givenPortalUser(partner, `${role}-${unique()}@example.com`, role)
    return { partner, api: yield* clientAs(user.session) }
  })

layer(InMemoryPortal)("the portal's usage over memory", (it) => {
  it.effect("each environment: the default rate limit and the provider's share, all of it available", () =>
    Effect.gen(function*() {
      const { api } = yield* given("viewer")
      const answer = yield* api.usage.usage()
      assert.isTrue(answer.success)
      // The test settings' PARTNER_RATE_LIMIT: 1200 a minute.
      const full = (environment: "live" | "test", provider: string) => ({
        environment,
        rate_limit: { per_minute: 1200, default: true, available_now: 1200 },
        provider_quota: { provider, per_hour: 20, burst: 2, available_now: 2 }
      })
      assert.deepStrictEqual(answer.environments, [full("live", "betsapi"), full("test", "sandbox")])
      assert.deepStrictEqual(
        answer.currencies,
        { default_currency: "BRL", default: true, allowed: null },
        "the deployment's default, no restriction"
      )
    }))

  it.effect("the partner's own currencies, as its operator set them", () =>
    Effect.gen(function*() {
      const { api, partner } = yield* given("viewer")
      yield* (yield* Partners).setCurrencies(partner.slug, { defaultCurrency: "USDT", currencies: ["USDT", "EUR"] })
      assert.deepStrictEqual((yield* api.usage.usage()).currencies, {
        default_currency: "USDT",
        default: false,
        allowed: ["USDT", "EUR"]
      })
    }))

  it.effect("a partner's own rate limit; what one environment spends shows there only, and reading spends nothing", () =>
    Effect.gen(function*() {
      // One request a minute: the one the test token sends is missing for a minute.
      const { api, partner } = yield* given("owner", 1)
      yield* (yield* PartnerRateLimit).admit(new PartnerAccess({ ...partner, environment: "test" }))
      const sandboxCall = yield* providerQuota("sandbox")
      yield* Effect.provideService(sandboxCall, ProviderCaller, { _tag: "Partner", partnerId: partner.id })
      const read = () => Effect.map(api.usage.usage(), (answer) => answer.environments)
      const [live, test] = yield* read()
      assert.deepStrictEqual(live.rate_limit, { per_minute: 1, default: false, available_now: 1 })
      assert.deepStrictEqual(test.rate_limit, { per_minute: 1, default: false, available_now: 0 })
      assert.strictEqual(live.provider_quota.available_now, 2)
      assert.strictEqual(test.provider_quota.available_now, 1)
      assert.deepStrictEqual(yield* read(), [live, test], "reading the usage spends nothing")
    }))

  it.effect("without a session is 401", () =>
    Effect.gen(function*() {
      assert.instanceOf(yield* Effect.flip((yield* clientAs()).usage.usage()), SessionUnauthorized)
    }))
})
