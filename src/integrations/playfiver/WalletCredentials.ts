import { Context, Effect, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import type { Aggregator } from "../../domain/Aggregator.ts"
import type { Environment } from "../../domain/Environment.ts"
import { CallbacksConfig } from "../../wallet/CallbacksConfig.ts"

/** Who a call's agent is: the environment it reaches and the aggregator whose ids it carries. */
export interface Agent {
  readonly environment: Environment
  readonly aggregator: Aggregator
}

export interface AgentCredentials {
  readonly agentCode: string
  readonly agentSecret: Redacted.Redacted
}

const digest = (value: unknown) => createHash("sha256").update(typeof value === "string" ? value : "").digest()

/** Equal strings, in a time that does not depend on where they differ (both are hashed to one length first). */
const sameSecret = (given: unknown, expected: string) =>
  typeof given === "string" && timingSafeEqual(digest(given), digest(expected))

/**
 * The agent codes and secrets the aggregators' wallet calls must carry, and
 * the environment each stands for. Live: with a real aggregator,
 * PLAYFIVER_AGENT_CODE and PLAYFIVER_AGENT_SECRET (without them every live
 * call is refused); with the sandbox, the sandbox's own agent. Test: the
 * sandbox's test agent, whose sessions were launched with test tokens. The
 * credentials of a call say its environment, and so which players it reaches,
 * and its aggregator: the live agent's is the one CASINO_GATEWAY names (the
 * sandbox's own agent is the sandbox), the test agent's always the sandbox.
 */
export class WalletCredentials extends Context.Service<WalletCredentials, {
  /** The live agent. */
  readonly expected: Option.Option<AgentCredentials>
  /** The test agent (the sandbox's). */
  readonly test: Option.Option<AgentCredentials>
  /** The environment and aggregator of the agent these credentials belong to; none: a stranger. */
  agentOf(agentCode: unknown, agentSecret: unknown): Option.Option<Agent>
}>()("partner-api/wallet/WalletCredentials") {
  /** The service for these credentials (none: every call of that environment is refused). */
  static readonly make = (
    expected: Option.Option<AgentCredentials>,
    test: Option.Option<AgentCredentials>,
    /** The live agent's aggregator. */
    liveAggregator: Aggregator
  ) => {
    const matches = (credentials: Option.Option<AgentCredentials>, agentCode: unknown, agentSecret: unknown) =>
      Option.match(credentials, {
        onNone: () => false,
        onSome: (credentials) => {
          // Both are compared, whatever the first gives, so timing tells nothing about which was wrong.
          const code = sameSecret(agentCode, credentials.agentCode)
          const secret = sameSecret(agentSecret, Redacted.value(credentials.agentSecret))
          return code && secret
        }
      })
    return WalletCredentials.of({
      expected,
      test,
      agentOf: (agentCode, agentSecret) => {
        // Both environments are compared every time, for the same reason.
        const live = matches(expected, agentCode, agentSecret)
        const isTest = matches(test, agentCode, agentSecret)
        return live
          ? Option.some({ environment: "live", aggregator: liveAggregator })
          : isTest
          ? Option.some({ environment: "test", aggregator: "sandbox" })
          : Option.none()
      }
    })
  }

  /** The live credentials the configuration names (PlayFiver's agent), and these test ones. */
  static readonly configured = (test: Option.Option<AgentCredentials>) =>
    Layer.effect(
      WalletCredentials,
      Effect.map(Effect.service(CallbacksConfig), ({ walletAgentCode, walletAgentSecret }) =>
        WalletCredentials.make(
          Option.zipWith(walletAgentCode, walletAgentSecret, (agentCode, agentSecret) => ({ agentCode, agentSecret })),
          test,
          "playfiver"
        ))
    )

  /** The live credentials the configuration names (no test agent). */
  static readonly layer = WalletCredentials.configured(Option.none())
}
