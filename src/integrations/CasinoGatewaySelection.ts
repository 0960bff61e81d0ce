import { type Config, Context, Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { CasinoConfig, type RealAggregator, sandboxSelected } from "../casino/CasinoConfig.ts"
import { CasinoGateway, CasinoGateways } from "../casino/CasinoGateway.ts"
import * as Hub88Gateway from "./hub88/Hub88Gateway.ts"
import { Hub88Config } from "./hub88/Hub88Config.ts"
import * as PlayFiverGateway from "./playfiver/PlayFiverGateway.ts"

/**
 * The real casino aggregators, by the CASINO_GATEWAY name that selects one (CasinoConfig lists the names). Each is a
 * folder of its own under src/integrations, both directions of it: the gateway the casino asks, and the wallet calls
 * it makes (PlayFiver's: AggregatorRoute, served by routes.ts). Adding one is a line here. Each is built only when
 * CASINO_GATEWAY lists it, so its settings (HUB88_*) are read only then.
 */
const aggregators = {
  playfiver: PlayFiverGateway.layer,
  hub88: Hub88Gateway.layer.pipe(Layer.provide(Hub88Config.layer))
} satisfies Record<RealAggregator, Layer.Any>

/**
 * The gateways CASINO_GATEWAY lists, in its order: real aggregators above, or `sandbox` (the default), whose layer the
 * caller gives: the sandbox is an area of its own, which this one does not know. A test token's
 * gateway is never one of these (TestCasino).
 */
const selected = <E, R>(sandbox: Layer.Layer<CasinoGateway, E, R>) =>
  Layer.unwrap(
    Effect.map(Effect.service(CasinoConfig), (config): Layer.Layer<
      CasinoGateways,
      E | Config.ConfigError,
      R | CasinoConfig
    > => {
      if (sandboxSelected(config)) return CasinoGateways.fromGateway(sandbox)
      return Layer.effect(
        CasinoGateways,
        Effect.map(
          Effect.forEach(
            config.gateways as ReadonlyArray<RealAggregator>,
            (name) => Effect.map(Layer.build(aggregators[name]), Context.get(CasinoGateway))
          ),
          CasinoGateways.make
        )
      ).pipe(Layer.provide(FetchHttpClient.layer))
    })
  )

/** The gateways, and the first of them as the context's CasinoGateway (what reads one aggregator's name reads). */
export const layer = <E, R>(sandbox: Layer.Layer<CasinoGateway, E, R>) =>
  Layer.effect(CasinoGateway, Effect.map(Effect.service(CasinoGateways), (gateways) => gateways.all[0]!)).pipe(
    Layer.provideMerge(selected(sandbox))
  )
