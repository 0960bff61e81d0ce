/**
 * Sync since a position (`?since=` on the catalog's lists and feeds), over PostgreSQL and HTTP: a partner that read
 * a list, missed what changed, and resyncs with since ends with what a partner reading everything now holds; what left
 * a list says so; since=0, a since the log no longer covers, past its head, or unreadable; a publish still open when
 * a since read answers is answered by the next one, never passed.
 */
import { assert, layer } from "@effect/vitest"
import { Deferred, Duration, Effect, Fiber, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { SportsChangeLog } from "../../../src/sports/stream/SportsChangeLog.ts"
import { api, CatalogApp, type ProviderData, refresh } from "../../support/CatalogApp.ts"
import { type ProviderEvent, providerEvents } from "../../support/CatalogScripts.ts"
import { baseUrlOf } from "../../support/FleetApp.ts"
import { eventually, live } from "../../support/live.ts"
import { partnerClient } from "../../support/PartnerClient.ts"
import { changesOf, nextHeartbeat, openStream, until } from "../../support/StreamApp.ts"
import { bodyAs, errorBody, givenPartner, validationErrors } from "../../support/TestApp.ts"

const providerData: ProviderData = { events: providerEvents() }

type Entry = Record<string, unknown>
/** What a list answers on the wire (read raw: every key it sends, none the client's schema drops). */
const ListBody = Schema.Struct({
  data: Schema.Struct({
    results: Schema.Array(Schema.Record(Schema.String, Schema.Unknown)),
    meta: Schema.Struct({ page: Schema.Int, per_page: Schema.Int, total: Schema.Int, next_since: Schema.Int })
  })
})
const read = (token: string, path: string, query: string) =>
  Effect.map(api(token, `${path}?${query}`), (response) => {
    assert.strictEqual(response.status, 200, `${path}?${query}: ${JSON.stringify(response.body)}`)
    return bodyAs(ListBody)(response).data
  })

/** The lists a partner keeps, each with its key. */
const lists = [
  { path: "/sports/feed/prematch", key: "event_id" },
  { path: "/sports/feed/live", key: "event_id" },
  { path: "/sports/catalog/leagues", key: "id" },
  { path: "/sports/catalog/teams", key: "id" },
  { path: "/sports/catalog/sports", key: "id" },
  { path: "/sports/catalog/countries", key: "code" }
] as const

/** A partner's copy of a list: its entries by key. */
type Copy = Map<string, Entry>

/** Every page of a list, as a partner reads it whole: the copy, and the first page's next_since (the lowest). */
const readWhole = (token: string, path: string, query: string, key: string) =>
  Effect.gen(function*() {
    const copy: Copy = new Map()
    let next: number | undefined
    for (let page = 1;; page++) {
      const answer = yield* read(token, path, `${query}&per_page=50&page=${page}`)
      next ??= answer.meta.next_since
      for (const entry of answer.results) copy.set(String(entry[key]), entry)
      if (answer.results.length < 50) break
    }
    return { copy, next: next! }
  })

/** Catches up from `since`, `perPage` at a time, as the guide says: removed entries dropped, the rest replaced. */
const resync = (token: string, path: string, query: string, key: string, copy: Copy, since: number, perPage: number) =>
  Effect.gen(function*() {
    let from = since
    let removed = 0
    for (let round = 0; round < 1_000; round++) {
      const answer = yield* read(token, path, `${query}&per_page=${perPage}&since=${from}`)
      for (const { removed: gone, ...entry } of answer.results) {
        assert.isBoolean(gone, "every entry of a since read says whether it left")
        if (gone === true) {
          copy.delete(String(entry[key]))
          removed++
        } else copy.set(String(entry[key]), entry)
      }
      assert.isAtLeast(answer.meta.next_since, from, "never backwards")
      from = answer.meta.next_since
      if (answer.results.length < perPage) return { next: from, removed }
    }
    return assert.fail("the since reads never came to an end")
  })

const sorted = (copy: Copy) => [...copy.entries()].sort(([a], [b]) => (a < b ? -1 : 1))

/** Events of the data, changed by `change` when `pick` says so. */
const changing = (
  pick: (event: ProviderEvent, index: number) => boolean,
  change: (event: ProviderEvent) => ProviderEvent
) => providerData.events.map((event, index) => pick(event, index) ? change(event) : event)

layer(CatalogApp(providerData), live)("since a position: the catalog's lists and feeds", (it) => {
  it.effect("a partner that missed changes resyncs with since and ends equal to one that read everything now", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Resyncer" })
      yield* refresh(token)
      const queries = ["", "sport_id=1&has_odds=true", "league_id=901&date=2026-12-02", "active=true"]
      const kept = []
      for (const { key, path } of lists) {
        for (const query of queries) kept.push({ path, key, query, ...(yield* readWhole(token, path, query, key)) })
      }

      // What the partner misses, over three refreshes: events go in play, are no longer listed, come new, move to
      // another day, lose or gain odds, end; a league is renamed; a team stops playing (and goes inactive).
      const upcoming = providerData.events.filter((event) => event.timeStatus === 0)
      const goingLive = new Set(upcoming.filter((_, i) => i % 17 === 0).map((event) => event.id))
      const unlisted = new Set(upcoming.filter((_, i) => i % 23 === 5).map((event) => event.id))
      providerData.events = changing(
        (event) => goingLive.has(event.id),
        (event) => ({ ...event, timeStatus: 1, ss: "0-0", minute: 3 })
      ).filter((event) => !unlisted.has(event.id))
      providerData.events = [
        ...providerData.events,
        ...upcoming.slice(0, 4).map((event, i) => ({
          ...event,
          id: String(75_000 + i),
          startsAt: event.startsAt + 3_600_000
        }))
      ]
      yield* refresh(token)
      providerData.events = changing(
        (event, i) => event.timeStatus === 0 && i % 11 === 2,
        (event) => ({ ...event, startsAt: event.startsAt + 86_400_000 })
      )
      providerData.events = changing((event, i) => event.timeStatus === 0 && i % 13 === 4, (event) => ({
        ...event,
        hasOdds: !event.hasOdds
      }))
      providerData.events = changing(
        (event) => event.league.id === "901",
        (event) => ({ ...event, league: { ...event.league, name: "LaLiga" } })
      )
      yield* refresh(token)
      providerData.events = changing((event) => event.timeStatus === 1 && event.id.startsWith("8"), (event) => ({
        ...event,
        timeStatus: 3,
        ss: "2-1",
        minute: null
      })).filter((event) => event.home.id !== "900-3" && event.away.id !== "900-3")
      yield* refresh(token)

      let removed = 0
      for (const list of kept) {
        const caughtUp = yield* resync(token, list.path, list.query, list.key, list.copy, list.next, 7)
        removed += caughtUp.removed
        const now = yield* readWhole(token, list.path, list.query, list.key)
        assert.deepStrictEqual(sorted(list.copy), sorted(now.copy), `${list.path}?${list.query}`)
        assert.isAtLeast(caughtUp.next, now.next, `${list.path}?${list.query}: went on to where a whole read is`)
      }
      assert.isAbove(removed, 0, "entries left their lists")
    }))

  it.effect("what left a list says so: an event in play leaves the pre-match feed for the live one; what never was in a feed is not said", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Leaver" })
      yield* refresh(token)
      const client = yield* partnerClient(token)
      const [kickOff, gone, stays] = providerData.events.filter((event) =>
        event.timeStatus === 0 && event.sportId === 18
      )
      const since = (yield* client.catalog.prematch({ query: { sport_id: "18", per_page: 1 } })).data.meta.next_since
      providerData.events = changing((event) => event.id === kickOff.id, (event) => ({
        ...event,
        timeStatus: 1,
        ss: "0-0",
        minute: 1
      })).filter((event) => event.id !== gone.id)
      providerData.events = changing(
        (event) => event.id === stays.id,
        (event) => ({ ...event, hasOdds: !event.hasOdds })
      )
      yield* refresh(token)

      const prematch = yield* client.catalog.prematch({ query: { sport_id: "18", since } })
      assert.sameDeepMembers(prematch.data.results.map((entry) => [entry.event_id, entry.removed]), [
        [kickOff.id, true],
        [gone.id, true],
        [stays.id, false]
      ])
      assert.strictEqual(prematch.data.meta.total, 3)
      const changed = prematch.data.results.find((entry) => entry.event_id === stays.id)!
      assert.strictEqual(changed.has_odds, !stays.hasOdds, "a changed entry as it is now")
      const live = yield* client.catalog.live({ query: { sport_id: "18", since } })
      assert.deepStrictEqual(
        live.data.results.map((entry) => [entry.event_id, entry.removed]),
        [[kickOff.id, false]],
        "one that never was live is not said"
      )
      // A filter that leaves it out now: removed, as it may have been in (has_odds flipped).
      const withOdds = yield* client.catalog.prematch({ query: { sport_id: "18", has_odds: stays.hasOdds, since } })
      assert.includeDeepMembers(withOdds.data.results.map((entry) => [entry.event_id, entry.removed]), [[
        stays.id,
        true
      ]])
      // Nothing changed since: an empty answer, going on from the head.
      const quiet = yield* client.catalog.prematch({ query: { since: live.data.meta.next_since } })
      assert.deepStrictEqual([quiet.data.results, quiet.data.meta.total], [[], 0])
      assert.strictEqual(quiet.data.meta.next_since, live.data.meta.next_since)
    }))

  it.effect("an entry that left a feed says why in the life cycle's words: final, postponed with its reason, abandoned", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Why" })
      yield* refresh(token)
      const [ends, stops] = providerData.events.filter((event) => event.timeStatus === 1)
      const postponed = providerData.events.find((event) => event.timeStatus === 0 && event.sportId === 18)!
      const liveSince = (yield* read(token, "/sports/feed/live", "per_page=1")).meta.next_since
      const prematchSince = (yield* read(token, "/sports/feed/prematch", "per_page=1")).meta.next_since
      const open = (yield* read(token, "/sports/feed/live", "")).results.find((entry) => entry.event_id === ends.id)
      assert.deepInclude(open, { status: "live", reason: null }, "an open entry of the live feed is live")
      providerData.events = changing((event) => event.id === ends.id, (event) => ({
        ...event,
        timeStatus: 3,
        ss: "2-1",
        minute: null
      }))
      providerData.events = changing((event) => event.id === stops.id, (event) => ({ ...event, timeStatus: 8 }))
      providerData.events = changing((event) => event.id === postponed.id, (event) => ({ ...event, timeStatus: 4 }))
      yield* refresh(token)

      // Read raw, over HTTP: every key the feeds send.
      const live = (yield* read(token, "/sports/feed/live", `since=${liveSince}`)).results
      assert.deepInclude(live.find((entry) => entry.event_id === ends.id), {
        removed: true,
        status: "final",
        reason: null,
        score: "2-1"
      })
      assert.deepInclude(live.find((entry) => entry.event_id === stops.id), {
        removed: true,
        status: "abandoned",
        reason: { code: "8", text: "Abandoned" }
      })
      const prematch = (yield* read(token, "/sports/feed/prematch", `since=${prematchSince}&sport_id=18`)).results
      assert.deepInclude(prematch.find((entry) => entry.event_id === postponed.id), {
        removed: true,
        status: "postponed",
        reason: { code: "4", text: "Postponed" }
      })
      const stays = (yield* read(token, "/sports/feed/prematch", "per_page=200")).results
      assert.deepStrictEqual(
        [...new Set(stays.map((entry) => entry.status))],
        ["scheduled"],
        "what is open is scheduled"
      )
    }))

  it.effect("since=0 is everything since the log began; the position is one the stream goes on from too", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Zero" })
      yield* refresh(token)
      const client = yield* partnerClient(token)
      const whole = yield* readWhole(token, "/sports/catalog/teams", "", "id")
      const fromZero: Copy = new Map()
      yield* resync(token, "/sports/catalog/teams", "", "id", fromZero, 0, 200)
      assert.deepStrictEqual(sorted(fromZero), sorted(whole.copy))
      const first = yield* client.catalog.teams({ query: { since: 0, per_page: 3 } })
      assert.deepStrictEqual(first.data.results.map((entry) => entry.removed), [false, false, false])
      assert.strictEqual(first.data.meta.total, whole.copy.size)

      // The stream takes the same position as Last-Event-ID: it goes on from it, without a reset.
      const stream = yield* openStream(yield* baseUrlOf, token, { lastEventId: String(whole.next) })
      yield* until(stream, (s) => s.events.length > 0, "connected")
      yield* nextHeartbeat(stream)
      assert.deepStrictEqual(stream.events[0].data.resume_from, String(whole.next))
      assert.notInclude(changesOf(stream).map((change) => change.event), "reset")
    }))

  it.effect("a since the log no longer keeps, or past its head, is a 410 in the stream's words; unreadable, a 422", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Late" })
      yield* refresh(token)
      const log = yield* SportsChangeLog
      const before = (yield* read(token, "/sports/feed/prematch", "per_page=1")).meta.next_since
      providerData.events = changing((_, i) => i === 1, (event) => ({ ...event, startsAt: event.startsAt + 60_000 }))
      yield* refresh(token)
      assert.isAbove(yield* log.prune(Duration.zero), 0, "every change is older than the retention")
      for (const { path } of lists) {
        const expired = yield* api(token, `${path}?since=${before}`)
        assert.strictEqual(expired.status, 410, path)
        assert.deepInclude(bodyAs(Schema.Struct({ reason: Schema.String }))(expired), { reason: "expired" })
        assert.match(errorBody(expired).message, /no longer kept .*re-read the list without since/)
      }
      const head = (yield* log.bounds).head
      const beyond = yield* api(token, `/sports/catalog/leagues?since=${head + 1_000_000}`)
      assert.strictEqual(beyond.status, 410)
      assert.deepInclude(bodyAs(Schema.Struct({ reason: Schema.String }))(beyond), { reason: "unknown_position" })
      // Re-read without since, then go on from its next_since: answered.
      const fresh = (yield* read(token, "/sports/feed/prematch", "per_page=1")).meta.next_since
      assert.strictEqual((yield* api(token, `/sports/feed/prematch?since=${fresh}`)).status, 200)
      assert.strictEqual((yield* api(token, `/sports/feed/prematch?since=${head}`)).status, 200, "the floor is kept")
      // 0, the log's start, is pruned too: as the stream, a 410.
      const fromZero = yield* api(token, "/sports/catalog/teams?since=0")
      assert.deepStrictEqual([fromZero.status, errorBody(fromZero).message], [
        410,
        `Changes after since=0 are no longer kept (they are kept from position ${(yield* log.bounds).floor}): ` +
        "re-read the list without since, then go on from its meta.next_since."
      ])

      for (const value of ["abc", "-1", "1e3", "0x10", "1000000000000000"]) {
        const refused = yield* api(token, `/sports/feed/live?since=${value}`)
        assert.strictEqual(refused.status, 422, value)
        assert.deepStrictEqual(Object.keys(validationErrors(refused)), ["since"], value)
      }
    }))

  it.effect("a publish still open when a since read answers is answered by the next one: never passed", () =>
    Effect.gen(function*() {
      const { token } = yield* givenPartner({ name: "Patient" })
      const sql = yield* SqlClient.SqlClient
      yield* refresh(token)
      const since = (yield* read(token, "/sports/feed/prematch", "per_page=1")).meta.next_since
      const moved = providerData.events.find((event) => event.timeStatus === 0)!
      providerData.events = changing((event) => event.id === moved.id, (event) => ({
        ...event,
        startsAt: event.startsAt + 120_000
      }))

      // Another writer holds the log's lock: the refresh writes its rows, then waits for the lock to draw positions.
      const locked = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(sql.withTransaction(
        sql`SELECT pg_advisory_xact_lock(hashtext('partner-api:sports-changes'))`.pipe(
          Effect.andThen(Deferred.succeed(locked, undefined)),
          Effect.andThen(Deferred.await(release))
        )
      ))
      yield* Deferred.await(locked)
      const publishing = yield* Effect.forkChild(refresh(token))
      yield* eventually(
        sql<
          { waiting: number }
        >`SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`,
        (rows) => rows[0].waiting > 0,
        "the refresh waiting for the log's lock"
      )
      const during = yield* read(token, "/sports/feed/prematch", `since=${since}`)
      assert.deepStrictEqual(during.results, [], "its rows are not committed")

      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.join(publishing)
      const after = yield* read(token, "/sports/feed/prematch", `since=${during.meta.next_since}`)
      assert.deepStrictEqual(after.results.map((entry) => [entry.event_id, entry.removed]), [[moved.id, false]])
      assert.strictEqual(after.results[0].starts_at, new Date(moved.startsAt + 120_000).toISOString())
    }))
})
