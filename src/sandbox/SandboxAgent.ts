import { Context, Effect, Layer, Option } from "effect"
import { type AgentCredentials, WalletCredentials } from "../wallet/WalletCredentials.ts"
import { SandboxRepo } from "./SandboxRepo.ts"

/**
 * The sandbox aggregator's agent: the code and secret its wallet calls
 * carry, `sandbox` and a secret generated once per database (shared by
 * every instance).
 */
export class SandboxAgent extends Context.Service<SandboxAgent, AgentCredentials>()("partner-api/sandbox/SandboxAgent") {
  static readonly layer = Layer.effect(
    SandboxAgent,
    Effect.map(Effect.flatMap(Effect.service(SandboxRepo), (repo) => repo.agentSecret), (agentSecret) =>
      SandboxAgent.of({ agentCode: "sandbox", agentSecret }))
  )
}

/** With the sandbox aggregator, the wallet takes the calls of the sandbox's agent. */
export const SandboxWalletCredentialsLive = Layer.effect(
  WalletCredentials,
  Effect.map(Effect.service(SandboxAgent), (agent) => WalletCredentials.make(Option.some(agent)))
)
