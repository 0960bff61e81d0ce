import type { Script } from "./FakeUpstream.ts"

/** What a healthy aggregator answers, in the protocol notes' shapes and with their type variants. */
export const healthyAggregator: Script = (call) => {
  switch (call.path) {
    case "/api/v2/providers":
      return {
        kind: "json",
        body: {
          data: [
            { name: "PG Soft", image_url: "https://img.example/pg.png", status: 1, wallet: { name: "main" } },
            { name: "Pragmatic Play", image_url: null, status: "1", wallet: { name: "main" } },
            { name: "Old Studio", status: false }
          ]
        }
      }
    case "/api/v2/games": {
      const byProvider: Record<string, Array<unknown>> = {
        "PG Soft": [
          {
            game_code: 126,
            name: "Fortune Tiger",
            image_url: "https://img.example/tiger.png",
            status: 1,
            original: 1,
            rounds_free: 0,
            provider: { name: "PG Soft" }
          },
          { game_code: "98", name: "Fortune Ox", status: true, original: true, provider: { name: "PG Soft" } },
          { game_code: "1543462", name: "Fortune Rabbit", status: 0, original: "0", provider: { name: "PG Soft" } }
        ],
        "Pragmatic Play": [
          {
            game_code: "vs20olympgate",
            name: "Gates of Olympus",
            status: "1",
            original: true,
            provider: { name: "Pragmatic Play" }
          }
        ],
        "Old Studio": []
      }
      return { kind: "json", body: { status: 1, msg: "SUCCESS", data: byProvider[call.query.provider] ?? [] } }
    }
    case "/api/v2/game_launch":
      return {
        kind: "json",
        body: {
          status: 1,
          msg: "SUCCESS",
          launch_url: `https://games.example/launch?user=${call.body?.user_code}&game=${call.body?.game_code}`,
          user_balance: call.body?.user_balance,
          user_created: true,
          name: "player"
        }
      }
    default:
      return { kind: "json", status: 404, body: { status: false, msg: "NOT_FOUND" } }
  }
}
