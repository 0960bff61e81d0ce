/**
 * Launches in currencies: the same player in BRL, JPY and BTC is three rows of its own (user code, balance), the
 * launch's currency comes from the body, the partner's default or the deployment's, and the partner's restriction
 * refuses the others; balances are exact at each currency's scale and written as every amount is (a number up to 3
 * decimals, a decimal string beyond).
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { Partners } from "../../src/partners/Partners.ts"
import { live } from "../support/live.ts"
import { bearer, givenPartner, givenSyncedCatalog, request, TestApp } from "../support/TestApp.ts"

const game = { provider: "aurora-gaming", game_code: "ag-hidden-fortune" }

const launch = (token: string, body: Record<string, unknown>) =>
  request("POST", "/api/partner/v1/launch", {
    headers: bearer(token),
    json: { external_player_id: "multi-1", ...game, ...body }
  })

interface LaunchedPlayer {
  readonly id: number
  readonly internal_user_id: number
  readonly balance: number | string
  readonly currency: string
}

const playerOf = (response: { readonly body: unknown }) =>
  (response.body as { readonly data: { readonly partner_player: LaunchedPlayer } }).data.partner_player

const rowsOf = (partnerId: number) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ currency: string; balance: string }>`
      SELECT currency, balance::text FROM partner_players WHERE partner_id = ${partnerId} ORDER BY currency
    `).pipe(Effect.orDie)

layer(TestApp(), live)("launches in currencies", (it) => {
  it.effect("the same player in BRL, JPY and BTC: three rows, three user codes, each balance exact at its scale", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { partner, token } = yield* givenPartner()
      const brl = yield* launch(token, { player_balance: "150.50" })
      const jpy = yield* launch(token, { player_balance: 1250, currency: "JPY" })
      const btc = yield* launch(token, { player_balance: "21000000.00000001", currency: "BTC" })
      const sat = yield* launch(token, { external_player_id: "satoshi", player_balance: "0.00000001", currency: "BTC" })
      assert.deepStrictEqual([brl.status, jpy.status, btc.status, sat.status], [200, 200, 200, 200])
      assert.deepInclude(playerOf(brl), { balance: 150.5, currency: "BRL" })
      assert.deepInclude(playerOf(jpy), { balance: 1250, currency: "JPY" })
      assert.deepInclude(playerOf(btc), { balance: "21000000.00000001", currency: "BTC" })
      assert.deepInclude(playerOf(sat), { balance: "0.00000001", currency: "BTC" })
      const codes = new Set([brl, jpy, btc].map((response) => playerOf(response).internal_user_id))
      assert.strictEqual(codes.size, 3, "a user code per currency")
      assert.deepStrictEqual(yield* rowsOf(partner.id), [
        { currency: "BRL", balance: "15050" },
        { currency: "BTC", balance: "2100000000000001" },
        { currency: "BTC", balance: "1" },
        { currency: "JPY", balance: "1250" }
      ])
      // Launched again in JPY: the JPY row's balance moves, the others stay.
      const again = yield* launch(token, { player_balance: "99", currency: "JPY" })
      assert.strictEqual(playerOf(again).internal_user_id, playerOf(jpy).internal_user_id)
      assert.deepInclude(yield* rowsOf(partner.id), { currency: "BRL", balance: "15050" })
      assert.deepInclude(yield* rowsOf(partner.id), { currency: "JPY", balance: "99" })
    }))

  it.effect("without a currency, the partner's default; with a restriction, any other is a 422 naming currency", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { partner, token } = yield* givenPartner()
      const partners = yield* Partners
      yield* partners.setCurrencies(partner.slug, { defaultCurrency: "EUR", currencies: ["EUR", "BTC"] })
      const byDefault = yield* launch(token, { player_balance: "10.25" })
      assert.strictEqual(byDefault.status, 200)
      assert.deepInclude(playerOf(byDefault), { balance: 10.25, currency: "EUR" })
      const refused = yield* launch(token, { player_balance: "10", currency: "BRL" })
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual((refused.body as { errors: unknown }).errors, {
        currency: [
          "The currency field names \"BRL\", which is not among the partner's currencies (EUR, BTC): send one of " +
          "them, or ask the operator to allow BRL."
        ]
      })
      const disabled = yield* launch(token, { player_balance: "1", currency: "ETH" })
      assert.strictEqual(disabled.status, 422, "a crypto code the deployment does not enable")
      assert.deepStrictEqual((yield* rowsOf(partner.id)).map((row) => row.currency), ["EUR"], "nothing else written")
    }))
})
