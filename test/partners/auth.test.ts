import { assert, describe, layer } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
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
        SELECT t.token_hash, row_to_json(p)::text || row_to_json(e)::text || row_to_json(t)::text AS row
        FROM partners p JOIN partner_environments e ON e.partner_id = p.id AND e.environment = 'live'
        JOIN partner_tokens t USING (partner_id, environment) WHERE p.id = ${partner.id}
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

/** A request as if it came from `address` through the trusted proxy on 127.0.0.1 (TRUSTED_PROXIES). */
const statusFrom = (address: string, headers: Record<string, string>) =>
  request("GET", "/api/partner/v1/status", { headers: { ...headers, "x-forwarded-for": address } })

/** A token of the right shape that no partner holds. */
const unknownToken = (i: number) => `pak_unknown_${String(i).padStart(4, "0")}_${"x".repeat(32)}`

const failureLimit = 3

const tooManyInvalid = (retryAfter: string | undefined) => ({
  success: false,
  message: `Too many requests with an invalid token from this address. Retry in ${retryAfter} ${
    retryAfter === "1" ? "second" : "seconds"
  }.`
})

layer(
  TestApp({ app: { authFailureLimit: failureLimit, authCacheTtlMillis: 60_000 }, trustedProxies: ["127.0.0.1"] }),
  live
)(
  "invalid tokens",
  (it) => {
    it.effect("a token without a token's shape is refused 401 without a look-up, whoever holds it", () =>
      Effect.gen(function*() {
        // Stored by hand, so only a look-up could find them: the shape alone refuses them.
        for (
          const token of ["short", "pak_with space_00000000000000000", "pak_é_0000000000000000000000", "x".repeat(201)]
        ) {
          yield* givenPartner({ token })
          const response = yield* statusFrom(`198.51.100.${token.length % 200}`, bearer(token))
          assert.deepStrictEqual([response.status, response.body], [401, invalid], token)
        }
        // Every shape a token may have passes: generated, with a live or test prefix, or chosen (base64 with padding).
        const shaped = [
          `pak_${"A".repeat(43)}`,
          `pak_live_${"b".repeat(43)}`,
          `pak_test_${"c-_".repeat(14)}`,
          "Demo.Token~for+local/tests=="
        ]
        for (const [i, token] of shaped.entries()) {
          yield* givenPartner({ token })
          // (A token this instance has not seen yet counts toward its address's limit until it is found: one address each.)
          const response = yield* statusFrom(`198.51.100.${240 + i}`, bearer(token))
          assert.strictEqual(response.status, 200, token)
        }
      }))

    it.effect(
      "past AUTH_FAILURE_LIMIT invalid tokens an address is answered 429 with Retry-After, without a look-up; a partner's known token still works",
      () =>
        Effect.gen(function*() {
          const { token: knownToken } = yield* givenPartner()
          // Seen here once (from elsewhere): this instance knows it as a partner's.
          assert.strictEqual((yield* statusFrom("192.0.2.1", bearer(knownToken))).status, 200)
          const { token: newToken } = yield* givenPartner() // never seen by this instance

          const guesser = "203.0.113.7"
          for (let i = 0; i < failureLimit; i++) {
            const response = yield* statusFrom(guesser, bearer(unknownToken(i)))
            assert.deepStrictEqual([response.status, response.body], [401, invalid], `guess ${i}`)
          }
          const refusals = [
            yield* statusFrom(guesser, bearer(unknownToken(failureLimit))),
            yield* statusFrom(guesser, partnerKey("short")),
            // A real partner's token that this instance has not seen is not looked up from this address either.
            yield* statusFrom(guesser, bearer(newToken)),
            // Nor through the other scheme, when the first refused.
            yield* statusFrom(guesser, { ...bearer(unknownToken(99)), "x-partner-key": "" })
          ]
          for (const [i, refused] of refusals.entries()) {
            assert.strictEqual(refused.status, 429, `refusal ${i}`)
            const retryAfter = refused.headers["retry-after"]
            assert.match(retryAfter ?? "", /^[1-9][0-9]*$/, `refusal ${i}`)
            assert.isAtMost(Number(retryAfter), 60)
            assert.deepStrictEqual(refused.body, tooManyInvalid(retryAfter), `refusal ${i}`)
          }

          // The known partner keeps working from there, by either header, with no Retry-After of the guesses on it.
          const known = yield* statusFrom(guesser, bearer(knownToken))
          assert.strictEqual(known.status, 200)
          assert.isUndefined(known.headers["retry-after"])
          const knownBehindGuess = yield* statusFrom(guesser, {
            ...bearer(unknownToken(100)),
            ...partnerKey(knownToken)
          })
          assert.strictEqual(knownBehindGuess.status, 200)
          assert.isUndefined(knownBehindGuess.headers["retry-after"])

          // Other addresses are not affected, and the new partner works from them.
          assert.deepStrictEqual((yield* statusFrom("203.0.113.8", bearer(unknownToken(0)))).body, invalid)
          assert.strictEqual((yield* statusFrom("203.0.113.8", bearer(newToken))).status, 200)
        })
    )

    it.effect("partners' tokens seen here for the first time do not count toward their address's invalid tokens", () =>
      Effect.gen(function*() {
        // More partners than the limit behind one address (a partner's gateway, a proxy), each new to this instance.
        const gateway = "203.0.113.50"
        const tokens: Array<string> = []
        for (let i = 0; i < failureLimit * 2 + 1; i++) tokens.push((yield* givenPartner()).token)
        for (const [i, token] of tokens.entries()) {
          const response = yield* statusFrom(gateway, bearer(token))
          assert.deepStrictEqual([response.status, response.headers["retry-after"]], [200, undefined], `partner ${i}`)
        }
        // Its invalid tokens still count from the first: the limit's guesses, then 429.
        for (let i = 0; i < failureLimit; i++) {
          assert.deepStrictEqual((yield* statusFrom(gateway, bearer(unknownToken(i)))).body, invalid, `guess ${i}`)
        }
        assert.strictEqual((yield* statusFrom(gateway, bearer(unknownToken(failureLimit)))).status, 429)
      }))

    it.effect("an IPv6 client is counted by its /64", () =>
      Effect.gen(function*() {
        for (let i = 0; i < failureLimit; i++) {
          assert.strictEqual((yield* statusFrom(`2001:db8:7:1::${i + 1}`, bearer(unknownToken(i)))).status, 401)
        }
        assert.strictEqual((yield* statusFrom("2001:db8:7:1:ffff::9", bearer(unknownToken(9)))).status, 429)
        assert.strictEqual((yield* statusFrom("2001:db8:7:2::1", bearer(unknownToken(9)))).status, 401)
      }))

    it.effect(
      "unknown tokens, however many, never push a real partner out of the token cache",
      () =>
        Effect.gen(function*() {
          const partners = yield* Partners
          const sql = yield* SqlClient.SqlClient
          // Written by hand, so no change notice empties the cache behind the test's back.
          const token = `pak_cached_${"z".repeat(40)}`
          const [{ id }] = yield* sql<{ id: string }>`
          WITH p AS (INSERT INTO partners (name, slug) VALUES ('Cached', 'cached-partner') RETURNING id),
               e AS (INSERT INTO partner_environments (partner_id, environment) SELECT id, 'live' FROM p RETURNING partner_id)
          INSERT INTO partner_tokens (partner_id, environment, token_hash)
          SELECT partner_id, 'live', ${createHash("sha256").update(token).digest()} FROM e
          RETURNING partner_id::text AS id
        `
          // Found once, then its token is taken out of the database: only the cache knows it now.
          assert.strictEqual(Option.getOrThrow(yield* partners.authenticate(token)).id, Number(id))
          yield* sql`UPDATE partner_tokens SET token_hash = ${
            createHash("sha256").update(`moved-${token}`).digest()
          } WHERE partner_id = ${id}`
          // More unknown tokens than the cache holds (10,000): each a miss.
          const misses = yield* Effect.forEach(
            Array.from({ length: 10_050 }, (_, i) => unknownToken(i)),
            (unknown) => partners.authenticate(unknown),
            { concurrency: 16 }
          )
          assert.isTrue(misses.every(Option.isNone))
          const still = yield* partners.authenticate(token)
          assert.strictEqual(Option.getOrThrow(still).id, Number(id), "the partner is still served from the cache")
        }),
      { timeout: 120_000 }
    )
  }
)
