/**
 * The live change stream over real HTTP and PostgreSQL: a refresh and an odds read that change a score, a
 * start time and an odd reach a matching stream as exactly those events, in log order, and a stream with
 * other filters not at all; bad input is the contract's 422; a test token streams the sandbox provider's changes only.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { refresh } from "../../support/CatalogApp.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { eventually, live } from "../../support/live.ts"
import {
  changesOf,
  logged,
  logPositions,
  marketsAt,
  nextHeartbeat,
  openStream,
  StreamApp,
  streamProviderData,
  until
} from "../../support/StreamApp.ts"
import { givenPartner, request } from "../../support/TestApp.ts"
import { partnerClient } from "../../support/PartnerClient.ts"

const providerData = streamProviderData()
const [odd, score, startTime] = ["70001", "80002", "70002"]

layer(StreamApp(providerData), live)("the live change stream", (it) => {
  it.effect("a refresh changing a score and a start time, and an odds read changing an odd: exactly those events, in order, to the matching streams only", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Acme" })
      const baseUrl = yield* baseUrlOf
      providerData.odds.set(odd, marketsAt(2.5))
      // The data as the log first knows it (a provider's first refresh sends nothing), and the odd's markets opened.
      yield* refresh(token)
      yield* (yield* partnerClient(token)).sports.odds({ params: { eventId: odd }, query: {} })
      yield* eventually(logged("betsapi", "odds", odd), (n) => n === 3, "the odd's markets opened")
      const [start] = (yield* logPositions("betsapi")).slice(-1)

      const soccer = yield* openStream(baseUrl, token, { query: "sport_id=1&league_id=900" })
      const oddsOnly = yield* openStream(baseUrl, token, { query: `event_id=${odd}&kinds=odds`, partnerKey: true })
      const basketball = yield* openStream(baseUrl, token, { query: "sport_id=Basketball" })
      for (const stream of [soccer, oddsOnly, basketball]) {
        yield* until(stream, (s) => s.events.length === 1, "connected")
        assert.strictEqual(stream.status, 200)
        assert.strictEqual(stream.events[0].event, "connected")
        assert.strictEqual(stream.events[0].id, start)
      }
      assert.deepStrictEqual(soccer.events[0].data.filters, {
        sport_id: [1],
        league_id: ["900"],
        event_id: null,
        kinds: null
      })

      providerData.events = providerData.events.map((event) =>
        event.id === score
          ? { ...event, ss: "3-0" }
          : event.id === startTime
          ? { ...event, startsAt: event.startsAt + 3_600_000 }
          : event
      )
      providerData.odds.set(odd, { ...marketsAt(2.5), "1_1": { home: 2.4, draw: 3.2, away: 3.6 } })
      yield* refresh(token)
      yield* (yield* partnerClient(token)).sports.odds({ params: { eventId: odd }, query: {} })

      yield* until(soccer, (s) => changesOf(s).length >= 3, "the three changes")
      const changes = changesOf(soccer)
      assert.deepStrictEqual(
        changes.map((change) => [change.event, change.data.event_id]).sort(),
        [["event", startTime], ["odds", odd], ["score", score]].sort()
      )
      // In the log's order, which is the order of the stream: the refresh's two, then the odds read's.
      assert.deepStrictEqual(changes.map((change) => change.id), yield* logPositions("betsapi", Number(start)))
      assert.deepStrictEqual(changes.slice(-1).map((change) => change.event), ["odds"])
      const [event, scored, priced] = [startTime, score, odd].map((id) =>
        changes.find((change) => change.data.event_id === id)!.data
      )
      assert.deepInclude(event, {
        changed: ["starts_at"],
        status: "scheduled",
        reason: null,
        final_at: null,
        active: true,
        sport_id: 1,
        league_id: "900"
      })
      assert.strictEqual(
        event.starts_at,
        new Date(providerData.events.find((e) => e.id === startTime)!.startsAt).toISOString()
      )
      assert.deepInclude(scored, { score: "3-0", minute: 40, status: "live" })
      assert.deepInclude(priced, {
        market_key: "1_1",
        changed: "prices",
        suspended: false,
        reason: null,
        in_play: false
      })
      assert.deepStrictEqual(priced.odds, [{ label: "Home", value: 2.4 }, { label: "Draw", value: 3.2 }, {
        label: "Away",
        value: 3.6
      }])
      for (const change of [event, scored, priced]) {
        // The provider's time and the service's, neither in the future.
        assert.isAtMost(Date.parse(change.updated_at), Date.parse(change.seen_at))
        assert.isAtMost(Date.parse(change.seen_at), Date.now())
      }

      yield* until(oddsOnly, (s) => changesOf(s).length >= 1, "the odd")
      // A heartbeat after them on each other stream: everything sent before it has arrived.
      yield* nextHeartbeat(oddsOnly)
      yield* nextHeartbeat(basketball)
      assert.deepStrictEqual(changesOf(oddsOnly).map((change) => [change.event, change.data.market_key]), [[
        "odds",
        "1_1"
      ]])
      assert.deepStrictEqual(changesOf(basketball), [])
    }))

  it.effect("bad filters and a Last-Event-ID the stream never sent are the contract's 422, naming each; no token is its 401", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Typo" })
      const baseUrl = yield* baseUrlOf
      const refused = yield* openStream(baseUrl, token, { query: "kinds=goals&sport_id=0x10" })
      assert.strictEqual(refused.status, 422)
      assert.strictEqual(refused.error.message, "The given data was invalid.")
      assert.deepStrictEqual(refused.error.errors, {
        kinds: ["The selected kinds is invalid. Use event, score, odds, result or closing."],
        sport_id: ["The sport id field must be a sport id (like 1) or a sport name (like Soccer)."]
      })
      const tooMany = yield* openStream(baseUrl, token, {
        query: Array.from({ length: 101 }, (_, i) => `event_id=${i}`).join("&")
      })
      assert.deepStrictEqual(tooMany.error.errors, { event_id: ["The event id field may list at most 100 values."] })
      const badId = yield* openStream(baseUrl, token, { lastEventId: "abc" })
      assert.strictEqual(badId.status, 422)
      assert.deepStrictEqual(Object.keys(badId.error.errors), ["Last-Event-ID"])
      const anonymous = yield* request("GET", "/api/partner/v1/sports/stream")
      assert.strictEqual(anonymous.status, 401)
      assert.deepStrictEqual(anonymous.body, { success: false, message: "API key do parceiro nao informada." })
    }))

  it.effect("a test token streams the sandbox provider, a live token the live one: never each other's changes", () =>
    Effect.gen(function*() {
      const created = yield* givenPartner({ name: "Both" })
      const baseUrl = yield* baseUrlOf
      const liveStream = yield* openStream(baseUrl, created.token)
      const testStream = yield* openStream(baseUrl, created.test.token)
      yield* until(testStream, (s) => s.events.length === 1, "connected")
      assert.strictEqual(testStream.events[0].data.environment, "test")

      // A sandbox event's odds, read with the test token, open its markets in the sandbox provider's changes only.
      const testClient = yield* partnerClient(created.test.token)
      const [sandboxEvent] =
        (yield* testClient.catalog.prematch({ query: { per_page: 1, has_odds: true } })).data.results
      yield* testClient.sports.odds({ params: { eventId: sandboxEvent.event_id }, query: {} })
      // A live change: a score, refreshed with the live token.
      providerData.events = providerData.events.map((event) => (event.id === "80004" ? { ...event, ss: "5-5" } : event))
      yield* refresh(created.token)

      yield* until(testStream, (s) => changesOf(s).some((change) => change.event === "odds"), "the sandbox odds")
      yield* until(liveStream, (s) => changesOf(s).some((change) => change.data.event_id === "80004"), "the live score")
      yield* nextHeartbeat(liveStream)
      yield* nextHeartbeat(testStream)
      const liveIds = new Set(providerData.events.map((event) => event.id))
      assert.isTrue(changesOf(liveStream).every((change) => liveIds.has(change.data.event_id)))
      assert.isTrue(changesOf(testStream).every((change) => !liveIds.has(change.data.event_id)))
      assert.isTrue(changesOf(testStream).some((change) => change.data.event_id === sandboxEvent.event_id))
    }))
})
