import { assert, describe, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { BetsApiApp as BetsApiAppWithoutLogs } from "../support/BetsApiApp.ts"
import { betsApiToken, healthyBetsApi } from "../support/BetsApiScripts.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { makeLogCapture } from "../support/LogCapture.ts"
import { bearer, givenPartner, request } from "../support/TestApp.ts"

const logs = makeLogCapture()

/** The whole service with SPORTS_PROVIDER=betsapi, over real HTTP to a fake BetsAPI, its logs captured. */
const BetsApiApp = (options: Parameters<typeof BetsApiAppWithoutLogs>[0] = {}) =>
  BetsApiAppWithoutLogs(options).pipe(Layer.provide(logs.layer))

const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })

layer(BetsApiApp(), live)("BetsAPI provider", (it) => {
  describe("mapping into the contract's shapes", () => {
    it.effect("status and /status name the provider and its capabilities", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const status = yield* get(token, "/sports/status")
        assert.strictEqual(status.body.data.provider, "betsapi")
        assert.includeMembers(status.body.data.capabilities, ["leagues", "upcoming-events", "live-events", "event-odds"])
        const account = yield* get(token, "/status")
        assert.deepStrictEqual(account.body.data.sports_gateway, { configured: true, provider: "betsapi" })
      }))

    it.effect("leagues, with the pager as meta and ids as strings", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const response = yield* get(token, "/sports/leagues?sport_id=1")
        assert.strictEqual(response.status, 200)
        assert.deepStrictEqual(response.body.data, {
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
        const { token } = yield* givenPartner()
        const upcoming = yield* get(token, "/sports/events/upcoming?sport_id=1&league_id=94")
        assert.deepStrictEqual(upcoming.body.data.results, [{
          event_id: "1002",
          home_name: "Arsenal",
          away_name: "Chelsea",
          league_id: "94",
          league_name: "England Premier League",
          starts_at: "2026-11-22T15:00:00.000Z"
        }])
        const fake = yield* FakeUpstream
        const sent = fake.calls.find((call) => call.path === "/v3/events/upcoming")!
        assert.deepInclude(sent.query, { sport_id: "1", league_id: "94", page: "1" })

        const liveList = yield* get(token, "/sports/events/live")
        assert.deepInclude(liveList.body.data.results[0], { event_id: "1001", score: "1-0", minute: 34 })
        const ended = yield* get(token, "/sports/events/ended?day=2026-11-22")
        assert.deepInclude(ended.body.data.results[0], { event_id: "1003", score: "2-1" })
        assert.strictEqual(fake.calls.find((call) => call.path === "/v3/events/ended")!.query.day, "20261122")
        assert.deepStrictEqual(ended.body.data.meta, { page: 1, per_page: 50, total: 1 })
      }))

    it.effect("a live event in detail", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const response = yield* get(token, "/sports/events/live/1001")
        assert.deepStrictEqual(response.body.data, {
          event_id: "1001",
          home_name: "Arsenal",
          away_name: "Chelsea",
          minute: 34,
          score: "1-0",
          status: "live"
        })
      }))

    it.effect("odds: string values become numbers; EVS, '-' and '' are dropped, and an empty market left out", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const prematch = yield* get(token, "/sports/events/1001/odds")
        assert.deepStrictEqual(prematch.body.data, {
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
        const inPlay = yield* get(token, "/sports/events/1001/odds/live")
        assert.deepStrictEqual(inPlay.body.data.markets, [{
          key: "1_1",
          name: "Full Time Result",
          odds: [{ label: "Home", value: 1.833 }, { label: "Draw", value: 3.4 }]
        }])
      }))

    it.effect("lineup (starting players), stats trend (latest values of known stats), result", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const lineup = yield* get(token, "/sports/events/1001/lineup")
        assert.deepStrictEqual(lineup.body.data, { event_id: "1001", home: ["D. Raya", "W. Saliba"], away: ["R. Sánchez"] })
        const stats = yield* get(token, "/sports/events/1001/stats-trend")
        assert.deepStrictEqual(stats.body.data, {
          event_id: "1001",
          attacks_home: 11,
          attacks_away: 4,
          possession_home: 55,
          possession_away: 45,
          shots_on_target_home: 3,
          shots_on_target_away: 1
        })
        const result = yield* get(token, "/sports/events/1003/result")
        assert.deepStrictEqual(result.body.data, { event_id: "1003", home_score: 2, away_score: 1, winner: "home" })
      }))

    it.effect("include_raw=true adds the provider's payload, which never holds the token", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const plain = yield* get(token, "/sports/events/1003/result")
        assert.notProperty(plain.body, "provider_response")
        const raw = yield* get(token, "/sports/events/1003/result?include_raw=true")
        assert.strictEqual(raw.body.provider_response.success, 1)
        assert.strictEqual(raw.body.provider_response.results[0].ss, "2-1")
        assert.notInclude(JSON.stringify(raw.body), betsApiToken)
      }))
  })

  describe("404", () => {
    it.effect("an unknown event, on every event endpoint", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        for (const path of ["/live/777", "/777/odds", "/777/odds/live", "/777/lineup", "/777/stats-trend", "/777/result"]) {
          const response = yield* get(token, `/sports/events${path}`)
          assert.strictEqual(response.status, 404, path)
          assert.deepStrictEqual(response.body, { success: false, message: "Event 777 not found." }, path)
        }
      }))

    it.effect("a result before the final whistle", () =>
      Effect.gen(function*() {
        const { token } = yield* givenPartner()
        const response = yield* get(token, "/sports/events/1001/result")
        assert.strictEqual(response.status, 404)
        assert.strictEqual(response.body.message, "Event 1001 has no final result yet (it is live).")
      }))
  })

  describe("502: every way the provider can fail", () => {
    const expect502 = (path: string, script: Parameters<FakeUpstream["Service"]["script"]>[0], detail: RegExp) =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        const { partner, token } = yield* givenPartner()
        fake.script(script)
        const response = yield* get(token, path)
        fake.reset()
        assert.strictEqual(response.status, 502, JSON.stringify(response.body))
        assert.strictEqual(response.body.success, false)
        assert.match(response.body.message, /^The sports provider could not be queried/)
        assert.match(response.body.message, detail)
        assert.deepStrictEqual(response.body.partner, { id: partner.id, name: partner.name, slug: partner.slug, status: "active" })
        assert.strictEqual(response.body.provider, "betsapi")
        assert.isDefined(response.body.provider_response)
        assert.notInclude(JSON.stringify(response.body), betsApiToken)
        return response.body
      })

    it.effect("an error answer (success 0): the upstream's error in provider_response", () =>
      Effect.gen(function*() {
        const body = yield* expect502("/sports/events/upcoming?sport_id=17", () => ({
          kind: "json",
          body: { success: 0, error: "TOO_MANY_REQUESTS", error_detail: `slow down, ${betsApiToken}` }
        }), /TOO_MANY_REQUESTS/)
        assert.deepStrictEqual(body.provider_response, {
          success: 0,
          error: "TOO_MANY_REQUESTS",
          error_detail: "slow down, [redacted]"
        })
      }))

    it.effect("a refused token", () =>
      expect502("/sports/leagues?sport_id=18", () => ({
        kind: "json",
        body: { success: 0, error: "AUTHORIZE_FAILED", error_detail: "invalid token" }
      }), /AUTHORIZE_FAILED/))

    it.effect("an HTTP 5xx", () =>
      expect502("/sports/leagues?sport_id=13", () => ({ kind: "json", status: 503, body: { success: 0, error: "UNDER_MAINTENANCE" } }), /HTTP 503/))

    it.effect("garbage that is not JSON", () =>
      expect502("/sports/leagues?sport_id=91", () => ({ kind: "text", body: "<html>oops</html>" }), /not JSON/))

    it.effect("a payload that does not decode", () =>
      expect502("/sports/leagues?sport_id=78", () => ({ kind: "json", body: { success: 1, results: "nope" } }), /unexpected shape/))

    it.effect("a hang: the time-out answers, in time", () =>
      Effect.gen(function*() {
        const started = Date.now()
        yield* expect502("/sports/leagues?sport_id=16", () => ({ kind: "hang" }), /did not answer in time/)
        assert.isBelow(Date.now() - started, 2_000)
      }))

    it.effect("a dropped connection", () =>
      expect502("/sports/leagues?sport_id=12", () => ({ kind: "close" }), /could not be reached/))
  })

  it.effect("100 concurrent identical requests reach the provider once, and later ones hit the cache", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const { token } = yield* givenPartner()
      fake.reset()
      // A slow provider, so all 100 arrive while the first call is in flight.
      fake.script((call) => ({ kind: "delay", millis: 300, then: healthyBetsApi(call) }))
      const responses = yield* Effect.all(
        Array.from({ length: 100 }, () => get(token, "/sports/events/1002/odds")),
        { concurrency: "unbounded" }
      )
      for (const response of responses) assert.strictEqual(response.status, 200)
      const again = yield* get(token, "/sports/events/1002/odds")
      assert.strictEqual(again.status, 200)
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
      const { token } = yield* givenPartner()
      fake.reset()
      const first = yield* get(token, "/sports/events/1001/lineup")
      assert.strictEqual(first.status, 200)
      const limited = yield* get(token, "/sports/events/1002/lineup")
      assert.strictEqual(limited.status, 502)
      assert.match(limited.body.message, /hourly quota \(3 calls\)/)
      assert.strictEqual(fake.calls.length, 1)
      const cached = yield* get(token, "/sports/events/1001/lineup")
      assert.strictEqual(cached.status, 200)
    }))
})

layer(BetsApiApp({ token: undefined }), live)("BetsAPI provider without a token", (it) => {
  it.effect("is reported as not configured, and answers 502 without calling out", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const { token } = yield* givenPartner()
      const account = yield* get(token, "/status")
      assert.deepStrictEqual(account.body.data.sports_gateway, { configured: false, provider: "betsapi" })
      const response = yield* get(token, "/sports/leagues")
      assert.strictEqual(response.status, 502)
      assert.match(response.body.message, /not configured/)
      assert.strictEqual(fake.calls.length, 0)
    }))
})

