/**
 * The whole service with two aggregators (CASINO_GATEWAY=playfiver,hub88) over real HTTP: PlayFiver's fake and
 * Hub88's fake at one port (FakeUpstream), told apart by path; HUB88_* given as the environment would. With `books`,
 * a partner's wallet at the same port too (under /wallet, where givenWalletPartner points a partner's callbacks),
 * and the notification worker and bet recovery running, so wallet calls of both aggregators play end to end.
 */
import { ConfigProvider, Duration, Effect, Layer, Option, Redacted } from "effect"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { CallbacksConfig } from "../../src/wallet/CallbacksConfig.ts"
import { CallbackWorker } from "../../src/wallet/outbox/CallbackWorker.ts"
import { WalletRecovery } from "../../src/wallet/WalletRecovery.ts"
import type { PartnerBooks } from "./FakePartner.ts"
import { healthyHub88, hub88Keys, operatorId, operatorKeys } from "./FakeHub88.ts"
import { FakeUpstream, type Script } from "./FakeUpstream.ts"
import { healthyAggregator } from "./PlayFiverScripts.ts"
import { TestAppWith, testCallbacksConfig, testCasinoConfig } from "./TestApp.ts"

const hub88Path = "/operator/generic/v2/"

/**
 * Both aggregators at the one fake: Hub88's paths answered as Hub88, /wallet as the partner's wallet (when given),
 * the rest as PlayFiver.
 */
const bothAggregators = (wallet?: Script) =>
  FakeUpstream.layer((call) =>
    call.path.startsWith(hub88Path)
      ? healthyHub88(call)
      : wallet !== undefined && call.path === "/wallet"
      ? wallet(call)
      : healthyAggregator(call)
  )

/** HUB88_* as the environment would give them, Hub88 at the fake. */
const hub88Settings = (currencies: string) =>
  Layer.unwrap(
    Effect.map(Effect.service(FakeUpstream), (fake) =>
      ConfigProvider.layer(ConfigProvider.fromEnv({
        env: {
          HUB88_BASE_URL: fake.url,
          HUB88_OPERATOR_ID: String(operatorId),
          HUB88_PRIVATE_KEY: operatorKeys.privatePem,
          HUB88_PUBLIC_KEY: hub88Keys.publicPem,
          HUB88_CURRENCIES: currencies
        }
      })))
  )

/** PlayFiver's live agent (PLAYFIVER_AGENT_CODE and PLAYFIVER_AGENT_SECRET) when `books` is given. */
export const playFiverAgent = { code: "pf-agent", secret: "pf-secret-0123456789" } as const

export interface TwoAggregatorsOptions {
  /** HUB88_CURRENCIES (BRL unless said). */
  readonly hub88Currencies?: string
  /**
   * A partner's wallet at the fake (under /wallet), with the notification worker and bet recovery; PlayFiver's
   * live agent is then `playFiverAgent`.
   */
  readonly books?: PartnerBooks
}

/** The whole service with CASINO_GATEWAY=playfiver,hub88, both at the fake. */
export const TwoAggregatorsApp = (options: TwoAggregatorsOptions = {}) => {
  const casino = Layer.effect(
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
  const config = options.books === undefined ? casino : Layer.merge(
    casino,
    Layer.succeed(
      CallbacksConfig,
      testCallbacksConfig({
        walletAgentCode: Option.some(playFiverAgent.code),
        walletAgentSecret: Option.some(Redacted.make(playFiverAgent.secret))
      })
    )
  )
  const app = TestAppWith(config).pipe(Layer.provide(hub88Settings(options.hub88Currencies ?? "BRL")))
  const served = options.books === undefined
    ? app
    : Layer.merge(CallbackWorker, WalletRecovery).pipe(Layer.provideMerge(app))
  return served.pipe(Layer.provideMerge(bothAggregators(options.books?.script)))
}
