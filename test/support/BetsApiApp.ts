import { ByteSize, Duration, Effect, Layer, Option, Redacted } from "effect"
import { SportsConfig } from "../../src/sports/SportsConfig.ts"
import { betsApiToken, healthyBetsApi } from "./BetsApiScripts.ts"
import { FakeUpstream } from "./FakeUpstream.ts"
import { TestAppWith, testSportsConfig } from "./TestApp.ts"

/** The whole service with SPORTS_PROVIDER=betsapi, over real HTTP to a fake BetsAPI. */
export const BetsApiApp = (options: {
  readonly rateLimitPerHour?: number
  readonly token?: string | undefined
  readonly cacheMaxSize?: ByteSize.ByteSize
} = {}) =>
  TestAppWith(
    Layer.effect(
      SportsConfig,
      Effect.map(Effect.service(FakeUpstream), (fake) =>
        testSportsConfig({
          provider: "betsapi",
          timeout: Duration.millis(400),
          rateLimitPerHour: options.rateLimitPerHour ?? 3600,
          cacheMaxSize: options.cacheMaxSize ?? ByteSize.megabytes(64),
          betsapi: {
            baseUrl: fake.url,
            token: "token" in options && options.token === undefined
              ? Option.none()
              : Option.some(Redacted.make(options.token ?? betsApiToken))
          }
        }))
    )
  ).pipe(Layer.provideMerge(FakeUpstream.layer(healthyBetsApi)))
