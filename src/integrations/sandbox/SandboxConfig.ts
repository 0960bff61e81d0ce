import { Config, Context, Duration, Effect, Layer, Schema } from "effect"

/**
 * The agent code of the sandbox aggregator's test sessions (launched with a test token): its wallet calls reach
 * only test players. The sandbox's own `sandbox` agent is the live one when CASINO_GATEWAY=sandbox.
 */
export const testAgentCode = "sandbox-test"

/** Where the sandbox partner wallet takes callbacks: the demo partner's, and every test environment's without a callback URL. */
export const sandboxPartnerWalletPath = "/sandbox/partner/wallet"

/** Settings of the sandbox, from the environment. */
export class SandboxConfig extends Context.Service<SandboxConfig, {
  /**
   * How long a sandbox game session (its launch URL) stays open. The URL is a bearer link to the
   * player's balance in the partner's wallet, so it must not work forever; a partner launches again.
   */
  readonly sessionTtl: Duration.Duration
  /** Spins one session may make (SANDBOX_MAX_SPINS_PER_SESSION): its page needs no auth, so its URL is all it takes. */
  readonly maxSpinsPerSession: number
}>()("partner-api/sandbox/SandboxConfig") {
  static readonly config = Config.all({
    sessionTtl: Config.Duration("SANDBOX_SESSION_TTL").pipe(Config.withDefault(Duration.hours(24))),
    maxSpinsPerSession: Config.schema(
      Schema.NumberFromString.check(Schema.isInt(), Schema.isBetween({ minimum: 1, maximum: 1_000_000 })),
      "SANDBOX_MAX_SPINS_PER_SESSION"
    ).pipe(Config.withDefault(1000))
  })

  static readonly layer = Layer.effect(SandboxConfig, Effect.map(SandboxConfig.config, SandboxConfig.of))
}
