/**
 * `odds_format` over real HTTP to a fake BetsAPI: the odds and live odds answers in each format, the format named in
 * the Odds-Format header (decimal unless asked), the same with the raw payload, and a format the contract does not
 * know is its 422 naming `odds_format`.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { BetsApiApp } from "../support/BetsApiApp.ts"
import { live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { bearer, dataAs, errorBody, givenPartner, request } from "../support/TestApp.ts"

const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })

const Odds = Schema.Struct({
  event_id: Schema.String,
  markets: Schema.Array(Schema.Struct({
    key: Schema.String,
    odds: Schema.Array(Schema.Struct({ label: Schema.String, value: Schema.Union([Schema.Number, Schema.String]) }))
  }))
})

/** Each market's prices, by key, as the wire carries them. */
const prices = (response: { readonly body: unknown }) =>
  Object.fromEntries(dataAs(Odds)(response).markets.map((market) => [market.key, market.odds.map((odd) => odd.value)]))

// The fake's event 1001: pre-match 1_1 at 2.1 / 3.25 / 3.6 and 1_2 at 1.95 / 1.9; in play 1_1 at 1.833 / 3.4.
const preMatch = {
  decimal: { "1_1": [2.1, 3.25, 3.6], "1_2": [1.95, 1.9] },
  american: { "1_1": [110, 225, 260], "1_2": [-105, -111] },
  fractional: { "1_1": ["11/10", "9/4", "13/5"], "1_2": ["19/20", "9/10"] },
  probability: { "1_1": [0.4762, 0.3077, 0.2778], "1_2": [0.5128, 0.5263] }
}
const inPlay = {
  decimal: { "1_1": [1.833, 3.4] },
  american: { "1_1": [-120, 240] },
  fractional: { "1_1": ["5/6", "12/5"] },
  probability: { "1_1": [0.5456, 0.2941] }
}

layer(BetsApiApp(), live)("odds formats", (it) => {
  it.effect("the odds and live odds in each format, the format in the Odds-Format header; decimal unless asked", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const plain = yield* get(token, "/sports/events/1001/odds")
      assert.strictEqual(plain.headers["odds-format"], "decimal")
      assert.deepStrictEqual(prices(plain), preMatch.decimal)
      // Twice round every format: each keeps its own written answer of the same cached markets.
      for (const _ of [1, 2]) {
        for (const format of ["american", "fractional", "probability", "decimal"] as const) {
          const odds = yield* get(token, `/sports/events/1001/odds?odds_format=${format}`)
          assert.strictEqual(odds.status, 200)
          assert.strictEqual(odds.headers["odds-format"], format)
          assert.deepStrictEqual(prices(odds), preMatch[format], format)
          const liveOdds = yield* get(token, `/sports/events/1001/odds/live?odds_format=${format}`)
          assert.strictEqual(liveOdds.headers["odds-format"], format)
          assert.deepStrictEqual(prices(liveOdds), inPlay[format], `live ${format}`)
        }
      }
    }))

  it.effect("with the raw payload too: the prices converted, the provider's payload as it sent it", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const raw = yield* get(token, "/sports/events/1001/odds?odds_format=fractional&include_raw=true")
      assert.strictEqual(raw.headers["odds-format"], "fractional")
      assert.deepStrictEqual(prices(raw), preMatch.fractional)
      assert.include(JSON.stringify((raw.body as { provider_response: unknown }).provider_response), "\"2.100\"")
    }))

  it.effect("the typed client asks for a format and reads its values", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const client = yield* partnerClient(token)
      const odds = yield* client.sports.odds({ params: { eventId: "1001" }, query: { odds_format: "american" } })
      assert.deepStrictEqual(odds.data.markets[0].odds.map((odd) => odd.value), [110, 225, 260])
      const live = yield* client.sports.liveOdds({ params: { eventId: "1001" }, query: { odds_format: "fractional" } })
      assert.deepStrictEqual(live.data.markets[0].odds.map((odd) => odd.value), ["5/6", "12/5"])
    }))

  it.effect("a format the contract does not know is its 422 naming odds_format; an unknown event still its 404", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      for (const path of ["/sports/events/1001/odds", "/sports/events/1001/odds/live"]) {
        for (const value of ["hongkong", "American", ""]) {
          const refused = yield* get(token, `${path}?odds_format=${value}`)
          assert.strictEqual(refused.status, 422, `${path} ${value}`)
          assert.deepStrictEqual(errorBody(refused).errors, {
            odds_format: ["The selected odds format is invalid. Use decimal, american, fractional or probability."]
          })
          assert.isUndefined(refused.headers["odds-format"])
        }
      }
      const unknown = yield* get(token, "/sports/events/777/odds?odds_format=american")
      assert.strictEqual(unknown.status, 404)
      assert.isUndefined(unknown.headers["odds-format"], "no answer, no format")
    }))
})
