import { Context, Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { createHash, timingSafeEqual } from "node:crypto"
import { CasinoConfig } from "../casino/CasinoConfig.ts"

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
 * the sandbox aggregator, `sandbox` and a secret generated once per database
 * (shared by every instance); with PlayFiver, PLAYFIVER_AGENT_CODE and
 * PLAYFIVER_AGENT_SECRET (without them every wallet call is refused).
 */
export class WalletCredentials extends Context.Service<WalletCredentials, {
  readonly expected: Option.Option<AgentCredentials>
  matches(agentCode: unknown, agentSecret: unknown): boolean
}>()("partner-api/callbacks/WalletCredentials") {
  static readonly layer = Layer.effect(
    WalletCredentials,
    Effect.gen(function*() {
      const config = yield* CasinoConfig
      const sql = yield* SqlClient.SqlClient
      let expected = Option.none<AgentCredentials>()
      if (config.gateway === "sandbox") {
        const [row] = yield* sql<{ value: string }>`SELECT value FROM service_secrets WHERE name = 'sandbox_agent_secret'`
          .pipe(Effect.orDie)
        expected = Option.some({ agentCode: "sandbox", agentSecret: Redacted.make(row.value) })
      } else {
        const { walletAgentCode, walletAgentSecret } = config.playfiver
        if (Option.isSome(walletAgentCode) && Option.isSome(walletAgentSecret)) {
          expected = Option.some({ agentCode: walletAgentCode.value, agentSecret: walletAgentSecret.value })
        }
      }
      return WalletCredentials.of({
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
    })
  )
}
