import { Layer } from "effect"
import {
  ConfiguredWalletCredentialsLive,
  SandboxAgent,
  SandboxTestAgent,
  SandboxWalletCredentialsLive
} from "./SandboxAgent.ts"
import { sandboxGateway } from "./SandboxGateway.ts"
import { SandboxAggregator } from "./SandboxAggregator.ts"
import { SandboxDriver } from "./SandboxDriver.ts"
import { SandboxHandlers } from "./http.ts"
import { SandboxPages } from "./SandboxPages.ts"
import { SandboxPartnerWallet } from "./SandboxPartnerWallet.ts"
import { SandboxPlay } from "./SandboxPlay.ts"
import { SandboxRepo } from "./SandboxRepo.ts"

/**
 * The sandbox: a demo casino aggregator, simulated sports data and a
 * demo partner wallet, so the service works end to end with nothing
 * outside it. It uses the product's services through their interfaces;
 * nothing outside this folder imports it but the layer graph (server.ts),
 * which selects it (CASINO_GATEWAY=sandbox, SPORTS_PROVIDER=sandbox) for
 * live tokens, and always for test tokens.
 */

const SandboxServicesLive = Layer.merge(SandboxAgent.layer, SandboxTestAgent.layer).pipe(
  Layer.provideMerge(SandboxRepo.layer)
)

/** The sandbox aggregator's wallet calls (its game page's and the partner API's sandbox endpoints'). */
export const SandboxAggregatorLive = SandboxAggregator.layer.pipe(Layer.provide(SandboxServicesLive))

/** The sandbox aggregator (CasinoGateway), for live launches. */
export const SandboxCasinoGatewayLive = sandboxGateway("live").pipe(Layer.provide(SandboxServicesLive))

/** The sandbox aggregator for test launches: their sessions spin as the test agent. */
export const SandboxTestCasinoGatewayLive = sandboxGateway("test").pipe(Layer.provide(SandboxServicesLive))

/** With the sandbox aggregator, the wallet takes the calls of the sandbox's own agents (WalletCredentials). */
export const SandboxAgentCredentialsLive = SandboxWalletCredentialsLive.pipe(Layer.provide(SandboxServicesLive))

/** With a real aggregator, its configured agent is live; the sandbox's test agent brings test sessions' calls. */
export const ConfiguredAgentCredentialsLive = ConfiguredWalletCredentialsLive.pipe(Layer.provide(SandboxServicesLive))

/**
 * The sandbox aggregator's routes: its game pages and art, its spins, and the demo partner's wallet.
 * Always served: test launches play here whatever CASINO_GATEWAY says.
 */
export const SandboxRoutes = Layer.mergeAll(SandboxPages, SandboxPlay, SandboxPartnerWallet).pipe(
  Layer.provide(SandboxAggregatorLive),
  Layer.provide(SandboxServicesLive)
)

/** The partner API's sandbox endpoints (test token only): the game page's calls and today's statement so far. */
export const SandboxApiHandlers = SandboxHandlers

/** What those endpoints drive the sandbox with (built beside the handlers, which see only the services they take). */
export const SandboxDriverLive = SandboxDriver.layer.pipe(
  Layer.provide(SandboxAggregatorLive),
  Layer.provide(SandboxServicesLive)
)

export { SandboxDriver } from "./SandboxDriver.ts"

export { SandboxConfig, testAgentCode } from "./SandboxConfig.ts"
export { sandboxPartnerWalletPath } from "./SandboxPartnerWallet.ts"
export { SandboxSportsProviderLive } from "./SandboxSportsProvider.ts"
