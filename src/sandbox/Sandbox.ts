import { Layer } from "effect"
import { ConfiguredWalletCredentialsLive, SandboxAgent, SandboxWalletCredentialsLive } from "./SandboxAgent.ts"
import { SandboxGatewayLive } from "./SandboxGateway.ts"
import { SandboxPages } from "./SandboxPages.ts"
import { SandboxPartnerWallet } from "./SandboxPartnerWallet.ts"
import { SandboxPlay } from "./SandboxPlay.ts"
import { SandboxRepo } from "./SandboxRepo.ts"

/**
 * The sandbox: a demo casino aggregator, a simulated sports world and a
 * demo partner wallet, so the service works end to end with nothing
 * outside it. It uses the product's services through their interfaces;
 * nothing outside this folder imports it but the layer graph (server.ts),
 * which selects it (CASINO_GATEWAY=sandbox, SPORTS_PROVIDER=sandbox).
 */

const SandboxServicesLive = SandboxAgent.layer.pipe(Layer.provideMerge(SandboxRepo.layer))

/** The sandbox aggregator (CasinoGateway). */
export const SandboxCasinoGatewayLive = SandboxGatewayLive.pipe(Layer.provide(SandboxServicesLive))

/** With the sandbox aggregator, the wallet takes the calls of the sandbox's own agent (WalletCredentials). */
export const SandboxAgentCredentialsLive = SandboxWalletCredentialsLive.pipe(Layer.provide(SandboxServicesLive))

/** With a real aggregator, its configured agent is live; the sandbox's test agent still brings test sessions' calls. */
export const ConfiguredAgentCredentialsLive = ConfiguredWalletCredentialsLive.pipe(Layer.provide(SandboxServicesLive))

/** The sandbox aggregator's routes: its game pages and art, its spins, and the demo partner's wallet. */
export const SandboxRoutes = Layer.mergeAll(SandboxPages, SandboxPlay, SandboxPartnerWallet).pipe(
  Layer.provide(SandboxServicesLive)
)

export { SandboxConfig } from "./SandboxConfig.ts"
export { sandboxPartnerWalletPath } from "./SandboxPartnerWallet.ts"
export { SandboxSportsProviderLive } from "./SandboxSportsProvider.ts"
