import { Context, Data, Duration, Effect, Layer, LayerMap, Scope } from "effect"
import { Casino } from "../casino/Casino.ts"
import { CasinoCatalog } from "../casino/CasinoCatalog.ts"
import { aggregatorStates, WalletCallsByAggregator } from "../casino/AggregatorStates.ts"
import { CasinoGateways } from "../casino/CasinoGateway.ts"
import { type Environment, environments } from "../domain/Environment.ts"
import { StatusReport } from "../partners/StatusReport.ts"
import { SportsCatalog } from "../sports/catalog/SportsCatalog.ts"
import { SportsProvider } from "../sports/SportsProvider.ts"

/**
 * What picks the upstreams a partner's request reaches: today its token's environment alone. A field joins here
 * when something else does (an aggregator of the partner's own, say), and the map's lookup reads it.
 */
export class UpstreamsKey extends Data.Class<{ readonly environment: Environment }> {}

/** The key of a partner's requests. */
export const keyOf = (partner: { readonly environment: Environment }) =>
  new UpstreamsKey({ environment: partner.environment })

/**
 * What answers a partner's requests in one key: the casino aggregator and the sports provider, the services over
 * them, and what /status says of them.
 */
export type UpstreamServices = Casino | CasinoCatalog | CasinoGateways | SportsProvider | SportsCatalog | StatusReport

// The partner API's contract learns here which services its PartnerUpstreams middleware provides: the contract
// depends on nothing above it, and this area, which provides them, names them.
declare module "../api/Security.ts" {
  interface PartnerUpstreamServices {
    readonly upstreams: UpstreamServices
  }
}

/** What /status says of the upstreams beside it, in `environment`. */
const statusReport = (environment: Environment) =>
  Layer.effect(
    StatusReport,
    Effect.gen(function*() {
      const gateways = yield* CasinoGateways
      const catalog = yield* CasinoCatalog
      const walletCalls = yield* WalletCallsByAggregator
      const provider = yield* SportsProvider
      return StatusReport.of({
        aggregatorConfigured: gateways.all.every((gateway) => gateway.configured),
        aggregators: (partnerId) =>
          Effect.map(
            Effect.all([catalog.lastSyncs, walletCalls.seen({ environment, partnerId })]),
            ([syncs, calls]) => aggregatorStates(gateways.all, syncs, calls)
          ),
        sportsProvider: { name: provider.name, configured: provider.configured }
      })
    })
  )

/** The services the surrounding context holds, the ones the rest of the service uses too (the live ones). */
const fromContext = Layer.effectContext(Effect.map(
  Effect.context<Exclude<UpstreamServices, StatusReport>>(),
  Context.pick(Casino, CasinoCatalog, CasinoGateways, SportsProvider, SportsCatalog)
))

/** `services` with what /status says of them (fresh: the keys' builds share a memo map, and each says its own). */
const reported = <R>(
  environment: Environment,
  services: Layer.Layer<Exclude<UpstreamServices, StatusReport>, never, R>
) => Layer.fresh(statusReport(environment)).pipe(Layer.provideMerge(services))

/**
 * The upstreams of each key, one effect LayerMap. `live` is the context's services: the aggregator CASINO_GATEWAY
 * names, the provider SPORTS_PROVIDER names, the catalogs in PostgreSQL. `test` is the layer the caller gives
 * (server.ts: the sandboxes', see TestCasino and TestSports), so a test token never reaches a real upstream. Both are
 * built at start and kept for as long as the service runs (the test catalogs sync from then on).
 */
export class Upstreams extends Context.Service<Upstreams, LayerMap.LayerMap<UpstreamsKey, UpstreamServices>>()(
  "partner-api/upstreams/Upstreams"
) {
  static readonly layer = <R>(test: Layer.Layer<Exclude<UpstreamServices, StatusReport>, never, R>) =>
    Layer.effect(
      Upstreams,
      LayerMap.make(
        (
          key: UpstreamsKey
        ): Layer.Layer<
          UpstreamServices,
          never,
          R | Exclude<UpstreamServices, StatusReport> | WalletCallsByAggregator
        > => key.environment === "live" ? reported("live", fromContext) : reported(key.environment, test),
        {
          idleTimeToLive: Duration.infinity,
          preloadKeys: environments.map((environment) => new UpstreamsKey({ environment }))
        }
      )
    )
}

/** `effect` with the upstreams of `key` in its context (the partner API's middleware; readers of both environments). */
export const reaching =
  (key: UpstreamsKey) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, UpstreamServices> | Upstreams> =>
    Effect.flatMap(Effect.service(Upstreams), (upstreams) =>
      Effect.scopedWith((scope) =>
        Effect.flatMap(
          Scope.provide(upstreams.contextEffect(key), scope),
          (services) =>
            Effect.updateContext(
              effect,
              (context: Context.Context<Exclude<R, UpstreamServices>>) =>
                Context.merge(context, services) as Context.Context<R>
            )
        )
      ))
