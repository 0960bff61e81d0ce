import { assert, describe, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { Partners } from "../../src/partners/Partners.ts"
import { PartnerSummary } from "../../src/api/Envelope.ts"
import { bearer, bodyAs, givenPartner, givenSyncedCatalog, partnerKey, request, TestApp } from "../support/TestApp.ts"
import { live } from "../support/live.ts"

/**
 * Authentication is judged on the wire: each header variant, and the exact Portuguese messages.
 * (The typed client sends the token one way; test/client covers it.)
 */
const Admitted = Schema.Struct({ success: Schema.Literal(true), partner: PartnerSummary })

const missing = { success: false, message: "API key do parceiro nao informada." }
const invalid = { success: false, message: "Parceiro invalido ou inativo." }

/** Endpoints behind partner auth; the auth contract is the same on each. */
const endpoints = [
  { method: "GET", path: "/api/partner/v1/status" },
  { method: "GET", path: "/api/partner/v1/providers" },
  { method: "GET", path: "/api/partner/v1/games?search=x" },
  { method: "GET", path: "/api/partner/v1/sports/status" },
  { method: "GET", path: "/api/partner/v1/sports/events/upcoming?sport_id=1" },
  {
    method: "POST",
    path: "/api/partner/v1/launch",
    json: {
      external_player_id: "auth-check",
      player_balance: 1,
      provider: "aurora-gaming",
      game_code: "ag-hidden-fortune"
    }
  }
] as const

type Endpoint = (typeof endpoints)[number]

const call = (endpoint: Endpoint, headers: Record<string, string> = {}) =>
  request(endpoint.method, endpoint.path, { headers, ...("json" in endpoint ? { json: endpoint.json } : {}) })

const headerStyles = [
  { name: "Authorization: Bearer", headers: bearer },
  { name: "X-Partner-Key", headers: partnerKey }
] as const

layer(TestApp(), live)("partner authentication", (it) => {
  for (const endpoint of endpoints) {
    describe(`${endpoint.method} ${endpoint.path}`, () => {
      it.effect("no token: 401, API key not given", () =>
        Effect.gen(function*() {
          const response = yield* call(endpoint)
          assert.strictEqual(response.status, 401)
          assert.deepStrictEqual(response.body, missing)
          assert.include(response.contentType, "application/json")
        }))

      it.effect("an empty bearer, an empty X-Partner-Key, or another scheme is no token", () =>
        Effect.gen(function*() {
          for (
            const headers of [
              { authorization: "Bearer " },
              { "x-partner-key": "" },
              { authorization: "Basic dXNlcjpwYXNz" },
              { authorization: "Token abc" }
            ]
          ) {
            const response = yield* call(endpoint, headers)
            assert.strictEqual(response.status, 401, JSON.stringify(headers))
            assert.deepStrictEqual(response.body, missing, JSON.stringify(headers))
          }
        }))

      for (const style of headerStyles) {
        it.effect(`${style.name}: a valid token of an active partner is admitted`, () =>
          Effect.gen(function*() {
            yield* givenSyncedCatalog // so a launch can succeed
            const { partner, token } = yield* givenPartner()
            const response = yield* call(endpoint, style.headers(token))
            assert.strictEqual(response.status, 200)
            const admitted = bodyAs(Admitted)(response)
            assert.strictEqual(admitted.success, true)
            assert.strictEqual(admitted.partner.id, partner.id)
          }))

        it.effect(`${style.name}: an unknown token is 401 invalid`, () =>
          Effect.gen(function*() {
            const response = yield* call(endpoint, style.headers("pak_not-a-real-token"))
            assert.strictEqual(response.status, 401)
            assert.deepStrictEqual(response.body, invalid)
          }))

        it.effect(`${style.name}: an inactive partner's token is 401 invalid`, () =>
          Effect.gen(function*() {
            const { token } = yield* givenPartner({ status: "inactive" })
            const response = yield* call(endpoint, style.headers(token))
            assert.strictEqual(response.status, 401)
            assert.deepStrictEqual(response.body, invalid)
          }))
      }

      it.effect("the bearer scheme name is case-insensitive", () =>
        Effect.gen(function*() {
          const { token } = yield* givenPartner()
          const response = yield* call(endpoint, { authorization: `bearer ${token}` })
          assert.strictEqual(response.status, 200)
        }))

      it.effect("either header may carry the valid token", () =>
        Effect.gen(function*() {
          const { token } = yield* givenPartner()
          const keyWins = yield* call(endpoint, { ...bearer("pak_wrong"), ...partnerKey(token) })
          assert.strictEqual(keyWins.status, 200)
          const bearerWins = yield* call(endpoint, { ...bearer(token), ...partnerKey("pak_wrong") })
          assert.strictEqual(bearerWins.status, 200)
        }))

      it.effect("a refused bearer token with no X-Partner-Key is invalid, not missing", () =>
        Effect.gen(function*() {
          const response = yield* call(endpoint, { ...bearer("pak_wrong"), "x-partner-key": "" })
          assert.deepStrictEqual(response.body, invalid)
        }))
    })
  }

  it.effect("a deactivated partner is refused within seconds, and admitted again once reactivated", () =>
    Effect.gen(function*() {
      const partners = yield* Partners
      const { partner, token } = yield* givenPartner()
      const status = () => request("GET", "/api/partner/v1/status", { headers: bearer(token) })
      assert.strictEqual((yield* status()).status, 200) // now cached

      yield* partners.setStatus(partner.slug, "inactive")
      const refusedAfter = yield* waitForStatus(status, 401)
      assert.isBelow(refusedAfter, 5_000)

      yield* partners.setStatus(partner.slug, "active")
      yield* waitForStatus(status, 200)
    }))

  it.effect("only the SHA-256 of a token is stored", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { partner, token } = yield* givenPartner()
      const rows = yield* sql<{ token_hash: Uint8Array; row: string }>`
        SELECT token_hash, row_to_json(p)::text AS row FROM partners p WHERE id = ${partner.id}
      `
      assert.deepStrictEqual(
        Buffer.from(rows[0].token_hash),
        createHash("sha256").update(token).digest()
      )
      assert.notInclude(rows[0].row, token)
    }))
})

/** Polls until the endpoint answers `status`; returns how long that took. */
const waitForStatus = <R>(call: () => Effect.Effect<{ readonly status: number }, never, R>, status: number) =>
  Effect.gen(function*() {
    const started = Date.now()
    while ((yield* call()).status !== status) {
      if (Date.now() - started > 10_000) return yield* Effect.die(`status ${status} never came`)
      yield* Effect.sleep("50 millis")
    }
    return Date.now() - started
  })
