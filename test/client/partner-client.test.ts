/**
 * The typed partner client (src/client) against a running service, used as
 * the partner guide shows: over fetch, from the service's URL, with either scheme.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { FetchHttpClient, HttpServer } from "effect/http"
import { makePartnerClient, Unauthorized, ValidationFailed } from "../../src/client/PartnerClient.ts"
import { live } from "../support/live.ts"
import { givenPartner, givenSyncedCatalog, TestApp } from "../support/TestApp.ts"

/** The running service's URL, as a partner would configure it. */
const serviceUrl = Effect.map(
  Effect.service(HttpServer.HttpServer),
  (server) => HttpServer.formatAddress(server.address)
)

layer(TestApp(), live)("the typed partner client", (it) => {
  it.effect("reaches the service by its URL with either scheme and answers decoded envelopes", () =>
    Effect.gen(function*() {
      const { partner, token } = yield* givenPartner({ name: "Client Co" })
      const baseUrl = yield* serviceUrl
      for (const scheme of ["bearer", "partnerKey"] as const) {
        const client = yield* makePartnerClient({ baseUrl, token, scheme })
        const status = yield* client.account.status()
        assert.deepStrictEqual(status.partner, {
          id: partner.id,
          name: "Client Co",
          slug: partner.slug,
          status: "active",
          environment: "live"
        }, scheme)
        assert.strictEqual(status.data.sports_gateway.provider, "sandbox", scheme)
      }
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("sends paging values as the integers the contract types them as", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const { token } = yield* givenPartner()
      const client = yield* makePartnerClient({ baseUrl: yield* serviceUrl, token })
      const firstTwo = yield* client.casino.games({ query: { per_page: 2, page: 1 } })
      assert.deepStrictEqual([firstTwo.data.games.length, firstTwo.data.meta.page, firstTwo.data.meta.per_page], [
        2,
        1,
        2
      ])
      const capped = yield* client.casino.games({ query: { per_page: 500 } })
      assert.strictEqual(capped.data.meta.per_page, 200, "a per_page above 200 means 200")
      const feed = yield* client.catalog.prematch({ query: { sport_id: "1", page: 1, per_page: 10 } })
      assert.deepStrictEqual(feed.data.meta.per_page, 10)
    }).pipe(Effect.provide(FetchHttpClient.layer)))

  it.effect("the contract's error answers are typed failures", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const baseUrl = yield* serviceUrl
      const stranger = yield* makePartnerClient({ baseUrl, token: "pak_not-a-partner" })
      const refused = yield* Effect.flip(stranger.account.status())
      assert.instanceOf(refused, Unauthorized)
      assert.strictEqual(refused.message, "Parceiro invalido ou inativo.")

      const client = yield* makePartnerClient({ baseUrl, token, scheme: "partnerKey" })
      // What the contract's schemas can check is refused before anything is sent...
      const unsent = yield* Effect.flip(client.casino.games({ query: { page: 0 } }))
      assert.isTrue(Schema.isSchemaError(unsent))
      // ...and what only the service can judge comes back as the typed 422.
      const invalid = yield* Effect.flip(
        client.catalog.prematch({ query: { date_from: "20261203", date_to: "20261201" } })
      )
      assert.instanceOf(invalid, ValidationFailed)
      assert.deepStrictEqual((invalid as ValidationFailed).errors, {
        date_to: ["The date to field must be a day on or after date from."]
      })
    }).pipe(Effect.provide(FetchHttpClient.layer)))
})
