import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { CasinoConfig } from "../casino/CasinoConfig.ts"
import type { CasinoGateway } from "../casino/CasinoGateway.ts"
import * as PlayFiverGateway from "./playfiver/PlayFiverGateway.ts"

/**
 * The real casino aggregators, by the CASINO_GATEWAY name that selects one (CasinoConfig lists the names). Each is a
 * folder of its own under src/integrations, both directions of it: the gateway the casino asks, and the wallet calls
 * it makes (PlayFiver's: AggregatorRoute, served by routes.ts).
 */
const aggregators = {
  playfiver: PlayFiverGateway.layer
} satisfies Record<Exclude<CasinoConfig["Service"]["gateway"], "sandbox">, Layer.Any>

/**
 * The gateway CASINO_GATEWAY names: a real aggregator above, or `sandbox` (the default), whose layer the caller
 * gives: the sandbox is an area of its own, which this one does not know.
 */
export const layer = <E, R>(sandbox: Layer.Layer<CasinoGateway, E, R>) =>
  Layer.unwrap(
    Effect.map(Effect.service(CasinoConfig), (config): Layer.Layer<CasinoGateway, E, R | CasinoConfig> =>
      config.gateway === "sandbox" ? sandbox : aggregators[config.gateway].pipe(Layer.provide(FetchHttpClient.layer)))
  )
