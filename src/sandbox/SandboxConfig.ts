import { Config, Context, Duration, Effect, Layer } from "effect"

/**
 * The agent code of the sandbox aggregator's wallet calls for test launches (the live ones carry `sandbox`):
 * the wallet tells a test player's calls by it.
 */
export const testAgentCode = "sandbox-test"

/** Settings of the sandbox, from the environment. */
export class SandboxConfig extends Context.Service<SandboxConfig, {
  /**
   * How long a sandbox game session (its launch URL) stays open. The URL is a bearer link to the
   * player's balance in the partner's wallet, so it must not work forever; a partner launches again.
   */
  readonly sessionTtl: Duration.Duration
}>()("partner-api/sandbox/SandboxConfig") {
  static readonly config = Config.all({
    sessionTtl: Config.Duration("SANDBOX_SESSION_TTL").pipe(Config.withDefault(Duration.hours(24)))
  })

  static readonly layer = Layer.effect(SandboxConfig, Effect.map(SandboxConfig.config, SandboxConfig.of))
}
