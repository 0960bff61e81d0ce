/**
 * The sports group's contract, handler by handler, over a provider in memory
 * (no PostgreSQL, no socket, no upstream): the wire shape of a provider's
 * answers, 404 for an unknown event, 502 when the provider fails, and the
 * closing line the service kept (its own record, here in memory). The
 * providers themselves (BetsAPI, the sandbox) are betsapi.test.ts and
 * event-answers.test.ts.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClientRequest, HttpServer } from "effect/http"
import { HttpApiMiddleware, HttpApiTest } from "effect/http-api"
import { PartnerApi } from "../../src/api/Api.ts"
import { NotFound, ProviderUnavailable } from "../../src/api/Errors.ts"
import { PartnerAuth } from "../../src/api/Security.ts"
import type { SportsLeague } from "../../src/domain/Sports.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { SportsHandlers } from "../../src/sports/http.ts"
import { EventNotFound, SportsProvider, SportsProviderError } from "../../src/sports/SportsProvider.ts"
import { SportsCatalog } from "../../src/sports/catalog/SportsCatalog.ts"
import { SportsCatalogConfig } from "../../src/sports/catalog/SportsCatalogConfig.ts"
import { SportsConfig } from "../../src/sports/SportsConfig.ts"
import { ClosingLinesRepo } from "../../src/sports/stream/ClosingLinesRepo.ts"
import { testCatalogConfig, testSportsConfig } from "../support/TestApp.ts"
import { live } from "../support/live.ts"
import { AuthAsAcme } from "../support/AuthAsAcme.ts"
import { SpecUpstreams } from "../support/SpecUpstreams.ts"

const league: SportsLeague = { id: "155", name: "Brazil Serie A", sportId: 1, countryCode: "br" }
const fetched = <A>(value: A) =>
  Effect.succeed({ value, raw: { success: 1 }, storedAt: Date.now(), origin: "upstream" as const })
const unknown = (eventId: string) => Effect.fail(new EventNotFound({ eventId, message: `Event ${eventId} not found.` }))
const down = () =>
  Effect.fail(new SportsProviderError({ reason: "Timeout", message: "The sports provider did not answer in time." }))

/**
 * Event 1003 ended 2-1 (the service has no record of it); 1004 ended 2-2, a correction of 2-1 the service recorded;
 * no other event exists; sport 91's lists fail upstream.
 */
const MemoryProvider = Layer.succeed(
  SportsProvider,
  SportsProvider.of({
    name: "memory",
    configured: true,
    capabilities: ["leagues", "event-result"],
    sportIds: undefined,
    upcomingByDay: false,
    leagues: (query) =>
      query.sportId === 91 ? down() : fetched({ results: [league], page: query.page, perPage: 50, total: 1 }),
    upcoming: down,
    live: down,
    ended: down,
    event: unknown,
    odds: unknown,
    liveOdds: unknown,
    lineup: unknown,
    statsTrend: unknown,
    result: (eventId) =>
      eventId === "1003"
        ? fetched({ eventId, homeScore: 2, awayScore: 1, winner: "home" as const })
        : eventId === "1004"
        ? fetched({
          eventId,
          homeScore: 2,
          awayScore: 2,
          winner: "draw" as const,
          settlement: {
            finalAt: new Date("2026-11-22T20:53:12.000Z"),
            correctedAt: new Date("2026-11-23T09:10:00.000Z"),
            previous: { homeScore: 2, awayScore: 1, winner: "home" as const }
          }
        })
        : unknown(eventId)
  })
)

/** Both environments over the memory provider (the catalog is unused by this group). */
const Upstreams = SpecUpstreams.pipe(
  Layer.provide(SportsCatalog.layerMemory),
  Layer.provideMerge(MemoryProvider),
  Layer.provide(Layer.succeed(SportsCatalogConfig, testCatalogConfig())),
  Layer.provide(Layer.succeed(SportsConfig, testSportsConfig()))
)

const Handlers = SportsHandlers.pipe(
  Layer.provideMerge(Layer.mergeAll(AuthAsAcme, Upstreams, RequestValidationLive, ClosingLinesRepo.layerMemory)),
  Layer.provideMerge(HttpServer.layerServices)
)

const client = HttpApiTest.groups(PartnerApi, ["sports"]).pipe(
  Effect.provide(
    HttpApiMiddleware.layerClient(
      PartnerAuth,
      ({ next, request }) => next(HttpClientRequest.bearerToken(request, "pak_acme"))
    )
  )
)

layer(Handlers, live)("the sports group's contract (in memory)", (it) => {
  it.effect("leagues: the provider's entries in the contract's fields, the raw payload only when asked", () =>
    Effect.gen(function*() {
      const api = yield* client
      const answer = yield* api.sports.leagues({ query: {} })
      assert.deepStrictEqual(answer.data, {
        provider: "memory",
        results: [{ league_id: "155", league_name: "Brazil Serie A", country_code: "br" }],
        meta: { page: 1, per_page: 50, total: 1 }
      })
      assert.isUndefined(answer.provider_response)
      const raw = yield* api.sports.leagues({ query: { include_raw: "1" } })
      assert.deepStrictEqual(raw.provider_response, { success: 1 })
    }))

  it.effect("a result: the score and the winner, final, with the service's record of it (its correction) where kept", () =>
    Effect.gen(function*() {
      const api = yield* client
      const answer = yield* api.sports.result({ params: { eventId: "1003" }, query: {} })
      assert.deepStrictEqual(answer.data, {
        event_id: "1003",
        home_score: 2,
        away_score: 1,
        winner: "home",
        status: "final",
        final_at: null,
        corrected_at: null,
        previous: null
      })
      const corrected = yield* api.sports.result({ params: { eventId: "1004" }, query: {} })
      assert.deepStrictEqual(corrected.data, {
        event_id: "1004",
        home_score: 2,
        away_score: 2,
        winner: "draw",
        status: "final",
        final_at: "2026-11-22T20:53:12.000Z",
        corrected_at: "2026-11-23T09:10:00.000Z",
        previous: { home_score: 2, away_score: 1, winner: "home" }
      })
    }))

  it.effect("an unknown event is a 404 on every event endpoint", () =>
    Effect.gen(function*() {
      const api = yield* client
      const params = { eventId: "999" }
      const calls: ReadonlyArray<Effect.Effect<unknown, unknown>> = [
        api.sports.liveEvent({ params, query: {} }),
        api.sports.odds({ params, query: {} }),
        api.sports.liveOdds({ params, query: {} }),
        api.sports.lineup({ params, query: {} }),
        api.sports.statsTrend({ params, query: {} }),
        api.sports.result({ params, query: {} })
      ]
      for (const call of calls) {
        const error = yield* Effect.flip(call)
        assert.instanceOf(error, NotFound)
        assert.strictEqual((error as NotFound).message, "Event 999 not found.")
      }
    }))

  it.effect("a closing line: the odds answers' markets, when and where it closed; none kept is a 404 that says why", () =>
    Effect.gen(function*() {
      const closings = yield* ClosingLinesRepo
      const markets = [{ key: "1_1", name: "Full Time Result", odds: [{ label: "1", value: 2.1 }] }]
      yield* closings.keep("memory", [{
        eventId: "1003",
        sportId: 1,
        leagueId: "155",
        source: "kick_off",
        closedAt: Date.parse("2026-11-22T19:00:00.000Z"),
        quotedAt: Date.parse("2026-11-22T18:59:12.000Z"),
        markets
      }])
      yield* closings.keep("another", [{
        eventId: "1004",
        sportId: 1,
        leagueId: "155",
        source: "provider",
        closedAt: 0,
        quotedAt: 0,
        markets
      }])
      const api = yield* client
      // Asked with leading zeros, as the provider endpoints are, it is the same event.
      const answer = yield* api.sports.closingOdds({ params: { eventId: "01003" }, query: {} })
      assert.deepStrictEqual(answer.data, {
        event_id: "01003",
        markets,
        closed_at: new Date("2026-11-22T19:00:00.000Z"),
        source: "kick_off",
        quoted_at: new Date("2026-11-22T18:59:12.000Z")
      })
      for (const eventId of ["999", "1004"]) {
        const error = yield* Effect.flip(api.sports.closingOdds({ params: { eventId }, query: {} }))
        assert.instanceOf(error, NotFound, `${eventId}: another provider's line is not this provider's`)
        assert.strictEqual(
          (error as NotFound).message,
          `No closing line is kept for event ${eventId}: it has not gone live, the provider had no pre-match odds ` +
            "of it, or it closed more than 30 days ago."
        )
      }
    }))

  it.effect("a provider that fails is a 502 naming the provider and why", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip((yield* client).sports.leagues({ query: { sport_id: 91 } }))
      assert.instanceOf(error, ProviderUnavailable)
      assert.match((error as ProviderUnavailable).message, /did not answer in time/)
      assert.strictEqual((error as ProviderUnavailable).provider, "memory")
    }))
})
