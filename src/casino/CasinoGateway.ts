import { Context, Effect, Layer, Schema } from "effect"
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
  /** The player's device; an aggregator whose protocol has no such field ignores it (PlayFiver's, the sandbox's). */
  readonly platform: LaunchPlatform
  /** The player's country, ISO 3166-1 alpha-2 upper-case, when the partner sent it; ignored where not carried. */
  readonly country: string | undefined
}

export type LaunchPlatform = "desktop" | "mobile"

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

/**
 * The live aggregators CASINO_GATEWAY lists, in its order (a test token's: the sandbox alone). The catalogue is
 * synced from each, and a launch goes to its game's.
 */
export class CasinoGateways extends Context.Service<CasinoGateways, {
  readonly all: ReadonlyArray<CasinoGateway["Service"]>
  /** The gateway of an aggregator by its name; undefined when it is not one of these. */
  of(aggregator: string): CasinoGateway["Service"] | undefined
}>()("partner-api/casino/CasinoGateways") {
  static readonly make = (all: ReadonlyArray<CasinoGateway["Service"]>): CasinoGateways["Service"] =>
    CasinoGateways.of({ all, of: (aggregator) => all.find((gateway) => gateway.name === aggregator) })

  /** One gateway alone (the sandbox's). */
  static readonly fromGateway = <E, R>(gateway: Layer.Layer<CasinoGateway, E, R>) =>
    Layer.effect(CasinoGateways, Effect.map(Effect.service(CasinoGateway), (one) => CasinoGateways.make([one])))
      .pipe(Layer.provide(gateway))
}
