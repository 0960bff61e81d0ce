import { Context, Effect, Layer, Option, Redacted } from "effect"
import { createHmac } from "node:crypto"
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

/**
 * The sandbox aggregator's agent for test launches: `testAgentCode`, and a secret derived from the
 * sandbox's own (so every instance knows it without a secret of its own in the database).
 */
export class SandboxTestAgent extends Context.Service<SandboxTestAgent, AgentCredentials>()(
  "partner-api/sandbox/SandboxTestAgent"
) {
  static readonly layer = Layer.effect(
    SandboxTestAgent,
    Effect.map(Effect.flatMap(Effect.service(SandboxRepo), (repo) => repo.agentSecret), (secret) =>
      SandboxTestAgent.of({
        agentCode: testAgentCode,
        agentSecret: Redacted.make(createHmac("sha256", Redacted.value(secret)).update(testAgentCode).digest("base64url"))
      }))
  )
}

/** With the sandbox aggregator, the wallet takes the calls of the sandbox's agent. */
export const SandboxWalletCredentialsLive = Layer.effect(
  WalletCredentials,
  Effect.map(Effect.service(SandboxAgent), (agent) => WalletCredentials.make(Option.some(agent)))
)

/**
 * Test launches play on the sandbox whatever CASINO_GATEWAY says, so the wallet takes the calls of the
 * sandbox's test agent beside those of the live aggregator's (the credentials `live` gives).
 */
export const withSandboxTestAgent = <E, R>(live: Layer.Layer<WalletCredentials, E, R>) =>
  Layer.effect(
    WalletCredentials,
    Effect.gen(function*() {
      const liveCredentials = yield* WalletCredentials
      const testCredentials = WalletCredentials.make(Option.some(yield* SandboxTestAgent))
      return WalletCredentials.of({
        expected: liveCredentials.expected,
        matches: (agentCode, agentSecret) => {
          // Both are compared, so timing tells nothing about which agent the call claims to be.
          const isLive = liveCredentials.matches(agentCode, agentSecret)
          const isTest = testCredentials.matches(agentCode, agentSecret)
          return isLive || isTest
        }
      })
    })
  ).pipe(Layer.provide(live))
