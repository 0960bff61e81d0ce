import { Config, Context, Duration, Effect, Layer } from "effect"

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
