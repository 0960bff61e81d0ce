import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { CasinoConfig } from "./CasinoConfig.ts"
import type { CasinoGateway } from "./CasinoGateway.ts"
import * as PlayFiverGateway from "./PlayFiverGateway.ts"

/**
 * The gateway CASINO_GATEWAY names: `playfiver`, or `sandbox` (the default), whose layer the
 * caller gives: the sandbox is an area of its own, which this one does not know.
 */
export const layer = <E, R>(sandbox: Layer.Layer<CasinoGateway, E, R>) =>
  Layer.unwrap(Effect.gen(function*() {
    const config = yield* CasinoConfig
    const gateway: Layer.Layer<CasinoGateway, E, R | CasinoConfig> = config.gateway === "playfiver"
      ? PlayFiverGateway.layer.pipe(Layer.provide(FetchHttpClient.layer))
      : sandbox
    return gateway
  }))
