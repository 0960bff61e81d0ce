import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer, Schema } from "effect"
import { NotFound, ProviderUnavailable } from "../../src/client/PartnerClient.ts"
import { BetsApiApp as BetsApiAppWithoutLogs } from "../support/BetsApiApp.ts"
import { betsApiToken, healthyBetsApi } from "../support/BetsApiScripts.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { makeLogCapture } from "../support/LogCapture.ts"
import { failsWith, partnerClient } from "../support/PartnerClient.ts"
import { bearer, dataAs, errorBody, givenPartner, request } from "../support/TestApp.ts"

const logs = makeLogCapture()

/** The whole service with SPORTS_PROVIDER=betsapi, over real HTTP to a fake BetsAPI, its logs captured. */
const BetsApiApp = (options: Parameters<typeof BetsApiAppWithoutLogs>[0] = {}) =>
  BetsApiAppWithoutLogs(options).pipe(Layer.provide(logs.layer))

/** A GET over the wire, for query text the typed client does not send and for what only the wire shows. */
const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })

/** The givenPartner's typed client. */
const givenClient = Effect.flatMap(
  givenPartner(),
  (given) => Effect.map(partnerClient(given.token), (client) => ({ ...given, client }))
)

type Client = Effect.Success<typeof givenClient>["client"]

/** The ended list's data, as the wire carries it. */
const EndedData = Schema.Struct({
  results: Schema.Array(
    Schema.Struct({ event_id: Schema.String, score: Schema.String, status: Schema.String, reason: Schema.Null })
  )
})

const event = (eventId: string) => ({ params: { eventId }, query: {} })

/** What a payload of `include_raw=true` is read for here. */
const RawResult = Schema.Struct({ success: Schema.Number, results: Schema.Array(Schema.Struct({ ss: Schema.String })) })

layer(BetsApiApp(), live)("BetsAPI provider", (it) => {
  describe("mapping into the contract's shapes", () => {
    it.effect("status and /status name the provider and its capabilities", () =>
      Effect.gen(function*() {
        const { client } = yield* givenClient
        const status = yield* client.sports.status()
        assert.strictEqual(status.data.provider, "betsapi")
        assert.includeMembers([...status.data.capabilities], [
          "leagues",
          "upcoming-events",
          "live-events",
          "event-odds"
        ])
        const account = yield* client.account.status()
        assert.deepStrictEqual(account.data.sports_gateway, { configured: true, provider: "betsapi" })
      }))

    it.effect("leagues, with the pager as meta and ids as strings", () =>
      Effect.gen(function*() {
        const { client } = yield* givenClient
        const response = yield* client.sports.leagues({ query: { sport_id: 1 } })
        assert.deepStrictEqual(response.data, {
          provider: "betsapi",
          results: [
            { league_id: "94", league_name: "England Premier League", country_code: "gb" },
            { league_id: "123", league_name: "Brazil Serie A", country_code: "br" },
            { league_id: "3", league_name: "UEFA Champions League", country_code: null }
          ],
          meta: { page: 1, per_page: 100, total: 3 }
        })
      }))

    it.effect("upcoming, live and ended events; unix times become ISO 8601 UTC", () =>
      Effect.gen(function*() {
        const { client, token } = yield* givenClient
        const upcoming = yield* client.sports.upcoming({ query: { sport_id: 1, league_id: "94" } })
        assert.deepStrictEqual(upcoming.data.results, [{
          event_id: "1002",
          home_name: "Arsenal",
          away_name: "Chelsea",
          league_id: "94",
          league_name: "England Premier League",
          starts_at: "2026-11-22T15:00:00.000Z",
          status: "scheduled",
          reason: null
        }])
        const fake = yield* FakeUpstream
        const sent = fake.calls.find((call) => call.path === "/v3/events/upcoming")!
        assert.deepInclude(sent.query, { sport_id: "1", league_id: "94", page: "1" })

        const liveList = yield* client.sports.live({ query: {} })
        assert.deepInclude(liveList.data.results[0], { event_id: "1001", score: "1-0", minute: 34 })
        // The day as YYYY-MM-DD, which the typed client does not send, goes to the provider as YYYYMMDD.
        const endedOnTheWire = yield* get(token, "/sports/events/ended?day=2026-11-22")
        assert.deepInclude(dataAs(EndedData)(endedOnTheWire).results[0], {
          event_id: "1003",
          score: "2-1",
          status: "final",
          reason: null
        })
        assert.strictEqual(fake.calls.find((call) => call.path === "/v3/events/ended")!.query.day, "20261122")
        const ended = yield* client.sports.ended({ query: { day: "20261122" } })
        assert.deepInclude(ended.data.results[0], { event_id: "1003", score: "2-1" })
        assert.deepStrictEqual(ended.data.meta, { page: 1, per_page: 50, total: 1 })
      }))

    it.effect("a live event in detail", () =>
      Effect.gen(function*() {
        const { client } = yield* givenClient
        const response = yield* client.sports.liveEvent(event("1001"))
        assert.deepStrictEqual(response.data, {
          event_id: "1001",
          home_name: "Arsenal",
          away_name: "Chelsea",
          minute: 34,
          score: "1-0",
          status: "live",
          reason: null,
          final_at: null
        })
      }))

    it.effect("odds: string values become numbers; EVS, '-' and '' are dropped, and an empty market left out", () =>
      Effect.gen(function*() {
        const { client } = yield* givenClient
        const prematch = yield* client.sports.odds(event("1001"))
        assert.deepStrictEqual(prematch.data, {
          event_id: "1001",
          markets: [
            {
              key: "1_1",
              name: "Full Time Result",
              odds: [{ label: "Home", value: 2.1 }, { label: "Draw", value: 3.25 }, { label: "Away", value: 3.6 }]
            },
            {
              key: "1_2",
              name: "Asian Handicap",
              odds: [{ label: "Home -0.5", value: 1.95 }, { label: "Away +0.5", value: 1.9 }]
            }
          ]
        })
        const inPlay = yield* client.sports.liveOdds(event("1001"))
        assert.deepStrictEqual(inPlay.data.markets, [{
          key: "1_1",
          name: "Full Time Result",
          odds: [{ label: "Home", value: 1.833 }, { label: "Draw", value: 3.4 }]
        }])
      }))

    it.effect("lineup (starting players), stats trend (latest values of known stats), result", () =>
      Effect.gen(function*() {
        const { client } = yield* givenClient
        const lineup = yield* client.sports.lineup(event("1001"))
        assert.deepStrictEqual(lineup.data, { event_id: "1001", home: ["D. Raya", "W. Saliba"], away: ["R. Sánchez"] })
        const stats = yield* client.sports.statsTrend(event("1001"))
        assert.deepStrictEqual(stats.data, {
          event_id: "1001",
          attacks_home: 11,
          attacks_away: 4,
          possession_home: 55,
          possession_away: 45,
          shots_on_target_home: 3,
          shots_on_target_away: 1
        })
        const result = yield* client.sports.result(event("1003"))
        const { final_at, ...rest } = result.data
        assert.deepStrictEqual(rest, {
          event_id: "1003",
          home_score: 2,
          away_score: 1,
          winner: "home",
          status: "final",
          corrected_at: null,
          previous: null
        })
        assert.isAtMost(Date.parse(final_at!), Date.now(), "first seen final by this read, recorded")
      }))

    it.effect("include_raw=true adds the provider's payload, which never holds the token", () =>
      Effect.gen(function*() {
        const { client, token } = yield* givenClient
        const plain = yield* client.sports.result(event("1003"))
        assert.notProperty(plain, "provider_response")
        const raw = yield* client.sports.result({ params: { eventId: "1003" }, query: { include_raw: "true" } })
        const payload = Schema.decodeUnknownSync(RawResult)(raw.provider_response)
        assert.strictEqual(payload.success, 1)
        assert.strictEqual(payload.results[0].ss, "2-1")
        // Never in the bytes sent, whatever the client's schema keeps.
        const onTheWire = yield* get(token, "/sports/events/1003/result?include_raw=true")
        assert.strictEqual(onTheWire.status, 200)
        assert.notInclude(JSON.stringify(onTheWire.body), betsApiToken)
      }))
  })

  describe("404", () => {
    it.effect("an unknown event, on every event endpoint", () =>
      Effect.gen(function*() {
        const { client } = yield* givenClient
        for (
          const [path, call] of [
            ["/live/777", client.sports.liveEvent(event("777"))],
            ["/777/odds", client.sports.odds(event("777"))],
            ["/777/odds/live", client.sports.liveOdds(event("777"))],
            ["/777/lineup", client.sports.lineup(event("777"))],
            ["/777/stats-trend", client.sports.statsTrend(event("777"))],
            ["/777/result", client.sports.result(event("777"))]
          ] as const
        ) {
          const refused = yield* failsWith(NotFound)(call as Effect.Effect<unknown, unknown>) // the contract's 404
          assert.deepStrictEqual([refused.success, refused.message], [false, "Event 777 not found."], path)
        }
      }))

    it.effect("a result before the final whistle", () =>
      Effect.gen(function*() {
        const { client } = yield* givenClient
        const refused = yield* failsWith(NotFound)(client.sports.result(event("1001")))
        assert.strictEqual(refused.message, "Event 1001 has no final result yet (it is live).")
      }))
  })

  describe("502: every way the provider can fail", () => {
    /** The typed 502 of `call` while the fake provider answers as `script` says. */
    const expect502 = (
      call: (client: Client) => Effect.Effect<unknown, unknown>,
      script: Parameters<FakeUpstream["Service"]["script"]>[0],
      detail: RegExp
    ) =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        const { client, partner } = yield* givenClient
        fake.script(script)
        const refused = yield* failsWith(ProviderUnavailable)(call(client)) // the contract's 502
        fake.reset()
        assert.strictEqual(refused.success, false)
        assert.match(refused.message, /^The sports provider could not be queried/)
        assert.match(refused.message, detail)
        assert.deepStrictEqual(refused.partner, {
          id: partner.id,
          name: partner.name,
          slug: partner.slug,
          status: "active",
          environment: "live"
        })
        assert.strictEqual(refused.provider, "betsapi")
        assert.isDefined(refused.provider_response)
        assert.notInclude(JSON.stringify(refused), betsApiToken)
        return refused
      })

    const leagues = (sport_id: number) => (client: Client) => client.sports.leagues({ query: { sport_id } })

    it.effect("an error answer (success 0): the upstream's error in provider_response", () =>
      Effect.gen(function*() {
        const script = () => ({
          kind: "json" as const,
          body: { success: 0, error: "TOO_MANY_REQUESTS", error_detail: `slow down, ${betsApiToken}` }
        })
        const refused = yield* expect502(
          (client) => client.sports.upcoming({ query: { sport_id: 17 } }),
          script,
          /TOO_MANY_REQUESTS/
        )
        assert.deepStrictEqual(refused.provider_response, {
          success: 0,
          error: "TOO_MANY_REQUESTS",
          error_detail: "slow down, [redacted]"
        })
        // The token is in no byte of the answer either, whatever the client's schema keeps.
        const fake = yield* FakeUpstream
        const { token } = yield* givenPartner()
        fake.script(script)
        const response = yield* get(token, "/sports/events/upcoming?sport_id=17")
        fake.reset()
        assert.strictEqual(response.status, 502)
        assert.match(errorBody(response).message, /TOO_MANY_REQUESTS/)
        assert.notInclude(JSON.stringify(response.body), betsApiToken)
      }))

    it.effect("a refused token", () =>
      expect502(leagues(18), () => ({
        kind: "json",
        body: { success: 0, error: "AUTHORIZE_FAILED", error_detail: "invalid token" }
      }), /AUTHORIZE_FAILED/))

    it.effect("an HTTP 5xx", () =>
      expect502(
        leagues(13),
        () => ({ kind: "json", status: 503, body: { success: 0, error: "UNDER_MAINTENANCE" } }),
        /HTTP 503/
      ))

    it.effect("garbage that is not JSON", () =>
      expect502(leagues(91), () => ({ kind: "text", body: "<html>oops</html>" }), /not JSON/))

    it.effect("a payload that does not decode", () =>
      expect502(leagues(78), () => ({ kind: "json", body: { success: 1, results: "nope" } }), /unexpected shape/))

    it.effect("a hang: the time-out answers, in time", () =>
      Effect.gen(function*() {
        const started = Date.now()
        yield* expect502(leagues(16), () => ({ kind: "hang" }), /did not answer in time/)
        // The time-out ended it, not the hang: far below the test's own limit, whatever the machine's load.
        assert.isBelow(Date.now() - started, 10_000)
      }))

    it.effect("a dropped connection", () => expect502(leagues(12), () => ({ kind: "close" }), /could not be reached/))
  })

  it.effect("100 concurrent identical requests reach the provider once, and later ones hit the cache", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const { client } = yield* givenClient
      fake.reset()
      // A slow provider, so the requests arrive while the first call is in flight (one arriving after it finds the
      // cache); well inside the app's 400 ms time-out, so a busy machine does not turn the wait into a time-out.
      fake.script((call) => ({ kind: "delay", millis: 100, answer: healthyBetsApi(call) }))
      const responses = yield* Effect.all(
        Array.from({ length: 100 }, () => client.sports.odds(event("1002"))),
        { concurrency: "unbounded" }
      )
      for (const response of responses) assert.strictEqual(response.data.event_id, "1002")
      const again = yield* client.sports.odds(event("1002"))
      assert.strictEqual(again.data.event_id, "1002")
      assert.strictEqual(fake.calls.filter((call) => call.path === "/v2/event/odds").length, 1)
      fake.reset()
    }))

  it.effect("the token appears in no log line", () =>
    Effect.sync(() => {
      assert.isAbove(logs.entries.length, 0)
      assert.notInclude(JSON.stringify(logs.entries), betsApiToken)
    }))
})

layer(BetsApiApp({ rateLimitPerHour: 3 }), live)("BetsAPI provider under an hourly limit", (it) => {
  it.effect("calls beyond the limit are refused here, before the provider sees them; cached answers still flow", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const { client } = yield* givenClient
      fake.reset()
      const first = yield* client.sports.lineup(event("1001"))
      assert.strictEqual(first.data.event_id, "1001")
      const limited = yield* failsWith(ProviderUnavailable)(client.sports.lineup(event("1002"))) // a 502
      assert.match(limited.message, /hourly quota \(3 calls\)/)
      assert.strictEqual(fake.calls.length, 1)
      const cached = yield* client.sports.lineup(event("1001"))
      assert.deepStrictEqual(cached.data, first.data)
    }))
})

layer(BetsApiApp({ token: undefined }), live)("BetsAPI provider without a token", (it) => {
  it.effect("is reported as not configured, and answers 502 without calling out", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const { client } = yield* givenClient
      const account = yield* client.account.status()
      assert.deepStrictEqual(account.data.sports_gateway, { configured: false, provider: "betsapi" })
      const refused = yield* failsWith(ProviderUnavailable)(client.sports.leagues({ query: {} })) // a 502
      assert.match(refused.message, /not configured/)
      assert.strictEqual(fake.calls.length, 0)
    }))
})
