import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import { randomBytes } from "node:crypto"
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
