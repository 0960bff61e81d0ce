import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { SportsCatalogConfig } from "../../src/sports/catalog/SportsCatalogConfig.ts"
import { SportsConfig } from "../../src/sports/SportsConfig.ts"
import { StreamConfig } from "../../src/sports/stream/StreamConfig.ts"
import { FakeApiFootball } from "./FakeApiFootball.ts"
import { quotaNeverSpent, TestAppWith, testCatalogConfig, testSportsConfig, testStreamConfig } from "./TestApp.ts"

/**
 * The whole service with SPORTS_PROVIDER=apifootball, over real HTTP to a fake API-Football (its public protocol),
 * the catalog refreshing soccer, basketball and tennis as CATALOG_SPORT_IDS says by default, and the change stream's
 * settings a test chooses.
 */
export const ApiFootballApp = (options: {
  readonly sports?: Partial<SportsConfig["Service"]>
  readonly stream?: Partial<StreamConfig["Service"]>
  readonly callsPerMinute?: number
  readonly key?: string | undefined
} = {}) =>
  TestAppWith(
    Layer.mergeAll(
      Layer.succeed(SportsCatalogConfig, testCatalogConfig({ sportIds: [1, 18, 13], cacheTtl: Duration.zero })),
      Layer.succeed(StreamConfig, testStreamConfig(options.stream)),
      Layer.effect(
        SportsConfig,
        Effect.map(Effect.service(FakeApiFootball), (fake) =>
          testSportsConfig({
            provider: "apifootball",
            timeout: Duration.millis(500),
            rateLimitPerHour: quotaNeverSpent,
            apifootball: {
              baseUrl: fake.url,
              key: "key" in options && options.key === undefined
                ? Option.none()
                : Option.some(Redacted.make(options.key ?? fake.key)),
              bookmakerId: 8,
              callsPerMinute: options.callsPerMinute ?? 300
            },
            ...options.sports
          }))
      )
    )
  ).pipe(Layer.provideMerge(FakeApiFootball.layer))

/** The calls that reached the fake for `path` (its quota's calls; `/status` is free and left out unless asked). */
export const callsTo = (fake: FakeApiFootball["Service"], path: string, query: Record<string, string> = {}) =>
  fake.calls.filter((call) =>
    call.path === path && Object.entries(query).every(([name, value]) => call.query[name] === value)
  ).length
