import { Context, Effect, Layer, Option, Redacted } from "effect"
import { createHmac } from "node:crypto"
import { type AgentCredentials, WalletCredentials } from "../playfiver/WalletCredentials.ts"
import { testAgentCode } from "./SandboxConfig.ts"
import { SandboxRepo } from "./SandboxRepo.ts"

/**
 * The sandbox aggregator's agent: the code and secret its wallet calls
 * carry, `sandbox` and a secret generated once per database (shared by
 * every instance).
 */
export class SandboxAgent
  extends Context.Service<SandboxAgent, AgentCredentials>()("partner-api/sandbox/SandboxAgent")
{
  static readonly layer = Layer.effect(
    SandboxAgent,
    Effect.map(
      Effect.flatMap(Effect.service(SandboxRepo), (repo) => repo.agentSecret),
      (agentSecret) => SandboxAgent.of({ agentCode: "sandbox", agentSecret })
    )
  )
}

/**
 * The sandbox aggregator's agent for test launches: `testAgentCode`, and a secret derived from the
 * sandbox's own (so every instance knows it without a secret of its own in the database).
 */
export class SandboxTestAgent extends Context.Service<SandboxTestAgent, AgentCredentials>()(
  "partner-api/sandbox/SandboxTestAgent"
) {
  static readonly layer = Layer.effect(
    SandboxTestAgent,
    Effect.map(
      Effect.flatMap(Effect.service(SandboxRepo), (repo) => repo.agentSecret),
      (secret) =>
        SandboxTestAgent.of({
          agentCode: testAgentCode,
          agentSecret: Redacted.make(
            createHmac("sha256", Redacted.value(secret)).update(testAgentCode).digest("base64url")
          )
        })
    )
  )
}

/** With the sandbox aggregator, the wallet takes the calls of the sandbox's agents: `sandbox` live, the test agent test. */
export const SandboxWalletCredentialsLive = Layer.effect(
  WalletCredentials,
  Effect.gen(function*() {
    return WalletCredentials.make(Option.some(yield* SandboxAgent), Option.some(yield* SandboxTestAgent), "sandbox")
  })
)

/** With a real aggregator: its configured agent is live, and the sandbox's test agent is test. */
export const ConfiguredWalletCredentialsLive = Layer.unwrap(
  Effect.map(Effect.service(SandboxTestAgent), (test) => WalletCredentials.configured(Option.some(test)))
)
