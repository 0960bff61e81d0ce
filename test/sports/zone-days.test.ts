/**
 * `timezone` on the provider's day lists (upcoming, ended) over real HTTP: a zone's day is read from the UTC days it
 * overlaps (the provider lists by UTC day), every page of each, cut by kick-off time and paged again with its exact
 * total; São Paulo's day runs past midnight UTC, Tokyo's begins the UTC day before. On a fake BetsAPI (whose calls
 * are recorded) and on the sandbox. Without `timezone`, or in a zone at UTC+0, the provider's own pages as before.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { fixtureById } from "../../src/integrations/sandbox/SandboxFixtures.ts"
import { BetsApiApp } from "../support/BetsApiApp.ts"
import { betsApiToken, event } from "../support/BetsApiScripts.ts"
import { FakeUpstream, type RecordedCall, type Script } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { bearer, dataAs, errorBody, givenPartner, request, TestApp } from "../support/TestApp.ts"

const get = (token: string, path: string) => request("GET", `/api/partner/v1${path}`, { headers: bearer(token) })

const Listed = Schema.Struct({
  results: Schema.Array(Schema.Struct({ event_id: Schema.String, starts_at: Schema.optional(Schema.String) })),
  meta: Schema.Struct({ page: Schema.Number, per_page: Schema.Number, total: Schema.Number })
})
const listed = (response: { readonly body: unknown }) => dataAs(Listed)(response)
const idsOf = (response: { readonly body: unknown }) => listed(response).results.map((entry) => entry.event_id)

/** The fake's events by the UTC day BetsAPI lists them on: around midnight UTC on 22 November 2026. */
const byDay: Record<string, ReadonlyArray<readonly [id: string, kickOff: string]>> = {
  "20261121": [["5001", "2026-11-21T14:00:00Z"], ["5002", "2026-11-21T16:00:00Z"]],
  "20261122": [["5003", "2026-11-22T02:00:00Z"], ["5004", "2026-11-22T12:00:00Z"], ["5005", "2026-11-22T23:30:00Z"]],
  "20261123": [["5006", "2026-11-23T01:00:00Z"], ["5007", "2026-11-23T04:00:00Z"]]
}
const perPage = 2

/** BetsAPI's upcoming and ended lists of a day, two events a page; every other call as the healthy fake answers. */
const dayLists = (fallback: Script): Script => (call: RecordedCall) => {
  const ended = call.path === "/v3/events/ended"
  if ((call.path !== "/v3/events/upcoming" && !ended) || call.query.token !== betsApiToken) return fallback(call)
  const events = byDay[call.query.day ?? ""] ?? []
  const page = Number(call.query.page ?? 1)
  const results = events.slice((page - 1) * perPage, page * perPage).map(([id, kickOff]) =>
    event(id, ended ? "3" : "0", {
      time: String(Date.parse(kickOff) / 1000),
      ...(ended ? { ss: "1-0" } : {})
    })
  )
  return { kind: "json", body: { success: 1, pager: { page, per_page: perPage, total: events.length }, results } }
}

/** The days (and pages) the fake was asked of `path`, in order. */
const asked = (fake: FakeUpstream["Service"], path: string) =>
  fake.calls.filter((call) => call.path === path).map((call) => `${call.query.day}/${call.query.page}`).sort()

layer(BetsApiApp(), live)("a day in the partner's time zone, on BetsAPI", (it) => {
  /**
   * The fake answering the day lists, its calls forgotten; each test asks of its own league (which the fake ignores),
   * so no answer another test left in the cache stands in for a call.
   */
  const scripted = Effect.gen(function*() {
    const fake = yield* FakeUpstream
    fake.reset()
    fake.script(dayLists((call) => ({ kind: "json", body: { success: 0, error: call.path } })))
    const { token } = yield* givenPartner()
    return { fake, token }
  })

  it.effect("São Paulo's 22 November: the UTC 22nd and 23rd read whole, cut at 03:00 UTC, in kick-off order", () =>
    Effect.gen(function*() {
      const { fake, token } = yield* scripted
      const upcoming = yield* get(
        token,
        "/sports/events/upcoming?league_id=11&day=2026-11-22&timezone=America/Sao_Paulo"
      )
      assert.strictEqual(upcoming.status, 200)
      assert.deepStrictEqual(listed(upcoming).results.map((entry) => [entry.event_id, entry.starts_at]), [
        ["5004", "2026-11-22T12:00:00.000Z"],
        ["5005", "2026-11-22T23:30:00.000Z"],
        ["5006", "2026-11-23T01:00:00.000Z"]
      ])
      assert.deepStrictEqual(listed(upcoming).meta, { page: 1, per_page: 50, total: 3 })
      assert.deepStrictEqual(asked(fake, "/v3/events/upcoming"), ["20261122/1", "20261122/2", "20261123/1"])

      const ended = yield* get(token, "/sports/events/ended?league_id=11&day=20261122&timezone=America/Sao_Paulo")
      assert.deepStrictEqual(idsOf(ended), ["5004", "5005", "5006"])
      // Past the zone's day: an empty page, the same total.
      const beyond = yield* get(
        token,
        "/sports/events/ended?league_id=11&day=20261122&timezone=America/Sao_Paulo&page=2"
      )
      assert.deepStrictEqual(listed(beyond), { results: [], meta: { page: 2, per_page: 50, total: 3 } })
      // The raw payload is every answer read, in order.
      const raw = yield* get(
        token,
        "/sports/events/ended?league_id=11&day=20261122&timezone=America/Sao_Paulo&include_raw=1"
      )
      assert.lengthOf((raw.body as { provider_response: ReadonlyArray<unknown> }).provider_response, 3)
    }))

  it.effect("Tokyo's 22 November begins at 15:00 UTC on the 21st; the typed client asks for it too", () =>
    Effect.gen(function*() {
      const { fake, token } = yield* scripted
      const client = yield* partnerClient(token)
      const upcoming = yield* client.sports.upcoming({
        query: { league_id: "12", day: "20261122", timezone: "Asia/Tokyo" }
      })
      assert.deepStrictEqual(upcoming.data.results.map((entry) => entry.event_id), ["5002", "5003", "5004"])
      assert.deepStrictEqual(upcoming.data.meta, { page: 1, per_page: 50, total: 3 })
      assert.deepStrictEqual(asked(fake, "/v3/events/upcoming"), ["20261121/1", "20261122/1", "20261122/2"])
      const ended = yield* client.sports.ended({ query: { league_id: "12", day: "20261122", timezone: "asia/tokyo" } })
      assert.deepStrictEqual(ended.data.results.map((entry) => entry.event_id), ["5002", "5003", "5004"])
    }))

  it.effect("without timezone, in UTC, or in a zone at UTC+0 that day: the provider's own day and pages", () =>
    Effect.gen(function*() {
      const { fake, token } = yield* scripted
      for (const zone of ["", "&timezone=UTC", "&timezone=Europe/London"]) {
        const before = fake.calls.length
        const upcoming = yield* get(token, `/sports/events/upcoming?league_id=13&day=20261122${zone}`)
        assert.deepStrictEqual(idsOf(upcoming), ["5003", "5004"], zone)
        assert.deepStrictEqual(listed(upcoming).meta, { page: 1, per_page: 2, total: 3 }, zone)
        assert.isAtMost(fake.calls.length - before, 1, `${zone}: one page asked, at most (the rest cached)`)
      }
      assert.deepStrictEqual([...new Set(asked(fake, "/v3/events/upcoming"))], ["20261122/1"])
    }))

  it.effect("a zone the service does not know is the contract's 422 naming timezone; so is a day too long to cut", () =>
    Effect.gen(function*() {
      const { fake, token } = yield* scripted
      for (const zone of ["Mars/Olympus", "-03:00", "GMT-3 "]) {
        const refused = yield* get(token, `/sports/events/upcoming?day=20261122&timezone=${encodeURIComponent(zone)}`)
        assert.strictEqual(refused.status, 422, zone)
        assert.deepStrictEqual(errorBody(refused).errors, {
          timezone: ["The timezone field must be an IANA time zone name, like America/Sao_Paulo or Asia/Tokyo."]
        })
      }
      assert.lengthOf(fake.calls, 0, "nothing asked of the provider")
      // 200 pages of 50 on a UTC day: more than the service reads to cut a zone's day.
      fake.script(() => ({
        kind: "json",
        body: { success: 1, pager: { page: 1, per_page: 50, total: 10_000 }, results: [event("5001", "3")] }
      }))
      const tooLong = yield* get(token, "/sports/events/ended?league_id=14&day=20261122&timezone=Asia/Tokyo")
      assert.strictEqual(tooLong.status, 422)
      assert.match(errorBody(tooLong).errors!.timezone[0], /more than 5,000 events on 20261121 \(UTC\).*league_id/)
      assert.lengthOf(fake.calls, 1, "the first page said so: nothing more was asked")
    }))
})

layer(TestApp(), live)("a day in the partner's time zone, on the sandbox", (it) => {
  const utcDay = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10)
  const localDay = (instant: number, timeZone: string) => new Date(instant).toLocaleDateString("en-CA", { timeZone })

  /** Every page of a list, as the partner would read it. */
  const everything = (token: string, path: string) =>
    Effect.gen(function*() {
      const all: Array<{ readonly event_id: string; readonly starts_at?: string | undefined }> = []
      for (let page = 1;; page++) {
        const { meta, results } = listed(yield* get(token, `${path}${path.includes("?") ? "&" : "?"}page=${page}`))
        all.push(...results)
        if (page * meta.per_page >= meta.total || results.length === 0) return all
      }
    })

  it.effect("tomorrow in São Paulo: the upcoming events kicking off on its clocks that day, across midnight UTC", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const day = utcDay(1)
      const expected = (yield* everything(token, "/sports/events/upcoming?sport_id=1"))
        .filter((entry) => localDay(Date.parse(entry.starts_at!), "America/Sao_Paulo") === day)
      const afterMidnightUtc = expected.filter((entry) => entry.starts_at!.slice(0, 10) > day)
      assert.isAbove(afterMidnightUtc.length, 0, "some of São Paulo's day is the next UTC day")
      const zoned = yield* everything(token, `/sports/events/upcoming?sport_id=1&day=${day}&timezone=America/Sao_Paulo`)
      assert.deepStrictEqual(
        zoned.map((entry) => entry.event_id).sort(),
        expected.map((entry) => entry.event_id).sort()
      )
      const times = zoned.map((entry) => entry.starts_at!)
      assert.deepStrictEqual(times, [...times].sort(), "in kick-off order")
    }))

  it.effect("yesterday in Tokyo: the ended events of the UTC days it overlaps, cut at 15:00 UTC", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner()
      const day = utcDay(-1)
      const kickOff = (id: string) => fixtureById(id, Date.now())!.kickOff
      const overlapped = [
        ...(yield* everything(token, `/sports/events/ended?sport_id=1&day=${utcDay(-2)}`)),
        ...(yield* everything(token, `/sports/events/ended?sport_id=1&day=${day}`))
      ]
      const expected = overlapped.filter((entry) => localDay(kickOff(entry.event_id), "Asia/Tokyo") === day)
      assert.isAbove(expected.length, 0)
      assert.isTrue(
        expected.some((entry) => new Date(kickOff(entry.event_id)).toISOString().slice(0, 10) < day),
        "some of Tokyo's day is the UTC day before"
      )
      const zoned = yield* everything(token, `/sports/events/ended?sport_id=1&day=${day}&timezone=Asia/Tokyo`)
      assert.deepStrictEqual(
        zoned.map((entry) => entry.event_id).sort(),
        expected.map((entry) => entry.event_id).sort()
      )
      const kickOffs = zoned.map((entry) => kickOff(entry.event_id))
      assert.deepStrictEqual(kickOffs, [...kickOffs].sort((a, b) => a - b), "in kick-off order")
    }))
})
