import { Context, Effect, Schema } from "effect"
import type { Currency } from "../domain/Currency.ts"
import type { Minor } from "../domain/Money.ts"

/** A provider as the aggregator lists it; `code` is its upstream name, the sync key. */
export interface UpstreamProvider {
  readonly code: string
  readonly name: string
  readonly enabled: boolean
  readonly imageUrl: string | null
}

export interface UpstreamGame {
  readonly code: string
  readonly name: string
  readonly providerCode: string
  readonly enabled: boolean
  readonly original: boolean
  readonly imageUrl: string | null
}

export interface GameLaunch {
  /** The player's user code at the aggregator (the partner player's internal_user_id). */
  readonly userCode: number
  readonly gameCode: string
  readonly providerCode: string
  /** The player's balance in `currency`'s minor units. */
  readonly balance: Minor
  readonly currency: Currency
  readonly original: boolean
  readonly lang: string
  readonly rtp: number | undefined
  /** For display only; the aggregator's protocol does not carry it. */
  readonly playerName: string | null
}

export interface LaunchedGame {
  readonly url: string
  /** The aggregator's answer, secrets removed. */
  readonly response: unknown
}

export class CasinoGatewayError extends Schema.TaggedError<CasinoGatewayError>()("CasinoGatewayError", {
  reason: Schema.Literals(["NotConfigured", "Timeout", "Unavailable", "Rejected", "InvalidResponse"]),
  message: Schema.String,
  /** What the aggregator answered, when it answered; secrets removed. */
  providerResponse: Schema.optional(Schema.Unknown)
}) {
  /** Worth another try: the call may not have reached the aggregator, or it hiccuped. */
  get transient(): boolean {
    return this.reason === "Timeout" || this.reason === "Unavailable"
  }
}

/**
 * The casino aggregator: its catalog and game launches. Layers: the sandbox
 * (an embedded demo aggregator, the default) and PlayFiver's v2 protocol.
 */
export class CasinoGateway extends Context.Service<CasinoGateway, {
  /** `sandbox` or `playfiver`. */
  readonly name: string
  /** Whether the gateway has what it needs to work (the real one: credentials). */
  readonly configured: boolean
  /** Whether the aggregator plays in a currency: a launch in any other is refused before it is asked. */
  serves(currency: Currency): boolean
  readonly providers: Effect.Effect<ReadonlyArray<UpstreamProvider>, CasinoGatewayError>
  games(provider: UpstreamProvider): Effect.Effect<ReadonlyArray<UpstreamGame>, CasinoGatewayError>
  launch(request: GameLaunch): Effect.Effect<LaunchedGame, CasinoGatewayError>
}>()("partner-api/casino/CasinoGateway") {}
