import { Context, Effect, Layer, Option, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { CallbacksConfig } from "./CallbacksConfig.ts"

export interface AgentCredentials {
  readonly agentCode: string
  readonly agentSecret: Redacted.Redacted
}

const digest = (value: unknown) => createHash("sha256").update(typeof value === "string" ? value : "").digest()

/** Equal strings, in a time that does not depend on where they differ (both are hashed to one length first). */
const sameSecret = (given: unknown, expected: string) =>
  typeof given === "string" && timingSafeEqual(digest(given), digest(expected))

/**
 * The agent code and secret the aggregator's wallet calls must carry: with
 * a real aggregator, PLAYFIVER_AGENT_CODE and PLAYFIVER_AGENT_SECRET
 * (without them every wallet call is refused); the sandbox provides its own.
 */
export class WalletCredentials extends Context.Service<WalletCredentials, {
  readonly expected: Option.Option<AgentCredentials>
  matches(agentCode: unknown, agentSecret: unknown): boolean
}>()("partner-api/wallet/WalletCredentials") {
  /** The service for these credentials (none: every call is refused). */
  static readonly make = (expected: Option.Option<AgentCredentials>) =>
    WalletCredentials.of({
      expected,
      matches: (agentCode, agentSecret) =>
        Option.match(expected, {
          onNone: () => false,
          onSome: (credentials) => {
            // Both are compared, whatever the first gives, so timing tells nothing about which was wrong.
            const code = sameSecret(agentCode, credentials.agentCode)
            const secret = sameSecret(agentSecret, Redacted.value(credentials.agentSecret))
            return code && secret
          }
        })
    })

  /** The credentials the configuration names. */
  static readonly layer = Layer.effect(
    WalletCredentials,
    Effect.map(Effect.service(CallbacksConfig), ({ walletAgentCode, walletAgentSecret }) =>
      WalletCredentials.make(Option.zipWith(walletAgentCode, walletAgentSecret, (agentCode, agentSecret) => ({
        agentCode,
        agentSecret
      }))))
  )
}
