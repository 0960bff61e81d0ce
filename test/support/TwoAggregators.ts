/**
 * The whole service with two aggregators (CASINO_GATEWAY=playfiver,hub88) over real HTTP: PlayFiver's fake and
 * Hub88's fake at one port (FakeUpstream), told apart by path; HUB88_* given as the environment would.
 */
import { ConfigProvider, Duration, Effect, Layer, Option, Redacted } from "effect"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { healthyHub88, hub88Keys, operatorId, operatorKeys } from "./FakeHub88.ts"
import { FakeUpstream } from "./FakeUpstream.ts"
import { healthyAggregator } from "./PlayFiverScripts.ts"
import { TestAppWith, testCasinoConfig } from "./TestApp.ts"

const hub88Path = "/operator/generic/v2/"

/** Both aggregators at the one fake: Hub88's paths answered as Hub88, the rest as PlayFiver. */
const bothAggregators = FakeUpstream.layer((call) =>
  call.path.startsWith(hub88Path) ? healthyHub88(call) : healthyAggregator(call)
)

/** HUB88_* as the environment would give them, Hub88 at the fake. */
const hub88Settings = Layer.unwrap(
  Effect.map(Effect.service(FakeUpstream), (fake) =>
    ConfigProvider.layer(ConfigProvider.fromEnv({
      env: {
        HUB88_BASE_URL: fake.url,
        HUB88_OPERATOR_ID: String(operatorId),
        HUB88_PRIVATE_KEY: operatorKeys.privatePem,
        HUB88_PUBLIC_KEY: hub88Keys.publicPem,
        HUB88_CURRENCIES: "BRL"
      }
    })))
)

/** The whole service with CASINO_GATEWAY=playfiver,hub88, both at the fake. */
export const TwoAggregatorsApp = () =>
  TestAppWith(
    Layer.effect(
      CasinoConfig,
      Effect.map(Effect.service(FakeUpstream), (fake) =>
        testCasinoConfig({
          gateways: ["playfiver", "hub88"],
          timeout: Duration.millis(1000),
          playfiver: {
            baseUrl: fake.url,
            agentToken: Option.some(Redacted.make("agent-1")),
            secretKey: Option.some(Redacted.make("secret-1")),
            currency: "BRL"
          }
        }))
    )
  ).pipe(Layer.provide(hub88Settings), Layer.provideMerge(bothAggregators))
