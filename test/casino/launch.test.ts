import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import type { LaunchRequest } from "../../src/api/Casino.ts"
import { live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import {
  bearer,
  dataAs,
  givenPartner,
  givenSyncedCatalog,
  request,
  TestApp,
  textBody,
  validationErrors
} from "../support/TestApp.ts"

const BALANCE_MESSAGE =
  "The player balance field must be an amount from 0 to 1000000000000 written plainly (like 150.5 or \"150.50\")."

const launchPath = "/api/partner/v1/launch"

/** A launchable sandbox game (enabled upstream). */
const game = { provider: "aurora-gaming", game_code: "ag-hidden-fortune" }

const validBody = (overrides: Record<string, unknown> = {}) => ({
  external_player_id: "player-1",
  player_name: "Ana Souza",
  player_email: "ana@example.com",
  player_balance: 150.5,
  ...game,
  ...overrides
})

/** The same launch as the typed client takes it: the balance in cents (it sends "150.50"). */
const typedBody = (overrides: Partial<LaunchRequest> = {}): LaunchRequest => ({
  external_player_id: "player-1",
  player_name: "Ana Souza",
  player_email: "ana@example.com",
  player_balance: "150.50",
  ...game,
  ...overrides
})

/** POST /launch through the typed client, as `token`'s partner. */
const launch = (token: string, payload: LaunchRequest) =>
  Effect.flatMap(partnerClient(token), (client) => client.casino.launch({ payload }))

/** POST /launch over the wire with any JSON body, for bodies the typed client would refuse to send. */
const launchOnTheWire = (token: string, body: unknown) =>
  request("POST", launchPath, { headers: bearer(token), json: body })

/** The sandbox game page a launch URL opens (HTML, so over the wire). */
const gamePage = (url: string) => request("GET", new URL(url).pathname)

const PartnerPlayerOnTheWire = Schema.Struct({ partner_player: Schema.Record(Schema.String, Schema.Unknown) })

const countPlayers = (partnerId: number) =>
  Effect.flatMap(
    Effect.service(SqlClient.SqlClient),
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM partner_players WHERE partner_id = ${partnerId}`
  ).pipe(
    Effect.map((rows) => rows[0].n),
    Effect.orDie
  )

layer(TestApp(), live)("POST /launch", (it) => {
  it.effect("launches a sandbox game: launch URL and the partner player, created on first sight", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { partner, token } = yield* givenPartner()
      const response = yield* launch(token, typedBody())
      assert.deepStrictEqual(response.partner, {
        id: partner.id,
        name: partner.name,
        slug: partner.slug,
        status: "active",
        environment: "live"
      })
      const { launch: launched, partner_player } = response.data
      assert.match(launched.url, /\/sandbox\/casino\/play\/[A-Za-z0-9_-]+$/)
      assert.strictEqual(partner_player.external_player_id, "player-1")
      assert.strictEqual(partner_player.balance, 150.5)
      assert.isAtLeast(partner_player.internal_user_id, 100001)
      // Exactly the player's four fields on the wire (the same player, launched again).
      const again = yield* launchOnTheWire(token, validBody())
      assert.strictEqual(again.status, 200)
      assert.deepStrictEqual(
        Object.keys(dataAs(PartnerPlayerOnTheWire)(again).partner_player).sort(),
        ["balance", "currency", "external_player_id", "id", "internal_user_id"]
      )

      // The launch URL opens the sandbox game page for this player.
      const page = yield* gamePage(launched.url)
      assert.strictEqual(page.status, 200)
      assert.include(page.contentType, "text/html")
      assert.include(textBody(page), "Hidden Fortune")
      assert.include(textBody(page), "Ana Souza")
      assert.include(textBody(page), "150.50")
    }))

  it.effect("a returning player keeps id and user code; balance follows, name and e-mail stay when omitted", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { partner, token } = yield* givenPartner()
      const first = (yield* launch(token, typedBody({ external_player_id: "returning" }))).data.partner_player
      const second = yield* launch(token, {
        external_player_id: "returning",
        player_balance: "20.00",
        ...game
      })
      const player = second.data.partner_player
      assert.deepStrictEqual([player.id, player.internal_user_id, player.balance], [
        first.id,
        first.internal_user_id,
        20
      ])
      const sql = yield* SqlClient.SqlClient
      const rows = yield* sql<{ name: string; email: string }>`
        SELECT name, email FROM partner_players WHERE partner_id = ${partner.id} AND external_player_id = 'returning'
      `
      assert.deepStrictEqual(rows[0], { name: "Ana Souza", email: "ana@example.com" })
    }))

  it.effect("the contract's defaults: no name, no e-mail, game_original true, lang pt; null is absent", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { token } = yield* givenPartner()
      const response = yield* launch(token, {
        external_player_id: "minimal",
        player_balance: "0.00",
        ...game,
        player_name: null,
        player_email: null,
        game_original: null,
        lang: null,
        user_rtp: null
      })
      const page = yield* gamePage(response.data.launch.url)
      assert.include(textBody(page), " pt<") // the session's language
    }))

  it.effect("the provider may be given by its integer id, as a number or a string", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { token } = yield* givenPartner()
      const catalog = yield* CasinoCatalog
      const { id } = Option.getOrThrow(yield* catalog.findProvider("aurora-gaming"))
      // On the wire: the typed client sends the provider one way only, and this balance as a JSON number.
      for (const ref of [id, String(id)]) {
        const response = yield* launchOnTheWire(
          token,
          validBody({ provider: ref, external_player_id: `by-id-${typeof ref}` })
        )
        assert.strictEqual(response.status, 200, JSON.stringify(response.body))
      }
    }))

  describe("422: every rule, every failing field at once, nothing written", () => {
    const cases: ReadonlyArray<readonly [string, Record<string, unknown>, Record<string, ReadonlyArray<string>>]> = [
      ["required fields missing", {
        external_player_id: undefined,
        player_balance: undefined,
        game_code: undefined,
        provider: undefined
      }, {
        external_player_id: ["The external player id field is required."],
        player_balance: ["The player balance field is required."],
        game_code: ["The game code field is required."],
        provider: ["The provider field is required."]
      }],
      ["blank strings are missing", { external_player_id: "   ", game_code: "" }, {
        external_player_id: ["The external player id field is required."],
        game_code: ["The game code field is required."]
      }],
      ["more than 255 characters", {
        external_player_id: "x".repeat(256),
        player_name: "n".repeat(256),
        player_email: `${"e".repeat(250)}@x.com`,
        game_code: "g".repeat(256),
        provider: "p".repeat(256)
      }, {
        external_player_id: ["The external player id field must not be greater than 255 characters."],
        player_name: ["The player name field must not be greater than 255 characters."],
        player_email: ["The player email field must not be greater than 255 characters."],
        game_code: ["The game code field must not be greater than 255 characters."],
        provider: ["The provider field must not be greater than 255 characters."]
      }],
      ["an e-mail that is not one", { player_email: "ana.example.com" }, {
        player_email: ["The player email field must be a valid email address."]
      }],
      ...([
        ["a negative balance", -0.01],
        ["a balance too large", 1e13],
        ["a balance written with an exponent", 1e21],
        ["an empty balance", ""],
        ["a balance in hexadecimal", "0x10"],
        ["a balance with an exponent in text", "1e2"],
        ["a balance padded with spaces", " 5"],
        ["a balance that is not an amount", true]
      ] as const).map(([name, value]) =>
        [name, { player_balance: value }, { player_balance: [BALANCE_MESSAGE] }] as const
      ),
      ["a balance with fractions of a cent", { player_balance: 10.005 }, {
        player_balance: ["The player balance field must have at most 2 decimal places in BRL."]
      }],
      ["a balance in JPY with decimals", { player_balance: 10.5, currency: "JPY" }, {
        player_balance: ["The player balance field must be a whole number of JPY."]
      }],
      ["a balance above the largest amount", { player_balance: "1000000000000.01" }, {
        player_balance: ["The player balance field must be an amount from 0 to 1000000000000."]
      }],
      ["a currency no one knows", { currency: "DOGGO" }, {
        currency: [
          "The currency field names \"DOGGO\", which is not a currency this deployment accepts: use an ISO 4217 " +
          "code such as BRL or EUR, or a crypto code the deployment enables in CRYPTO_CURRENCIES."
        ]
      }],
      ["a currency code that is not one", { currency: "12" }, {
        currency: ["The currency field must be a currency code such as BRL, EUR or BTC."]
      }],
      ["an RTP out of range, or not an integer", { user_rtp: 101 }, {
        user_rtp: ["The user rtp field must be between 0 and 100."]
      }],
      ["an RTP with decimals", { user_rtp: 50.5 }, { user_rtp: ["The user rtp field must be an integer."] }],
      ["an RTP as a string", { user_rtp: "50" }, { user_rtp: ["The user rtp field must be a number."] }],
      ["a boolean that is a string or a number", { game_original: "true" }, {
        game_original: ["The game original field must be true or false."]
      }],
      ["a boolean as 1", { game_original: 1 }, { game_original: ["The game original field must be true or false."] }],
      ["a language the aggregator does not speak", { lang: "de" }, {
        lang: ["The selected lang is invalid. Supported: pt, es, en, ja, zh, ru, th, hi."]
      }],
      ["a provider that is neither text nor an id", { provider: true }, {
        provider: ["The provider field must be a string (the provider's slug or id)."]
      }]
    ]

    // Bodies the typed client would refuse to send: only the wire carries them.
    for (const [name, overrides, errors] of cases) {
      it.effect(name, () =>
        Effect.gen(function*() {
          yield* givenSyncedCatalog
          const { partner, token } = yield* givenPartner()
          const body = Object.fromEntries(
            Object.entries(validBody(overrides)).filter(([, value]) => value !== undefined)
          )
          const response = yield* launchOnTheWire(token, body)
          assert.strictEqual(response.status, 422)
          assert.deepStrictEqual(response.body, { success: false, message: "The given data was invalid.", errors })
          assert.strictEqual(yield* countPlayers(partner.id), 0)
        }))
    }

    it.effect("all failing fields are named together", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const response = yield* launchOnTheWire(token, {
          player_email: "nope",
          player_balance: -1,
          game_original: "yes",
          user_rtp: 500
        })
        assert.strictEqual(response.status, 422)
        assert.deepStrictEqual(Object.keys(validationErrors(response)).sort(), [
          "external_player_id",
          "game_code",
          "game_original",
          "player_balance",
          "player_email",
          "provider",
          "user_rtp"
        ])
      }))

    it.effect("malformed JSON and a body that is not JSON", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const malformed = yield* request("POST", launchPath, {
          headers: { ...bearer(token), "content-type": "application/json" },
          body: "{\"external_player_id\": "
        })
        assert.strictEqual(malformed.status, 422)
        assert.deepStrictEqual(validationErrors(malformed), { body: ["The request body must be valid JSON."] })
        const form = yield* request("POST", launchPath, {
          headers: { ...bearer(token), "content-type": "text/plain" },
          body: "external_player_id=1"
        })
        assert.strictEqual(form.status, 422)
        assert.deepStrictEqual(Object.keys(validationErrors(form)), ["body"])
      }))

    it.effect("authentication comes first: an anonymous invalid body is a 401", () =>
      Effect.gen(function*() {
        const response = yield* request("POST", launchPath, { json: { nonsense: true } })
        assert.strictEqual(response.status, 401)
        assert.deepStrictEqual(response.body, { success: false, message: "API key do parceiro nao informada." })
      }))
  })

  it.effect("concurrent first launches of one player make one row", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { partner, token } = yield* givenPartner()
      const responses = yield* Effect.all(
        Array.from({ length: 25 }, (_, i) =>
          launch(token, typedBody({ external_player_id: "racer", player_balance: String(i) }))),
        { concurrency: "unbounded" }
      )
      assert.lengthOf(responses, 25) // every one answered (a failure fails the test)
      const userCodes = new Set(responses.map((r) =>
        r.data.partner_player.internal_user_id
      ))
      const ids = new Set(responses.map((r) => r.data.partner_player.id))
      assert.strictEqual(userCodes.size, 1)
      assert.strictEqual(ids.size, 1)
      assert.strictEqual(yield* countPlayers(partner.id), 1)
    }))

  it.effect("players of one partner are invisible to another", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const a = yield* givenPartner({ name: "Partner A" })
      const b = yield* givenPartner({ name: "Partner B" })
      const fromA =
        (yield* launch(a.token, typedBody({ external_player_id: "shared-id", player_balance: "10.00" }))).data
      const fromB =
        (yield* launch(b.token, typedBody({ external_player_id: "shared-id", player_balance: "99.00" }))).data
      assert.notStrictEqual(fromA.partner_player.id, fromB.partner_player.id)
      assert.notStrictEqual(fromA.partner_player.internal_user_id, fromB.partner_player.internal_user_id)
      // A's next launch sees A's player only, untouched by B.
      const againA =
        (yield* launch(a.token, typedBody({ external_player_id: "shared-id", player_balance: "11.00" }))).data
      assert.strictEqual(againA.partner_player.id, fromA.partner_player.id)
      const sql = yield* SqlClient.SqlClient
      const balances = yield* sql<{ partner_id: string; balance: string }>`
        SELECT partner_id::text, balance::text FROM partner_players WHERE external_player_id = 'shared-id' ORDER BY partner_id
      `
      assert.deepStrictEqual(balances.map((row) => row.balance), ["1100", "9900"])
    }))
})
