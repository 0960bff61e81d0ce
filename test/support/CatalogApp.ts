import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { SportsCatalogConfig } from "../../src/sports/catalog/SportsCatalogConfig.ts"
import type { RefreshRequest } from "../../src/api/CatalogQuery.ts"
import { SportsConfig } from "../../src/sports/SportsConfig.ts"
import { catalogProvider, type ProviderEvent, providerEvents } from "./CatalogScripts.ts"
import { FakeUpstream } from "./FakeUpstream.ts"
import { partnerClient } from "./PartnerClient.ts"
import { bearer, quotaNeverSpent, request, TestAppWith, testCatalogConfig, testSportsConfig } from "./TestApp.ts"

/** The fake provider's sports data, which the test can change between refreshes. */
export interface ProviderData {
  events: ReadonlyArray<ProviderEvent>
}

/**
 * The whole service with its sports provider (BetsAPI protocol) served by a
 * fake over `providerData`, provider answers never reused (so changed data is
 * seen at once), and catalog reads cached for `cacheTtl`.
 */
export const CatalogApp = (
  providerData: ProviderData = { events: providerEvents() },
  options: { readonly cacheTtl?: Duration.Input; readonly catalog?: Partial<SportsCatalogConfig["Service"]> } = {}
) =>
  TestAppWith(
    Layer.mergeAll(
      Layer.succeed(
        SportsCatalogConfig,
        testCatalogConfig({
          sportIds: [1, 18],
          cacheTtl: Duration.fromInputUnsafe(options.cacheTtl ?? 0),
          ...options.catalog
        })
      ),
      Layer.effect(
        SportsConfig,
        Effect.map(Effect.service(FakeUpstream), (fake) =>
          testSportsConfig({
            provider: "betsapi",
            rateLimitPerHour: quotaNeverSpent,
            cacheTtlMax: Duration.zero,
            betsapi: { baseUrl: fake.url, token: Option.some(Redacted.make("catalog-test")) }
          }))
      )
    )
  ).pipe(Layer.provideMerge(FakeUpstream.layer(catalogProvider(providerData))))

/** A GET of the partner API over the wire (query text as given, answer unchecked), for what only the wire shows. */
export const api = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })

/** POST /sports/catalog/refresh through the typed client; no body when `payload` is left out. */
export const refresh = (token: string, payload: RefreshRequest | null = null) =>
  Effect.flatMap(partnerClient(token), (client) => client.catalog.refresh({ payload }))

/** POST /sports/catalog/refresh over the wire, with any JSON body (or none), for bodies the contract refuses. */
export const refreshOnTheWire = (token: string, body?: unknown) =>
  request("POST", "/api/partner/v1/sports/catalog/refresh", {
    headers: bearer(token),
    ...(body === undefined ? {} : { json: body })
  })
