import { Context, Effect, Layer, Option } from "effect"
import { type AgentCredentials, WalletCredentials } from "../wallet/WalletCredentials.ts"
import { testAgentCode } from "./SandboxConfig.ts"
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

/** The sandbox's test agent: the calls of sessions launched with test tokens carry its code, and the sandbox's secret. */
export const sandboxTestAgent = (agent: AgentCredentials): AgentCredentials => ({
  agentCode: testAgentCode,
  agentSecret: agent.agentSecret
})

/** With the sandbox aggregator, the wallet takes the calls of the sandbox's agents: `sandbox` live, the test agent test. */
export const SandboxWalletCredentialsLive = Layer.effect(
  WalletCredentials,
  Effect.map(
    Effect.service(SandboxAgent),
    (agent) => WalletCredentials.make(Option.some(agent), Option.some(sandboxTestAgent(agent)))
  )
)

/** With a real aggregator: its configured agent is live, and the sandbox's test agent is test. */
export const ConfiguredWalletCredentialsLive = Layer.unwrap(
  Effect.map(Effect.service(SandboxAgent), (agent) => WalletCredentials.layerWithTest(Option.some(sandboxTestAgent(agent))))
)
