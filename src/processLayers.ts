/**
 * The layers the service (server.ts) and the admin CLI both build: every setting, and where callbacks go.
 * Kept apart from server.ts so that a CLI command loads these, not the whole service graph (its HTTP
 * routes, Redis, the job queue), which took most of every command's start-up time.
 */
import { Effect, Layer } from "effect"
import { CasinoConfig, sandboxSelected } from "./casino/CasinoConfig.ts"
import { IdentityConfig } from "./identity/IdentityConfig.ts"
import { SandboxConfig, sandboxPartnerWalletPath } from "./integrations/sandbox/SandboxConfig.ts"
import { CallbackTargets, DefaultTestCallbackUrl } from "./partners/CallbackTargets.ts"
import { ExemptCallbackUrls } from "./partners/CallbackUrlPolicy.ts"
import { DemoPartnerWallet } from "./partners/DemoPartner.ts"
import { PartnersConfig } from "./partners/PartnersConfig.ts"
import { AppConfig, publicBaseUrl } from "./platform/AppConfig.ts"
import { ClientAddress } from "./platform/ClientAddress.ts"
import { CurrencyConfig } from "./platform/CurrencyConfig.ts"
import { ObservabilityConfig } from "./platform/ObservabilityConfig.ts"
import { SharedStoreConfig } from "./platform/SharedStoreConfig.ts"
import { SportsCatalogConfig } from "./sports/catalog/SportsCatalogConfig.ts"
import { SportsConfig } from "./sports/SportsConfig.ts"
import { StreamConfig } from "./sports/stream/StreamConfig.ts"
import { CallbacksConfig } from "./wallet/CallbacksConfig.ts"
import { OperationsConfig } from "./wallet/stuck/OperationsConfig.ts"

/** Every setting, read from the environment. */
export const ConfigLive = Layer.mergeAll(
  AppConfig.layer,
  CurrencyConfig.layer,
  CasinoConfig.layer,
  SportsConfig.layer,
  SportsCatalogConfig.layer,
  StreamConfig.layer,
  CallbacksConfig.layer,
  PartnersConfig.layer,
  SandboxConfig.layer,
  SharedStoreConfig.layer,
  ObservabilityConfig.layer,
  IdentityConfig.layer,
  OperationsConfig.layer,
  ClientAddress.layer
)

/** Whether the sandbox aggregator is the casino gateway: then its agent's calls are taken as live ones. */
export const casinoSandboxSelected = Effect.map(Effect.service(CasinoConfig), sandboxSelected)

/** Where a test environment's callbacks go without a callback URL of its own: this service's sandbox partner wallet. */
const defaultTestCallbackUrl = (app: AppConfig["Service"]) =>
  `${publicBaseUrl(app)}${sandboxPartnerWalletPath}?environment=test`

/** Callback targets; a test environment without a callback URL of its own is answered by the sandbox partner wallet. */
export const CallbackTargetsLive = CallbackTargets.layer.pipe(Layer.provide(Layer.effect(
  DefaultTestCallbackUrl,
  Effect.map(Effect.service(AppConfig), defaultTestCallbackUrl)
)))

/** On the sandbox, the demo partner's wallet is the sandbox's own partner wallet. */
export const DemoPartnerWalletLive = Layer.effect(
  DemoPartnerWallet,
  Effect.map(casinoSandboxSelected, (selected) => selected ? { path: sandboxPartnerWalletPath } : undefined)
)

/**
 * That wallet is this service's own: its callback URL is exempt from the policy, and so is the test environments'
 * default (served whatever the casino gateway), which plain http:// on a private address would otherwise refuse.
 */
export const SandboxCallbackUrlsLive = Layer.effect(
  ExemptCallbackUrls,
  Effect.gen(function*() {
    const wallet = yield* DemoPartnerWallet
    const app = yield* AppConfig
    return new Set([
      defaultTestCallbackUrl(app),
      ...(wallet === undefined ? [] : [`${publicBaseUrl(app)}${wallet.path}`])
    ])
  })
).pipe(Layer.provide(DemoPartnerWalletLive))
