import { amountOnWire } from "../../domain/Money.ts"
import { Effect, Layer, Option } from "effect"
import { CasinoGateway, CasinoGatewayError, type GameLaunch } from "../../casino/CasinoGateway.ts"
import type { Environment } from "../../domain/Environment.ts"
import { CallbackTargets } from "../../partners/CallbackTargets.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { AppConfig, publicBaseUrl } from "../../platform/AppConfig.ts"
import { sandboxCasinoCatalog } from "./SandboxCasinoCatalog.ts"
import { SandboxConfig } from "./SandboxConfig.ts"
import { isSandboxPartnerWallet } from "./SandboxPartnerWallet.ts"
import { newSessionId, SandboxRepo } from "./SandboxRepo.ts"

/** Where a session's game page is served. */
export const gamePagePath = (session: string) => `/sandbox/casino/play/${session}`

/**
 * The sandbox aggregator: the embedded default and the demo a new user
 * clicks. Its catalog is fixed; a launch opens a session whose page this
 * service serves (see SandboxPages) for SANDBOX_SESSION_TTL. One per
 * environment: a test launch's session is marked (newSessionId), so its
 * spins reach the wallet as the test agent's calls.
 */
export const sandboxGateway = (environment: Environment) =>
  Layer.effect(
    CasinoGateway,
    Effect.gen(function*() {
      const repo = yield* SandboxRepo
      const players = yield* PartnerPlayers
      const targets = yield* CallbackTargets
      const { sessionTtl } = yield* SandboxConfig
      const baseUrl = publicBaseUrl(yield* AppConfig)
      const catalog = sandboxCasinoCatalog()
      const gamesByKey = new Map(catalog.games.map((game) => [`${game.providerCode}\u0000${game.code}`, game]))

      /**
       * For a partner whose wallet is the sandbox's own (the demo partner), the balance sent at launch is the
       * partner saying what its player has: its books start from it, so the game page and every spin agree.
       */
      const startDemoWallet = Effect.fn("SandboxGateway.startDemoWallet")(function*(userCode: number) {
        const player = yield* players.findByUserCode(userCode)
        // A shadow player's balance is kept nowhere: the sandbox wallet opens at 0 for it.
        if (Option.isNone(player) || player.value.balance === null) return
        const target = yield* targets.get(player.value.partnerId, player.value.environment)
        if (Option.isNone(target) || !isSandboxPartnerWallet(target.value.callbackUrl)) return
        yield* repo.setWalletBalance(
          {
            partnerId: player.value.partnerId,
            externalPlayerId: player.value.externalPlayerId,
            currency: player.value.currency
          },
          player.value.balance
        )
      })

      const launch = Effect.fn("SandboxGateway.launch")(function*(request: GameLaunch) {
        const game = gamesByKey.get(`${request.providerCode}\u0000${request.gameCode}`)
        if (game === undefined || !game.enabled) {
          return yield* new CasinoGatewayError({
            reason: "Rejected",
            message: "The casino aggregator refused the launch: game not available.",
            providerResponse: { status: false, msg: "GAME_NOT_AVAILABLE" }
          })
        }
        const session = newSessionId(environment)
        yield* repo.openSession({
          id: session,
          user_code: request.userCode,
          game_code: request.gameCode,
          provider: request.providerCode,
          player_name: request.playerName,
          balance: request.balance,
          currency: request.currency.code,
          lang: request.lang
        }, sessionTtl)
        yield* startDemoWallet(request.userCode)
        const url = `${baseUrl}${gamePagePath(session)}`
        return {
          url,
          response: {
            status: true,
            msg: "SUCCESS",
            launch_url: url,
            user_balance: amountOnWire(request.balance, request.currency)
          }
        }
      })

      return CasinoGateway.of({
        name: "sandbox",
        configured: true,
        // The sandbox plays in every currency the deployment accepts.
        serves: () => true,
        providers: Effect.succeed(catalog.providers),
        games: (provider) => Effect.succeed(catalog.games.filter((game) => game.providerCode === provider.code)),
        launch
      })
    })
  )
