import { Context, Effect, Layer, Option, Result, Schema } from "effect"
import { launchCurrency } from "../domain/Currency.ts"
import type { PlayerLaunch } from "../domain/Casino.ts"
import { isFinerThanMinorUnit, minorOf } from "../domain/Money.ts"
import { CurrencyConfig } from "../platform/CurrencyConfig.ts"
import { type PartnerAccess, PartnerPlayer } from "../domain/Partner.ts"
import { appliedRtp, type RtpPolicy } from "../domain/RtpPolicy.ts"
import { PartnerPlayers } from "../partners/PartnerPlayers.ts"
import { CasinoCatalog } from "./CasinoCatalog.ts"
import { CasinoGatewayError, CasinoGateways } from "./CasinoGateway.ts"

/** The launch names something that cannot be launched; the map is field -> messages. */
export class LaunchRefused extends Schema.TaggedError<LaunchRefused>()("LaunchRefused", {
  errors: Schema.Record(Schema.String, Schema.Array(Schema.String))
}) {}

/** What a partner is told of a failed launch, by its kind: never the aggregator's address, words or pages. */
const plainReasons: Record<CasinoGatewayError["reason"], string> = {
  NotConfigured: "the casino aggregator is not configured",
  Timeout: "the casino aggregator did not answer in time",
  Unavailable: "the casino aggregator is unavailable",
  Rejected: "the casino aggregator refused it",
  InvalidResponse: "the casino aggregator's answer could not be used"
}

/**
 * The aggregator did not give a launch URL. The player row is already up to
 * date. `message` is the detail, for the log; `partnerMessage` is what the
 * partner is told.
 */
export class LaunchFailed extends Schema.TaggedError<LaunchFailed>()("LaunchFailed", {
  gateway: Schema.String,
  cause: CasinoGatewayError
}) {
  override get message() {
    return this.cause.message
  }
  get partnerMessage() {
    return `The game could not be launched: ${plainReasons[this.cause.reason]}.`
  }
}

export interface LaunchedForPlayer {
  readonly url: string
  /**
   * The player as launched: the stored row, except that a shadow player (nothing stored but its user code)
   * shows the balance the launch carried, which was passed to the aggregator and kept nowhere.
   */
  readonly player: PartnerPlayer
  /** The partner's RTP policy, the `user_rtp` it sent (null: none) and what the aggregator was sent (null: none). */
  readonly rtp: { readonly policy: RtpPolicy; readonly requested: number | null; readonly applied: number | null }
}

/** Game launches for partners' players. */
export class Casino extends Context.Service<Casino, {
  launch(partner: PartnerAccess, request: PlayerLaunch): Effect.Effect<LaunchedForPlayer, LaunchRefused | LaunchFailed>
}>()("partner-api/casino/Casino") {
  static readonly layer = Layer.effect(
    Casino,
    Effect.gen(function*() {
      const catalog = yield* CasinoCatalog
      const players = yield* PartnerPlayers
      const gateways = yield* CasinoGateways
      const { currencies, defaultCurrency } = yield* CurrencyConfig

      const launch = Effect.fn("Casino.launch")(function*(partner: PartnerAccess, request: PlayerLaunch) {
        const game = yield* catalog.findGame(request.provider, request.gameCode)
        // The game of a studio another aggregator serves is not launchable: its provider is known, its game is not.
        const gateway = Option.isSome(game) ? gateways.of(game.value.aggregator) : undefined
        if (Option.isNone(game) || gateway === undefined) {
          const known = yield* catalog.knowsProvider(request.provider)
          return yield* new LaunchRefused({
            errors: !known
              ? { provider: ["The selected provider is invalid."] }
              : { game_code: ["The selected game code is invalid for this provider."] }
          })
        }
        if (!game.value.enabled) {
          return yield* new LaunchRefused({ errors: { game_code: ["The selected game is disabled."] } })
        }
        yield* Effect.annotateCurrentSpan({ partner: partner.id, game: game.value.gameCode })

        // The partner's currency rules (domain/Currency.ts): its default, its restriction, what the aggregator serves.
        const chosen = launchCurrency({
          requested: request.currency ?? undefined,
          partnerDefault: partner.defaultCurrency,
          partnerCurrencies: partner.currencies,
          deploymentDefault: defaultCurrency,
          currencies,
          served: (code) => Option.exists(Option.fromNullishOr(currencies.find(code)), gateway.serves)
        })
        if (Result.isFailure(chosen)) return yield* new LaunchRefused({ errors: { currency: [chosen.failure] } })
        const currency = chosen.success
        const balance = minorOf(request.playerBalance, currency)
        if (balance === undefined) {
          return yield* new LaunchRefused({
            errors: {
              player_balance: [
                // Not finer than the currency, and still refused: above the largest amount.
                !isFinerThanMinorUnit(request.playerBalance, currency)
                  ? "The player balance field must be an amount from 0 to 1000000000000."
                  : currency.exponent === 0
                  ? `The player balance field must be a whole number of ${currency.code}.`
                  : `The player balance field must have at most ${currency.exponent} decimal places in ${currency.code}.`
              ]
            }
          })
        }

        // The token's environment: a test launch makes (or finds) the test player, never the live one.
        const player = yield* players.arrive({
          partnerId: partner.id,
          environment: partner.environment,
          externalPlayerId: request.externalPlayerId,
          currency: currency.code,
          name: request.playerName,
          email: request.playerEmail,
          balance
        })

        // The partner's RTP policy decides what reaches the aggregator (regulated markets forbid a per-player RTP).
        const rtp = {
          policy: partner.rtpPolicy,
          requested: request.rtp,
          applied: appliedRtp(partner.rtpPolicy, request.rtp)
        }
        const launched = yield* gateway.launch({
          userCode: player.internalUserId,
          gameCode: game.value.gameCode,
          providerCode: game.value.providerUpstreamCode,
          balance: player.balance ?? balance,
          currency,
          original: request.original ?? true,
          lang: request.lang ?? "pt",
          rtp: rtp.applied ?? undefined,
          playerName: player.name,
          platform: request.platform ?? "desktop",
          country: request.country ?? undefined
        }).pipe(
          // The details (the aggregator's address, its answer or error page) are the operator's, in the log only.
          Effect.tapError((cause) =>
            Effect.logWarning("Game launch failed at the casino aggregator").pipe(
              Effect.annotateLogs({
                partner_id: partner.id,
                game_code: game.value.gameCode,
                reason: cause.reason,
                detail: cause.message,
                ...(cause.providerResponse === undefined ? {} : { provider_response: cause.providerResponse })
              })
            )
          ),
          Effect.mapError((cause) => new LaunchFailed({ gateway: gateway.name, cause }))
        )
        return {
          url: launched.url,
          player: player.isShadow ? new PartnerPlayer({ ...player, balance }) : player,
          rtp
        }
      })

      return Casino.of({ launch })
    })
  )
}
