import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
import { sandboxPartnerWalletPath } from "../callbacks/SandboxPartnerWallet.ts"
import { AppConfig, publicBaseUrl } from "../platform/AppConfig.ts"
import { CasinoGateway, CasinoGatewayError, type GameLaunch } from "./CasinoGateway.ts"
import { sandboxCatalog } from "./SandboxCatalog.ts"

/**
 * The sandbox aggregator: the embedded default and the demo a new user
 * clicks. Its catalog is fixed; a launch opens a session whose page this
 * service serves (see SandboxPages).
 */
export const SandboxGatewayLive = Layer.effect(
  CasinoGateway,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const baseUrl = publicBaseUrl(yield* AppConfig)
    const catalog = sandboxCatalog()
    const gamesByKey = new Map(catalog.games.map((game) => [`${game.providerCode}\u0000${game.code}`, game]))

    const launch = Effect.fn("SandboxGateway.launch")(function*(request: GameLaunch) {
      const game = gamesByKey.get(`${request.providerCode}\u0000${request.gameCode}`)
      if (game === undefined || !game.enabled) {
        return yield* new CasinoGatewayError({
          reason: "Rejected",
          message: "The casino aggregator refused the launch: game not available.",
          providerResponse: { status: false, msg: "GAME_NOT_AVAILABLE" }
        })
      }
      const session = randomBytes(18).toString("base64url")
      yield* sql`
        INSERT INTO sandbox_casino_sessions (id, user_code, game_code, provider, player_name, balance, lang)
        VALUES (${session}, ${request.userCode}, ${request.gameCode}, ${request.providerCode},
                ${request.playerName}, ${request.balance}, ${request.lang})
      `.pipe(Effect.orDie)
      // For a partner whose wallet is the sandbox's own (the demo partner), the balance sent at launch is the
      // partner saying what its player has: its books start from it, so the game page and every spin agree.
      yield* sql`
        INSERT INTO sandbox_partner_wallets (partner_id, external_player_id, balance)
        SELECT pp.partner_id, pp.external_player_id, ${request.balance}
        FROM partner_players pp JOIN partners p ON p.id = pp.partner_id
        WHERE pp.internal_user_id = ${request.userCode} AND p.callback_url LIKE ${`%${sandboxPartnerWalletPath}`}
        ON CONFLICT (partner_id, external_player_id) DO UPDATE SET balance = EXCLUDED.balance, updated_at = now()
      `.pipe(Effect.orDie)
      const url = `${baseUrl}/sandbox/casino/play/${session}`
      return { url, response: { status: true, msg: "SUCCESS", launch_url: url, user_balance: request.balance } }
    })

    return CasinoGateway.of({
      name: "sandbox",
      configured: true,
      providers: Effect.succeed(catalog.providers),
      games: (provider) => Effect.succeed(catalog.games.filter((game) => game.providerCode === provider.code)),
      launch
    })
  })
)
