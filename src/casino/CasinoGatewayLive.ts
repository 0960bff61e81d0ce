import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import type { SqlClient } from "effect/sql"
import type { AppConfig } from "../platform/AppConfig.ts"
import { CasinoConfig } from "./CasinoConfig.ts"
import type { CasinoGateway } from "./CasinoGateway.ts"
import { PlayFiverGatewayLive } from "./PlayFiverGateway.ts"
import { SandboxGatewayLive } from "./SandboxGateway.ts"

/** The gateway CASINO_GATEWAY names: `sandbox` (default) or `playfiver`. */
export const CasinoGatewayLive = Layer.unwrap(Effect.gen(function*() {
  const config = yield* CasinoConfig
  const gateway: Layer.Layer<CasinoGateway, never, CasinoConfig | AppConfig | SqlClient.SqlClient> =
    config.gateway === "playfiver"
      ? PlayFiverGatewayLive.pipe(Layer.provide(FetchHttpClient.layer))
      : SandboxGatewayLive
  return gateway
}))
