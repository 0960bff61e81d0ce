import { Effect, Layer } from "effect"
import { FetchHttpClient } from "effect/http"
import { SportsConfig } from "../sports/SportsConfig.ts"
import type { ProviderLayer } from "../sports/SportsProvider.ts"
import type { StatSamplesRepo } from "../sports/StatSamplesRepo.ts"
import * as ApiFootballProvider from "./apifootball/ApiFootballProvider.ts"
import * as BetsApiProvider from "./betsapi/BetsApiProvider.ts"

/**
 * The real sports providers, by the SPORTS_PROVIDER name that selects one (SportsConfig lists the names). Each is a
 * folder of its own under src/integrations: the transport the provider port asks (SportsProvider caches, shares and
 * counts its answers).
 */
const providers = {
  betsapi: BetsApiProvider.layer,
  apifootball: ApiFootballProvider.layer
} satisfies Record<Exclude<SportsConfig["Service"]["provider"], "sandbox">, Layer.Any>

/**
 * The provider SPORTS_PROVIDER names: a real one above, or `sandbox` (the default), whose layer the caller gives:
 * the sandbox is an integration of its own, which this one does not know.
 */
export const layer = <E, R>(sandbox: ProviderLayer<E, R>) =>
  Layer.unwrap(
    Effect.map(Effect.service(SportsConfig), (config): ProviderLayer<E, R | StatSamplesRepo> =>
      config.provider === "sandbox" ? sandbox : providers[config.provider].pipe(Layer.provide(FetchHttpClient.layer)))
  )
