import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted, Schema } from "effect"
import { HttpClient, HttpClientRequest } from "effect/http"
import { SqlClient } from "effect/sql"
import { WalletCredentials } from "../../src/integrations/playfiver/WalletCredentials.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { live } from "../support/live.ts"
import {
  bearer,
  dataAs,
  errorBody,
  givenPartner,
  givenSyncedCatalog,
  request,
  validationErrors
} from "../support/TestApp.ts"
import { givenWalletPlayer, WalletApp, walletCall } from "../support/WalletApp.ts"

const books = new PartnerBooks()

const storable = (field: string) => `The ${field} field must be text without NUL characters or unpaired surrogates.`

/** A POST whose body is these exact bytes (JSON by content type), answered as JSON. */
const postBytes = (path: string, bytes: Uint8Array, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const response = yield* client.execute(
      HttpClientRequest.post(path).pipe(
        HttpClientRequest.setHeaders(headers),
        HttpClientRequest.bodyUint8Array(bytes, "application/json")
      )
    )
    return { status: response.status, body: (yield* response.json) as unknown }
  }).pipe(Effect.orDie)

/** JSON text with `\uFFFF` standing for one raw byte that is not UTF-8 (0xFF). */
const withInvalidByte = (json: string) => {
  const [before, after] = json.split("\uFFFF")
  const encoder = new TextEncoder()
  return new Uint8Array([...encoder.encode(before), 0xff, ...encoder.encode(after)])
}

const launchBody = (externalPlayerId: string) =>
  JSON.stringify({
    external_player_id: externalPlayerId,
    player_balance: 10,
    provider: "aurora-gaming",
    game_code: "ag-hidden-fortune"
  })

const countPlayers = (partnerId: number) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM partner_players WHERE partner_id = ${partnerId}`
  ).pipe(
    Effect.map((rows) => rows[0].n),
    Effect.orDie
  )

layer(WalletApp(books), live)("text PostgreSQL cannot store", (it) => {
  it.effect("a NUL, a lone surrogate or a bad escape in any query value is a 422 naming it, on every kind of endpoint", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const cases: ReadonlyArray<readonly [string, string, string]> = [
        ["/games?search=a%00b", "search", storable("search")],
        ["/games?provider=a%00b", "provider", storable("provider")],
        ["/games?search=%FF", "search", "The search field must be UTF-8 text."],
        ["/games?search=%ED%A0%80", "search", "The search field must be UTF-8 text."],
        ["/sports/catalog/leagues?search=x%00", "search", storable("search")],
        ["/sports/catalog/leagues?league_id=x%00", "league_id", storable("league id")],
        ["/sports/catalog/teams?team_id=x%00", "team_id", storable("team id")],
        ["/sports/catalog/filters?team_id=x%00", "team_id", storable("team id")],
        ["/sports/feed/prematch?search=x%00", "search", storable("search")],
        ["/sports/feed/live?league_id=x%00", "league_id", storable("league id")],
        ["/sports/events/upcoming?league_id=x%00", "league_id", storable("league id")]
      ]
      // Each asked twice: a query text is checked once per distinct text, and a refused one is never kept as fine.
      for (const attempt of ["first", "again"]) {
        for (const [path, field, message] of cases) {
          const response = yield* request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })
          assert.strictEqual(response.status, 422, `${path}, ${attempt}`)
          assert.deepStrictEqual(response.body, {
            success: false,
            message: "The given data was invalid.",
            errors: { [field]: [message] }
          }, `${path}, ${attempt}`)
        }
      }
    }))

  it.effect("a NUL in an event id of the path is a 422 naming it", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      for (const path of ["/sports/events/a%00b/odds", "/sports/events/live/a%00b", "/sports/events/a%00b/result"]) {
        const response = yield* request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })
        assert.strictEqual(response.status, 422, path)
        assert.deepStrictEqual(validationErrors(response), { eventId: [storable("eventId")] }, path)
      }
    }))

  it.effect("a NUL or a lone surrogate in a wallet id of the path is a 422 naming it", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const cases: ReadonlyArray<readonly [string, string]> = [
        ["/wallet/transactions/%00", "transaction_id"],
        ["/wallet/transactions/a%00b", "transaction_id"],
        ["/wallet/transactions/a%00b?kind=bet", "transaction_id"],
        ["/wallet/rounds/%00", "round_id"],
        ["/wallet/rounds/a%00b", "round_id"],
        ["/wallet/rounds/a%00b?external_player_id=p-1", "round_id"]
      ]
      for (const [path, field] of cases) {
        const response = yield* request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })
        assert.strictEqual(response.status, 422, path)
        assert.deepStrictEqual(response.body, {
          success: false,
          message: "The given data was invalid.",
          errors: { [field]: [storable(field.replaceAll("_", " "))] }
        }, path)
      }
      // A well-formed id nobody has is a 404 of its own; a space or a non-ASCII letter is read as sent.
      for (const path of ["/wallet/transactions/txn%20one", "/wallet/rounds/r%C3%A9"]) {
        const response = yield* request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })
        assert.strictEqual(response.status, 404, path)
        assert.notStrictEqual(errorBody(response).message, "Route not found.", path)
      }
    }))

  it.effect("a path whose escapes are not UTF-8 (a lone surrogate, a bare byte) matches no route, on every path endpoint alike", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      for (
        const path of [
          "/wallet/transactions/%ED%A0%80",
          "/wallet/transactions/a%FFb",
          "/wallet/rounds/%ED%B0%80x",
          "/wallet/rounds/a%FF",
          "/sports/events/%ED%A0%80/odds",
          "/sports/events/a%FF/result"
        ]
      ) {
        const response = yield* request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })
        assert.deepStrictEqual(
          [response.status, response.body],
          [404, { success: false, message: "Route not found." }],
          path
        )
      }
    }))

  it.effect("launch fields with a NUL or a lone surrogate are a 422 naming each; nothing is stored", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { partner, token } = yield* givenPartner()
      const response = yield* request("POST", "/api/partner/v1/launch", {
        headers: bearer(token),
        json: {
          external_player_id: "player\ud800",
          player_name: "Ana\u0000",
          player_balance: 10,
          provider: "aurora-gaming",
          game_code: "ag-\udc00hidden"
        }
      })
      assert.strictEqual(response.status, 422)
      assert.deepStrictEqual(validationErrors(response), {
        external_player_id: [storable("external player id")],
        player_name: [storable("player name")],
        game_code: [storable("game code")]
      })
      assert.strictEqual(yield* countPlayers(partner.id), 0)
    }))

  it.effect("a launch body that is not UTF-8 is a 422: two ids differing in bad bytes never merge into one player", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { partner, token } = yield* givenPartner()
      for (const id of ["p-\uFFFF-1", "p-\uFFFF-2"]) {
        const response = yield* postBytes("/api/partner/v1/launch", withInvalidByte(launchBody(id)), bearer(token))
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(response.body, {
          success: false,
          message: "The given data was invalid.",
          errors: { body: ["The request body must be UTF-8 text."] }
        })
      }
      assert.strictEqual(yield* countPlayers(partner.id), 0)
      // The same body, valid UTF-8, launches.
      const fine = yield* postBytes(
        "/api/partner/v1/launch",
        new TextEncoder().encode(launchBody("p-é-1")),
        bearer(token)
      )
      assert.strictEqual(fine.status, 200)
      assert.strictEqual(
        dataAs(Schema.Struct({ partner_player: Schema.Struct({ external_player_id: Schema.String }) }))(fine)
          .partner_player.external_player_id,
        "p-é-1"
      )
    }))

  it.effect("the aggregator's wallet calls: bad bytes and NUL ids are its own 400 INVALID_REQUEST", () =>
    Effect.gen(function*() {
      const { userCode } = yield* givenWalletPlayer(books, 50)
      const credentials = Option.getOrThrow((yield* WalletCredentials).expected)
      const call = (slot: Record<string, unknown>) =>
        JSON.stringify({
          type: "WinBet",
          user_code: userCode,
          agent_code: credentials.agentCode,
          agent_secret: Redacted.value(credentials.agentSecret),
          slot: { bet: 1, win: 0, game_code: "ag-hidden-fortune", ...slot }
        })
      const badBytes = yield* postBytes("/aggregator/wallet", withInvalidByte(call({ txn_id: "t-\uFFFF" })))
      assert.deepStrictEqual([badBytes.status, badBytes.body], [400, { msg: "INVALID_REQUEST", balance: 0 }])
      for (const txnId of ["t-\u0000", "t-\ud800"]) {
        const response = yield* walletCall({
          type: "WinBet",
          user_code: userCode,
          slot: { txn_id: txnId, bet: 1, win: 0 }
        })
        assert.deepStrictEqual([response.status, response.body], [400, { msg: "INVALID_REQUEST", balance: 0 }])
      }
      const userCodeNul = yield* walletCall({ type: "Balance", user_code: "1\u0000" })
      assert.deepStrictEqual([userCodeNul.status, userCodeNul.body], [400, { msg: "INVALID_REQUEST", balance: 0 }])
    }))

  it.effect("a sandbox session id PostgreSQL cannot store is a session that does not exist", () =>
    Effect.gen(function*() {
      const page = yield* request("GET", "/sandbox/casino/play/a%00b")
      assert.strictEqual(page.status, 404)
      const callbacks = yield* request("GET", "/sandbox/casino/play/a%00b/callbacks")
      assert.deepStrictEqual([callbacks.status, callbacks.body], [404, {
        message: "This game session does not exist."
      }])
      const spin = yield* request("POST", "/sandbox/casino/play/a%00b/spin", { json: {} })
      assert.strictEqual(spin.status, 404)
    }))
})
