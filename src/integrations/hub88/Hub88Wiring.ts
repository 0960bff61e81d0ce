import { Config, Effect, Layer, Option } from "effect"
import { Hub88Config } from "./Hub88Config.ts"
import { Hub88LaunchTokens } from "./Hub88LaunchTokens.ts"
import { Hub88WalletRoute } from "./Hub88WalletRoute.ts"

/**
 * The settings whose presence says the deployment has a Hub88 account. Any one of them set, Hub88Config reads them
 * all, and a missing or bad one stops the start with its message (never a half-configured wallet). None set, Hub88
 * is not served. Listing `hub88` in CASINO_GATEWAY (its catalogue and launches) needs the same settings, so a
 * deployment that launches Hub88 games always serves its wallet calls.
 */
export const hub88Settings = [
  "HUB88_BASE_URL",
  "HUB88_OPERATOR_ID",
  "HUB88_PRIVATE_KEY",
  "HUB88_PRIVATE_KEY_FILE",
  "HUB88_PUBLIC_KEY",
  "HUB88_PUBLIC_KEY_FILE"
] as const

/** Whether any HUB88_* setting of the account is present (its value is not read here). */
export const hub88Configured = Effect.gen(function*() {
  for (const name of hub88Settings) {
    if (Option.isSome(yield* Config.option(Config.String(name)))) return true
  }
  return false
})

/** Hub88's wallet paths (/aggregator/hub88/...), served only when Hub88 is configured. */
export const Hub88WalletRouteWhenConfigured = Layer.unwrap(Effect.map(
  hub88Configured,
  (configured) =>
    configured
      ? Hub88WalletRoute.pipe(Layer.provide(Hub88LaunchTokens.layer), Layer.provide(Hub88Config.layer))
      : Layer.empty
))
