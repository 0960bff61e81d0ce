/**
 * Closing lines across a fleet: two change recorders (two instances: each its own pool) on one PostgreSQL that see
 * the same kick-off at once keep one line and send one `closing` change; two that keep a line the provider answered
 * for the same event at once (an ask made twice) keep the first, once.
 */
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { SportsEvent } from "../../../src/domain/Sports.ts"
import type { Snapshot } from "../../../src/domain/SportsCatalog.ts"
import { ChangeRecorder } from "../../../src/sports/stream/ChangeRecorder.ts"
import { ClosingLinesRepo } from "../../../src/sports/stream/ClosingLinesRepo.ts"
import { ResultRecords } from "../../../src/sports/stream/ResultRecords.ts"
import { SportsChangeLog } from "../../../src/sports/stream/SportsChangeLog.ts"
import { StreamConfig } from "../../../src/sports/stream/StreamConfig.ts"
import { StreamRecords } from "../../../src/sports/stream/StreamRecords.ts"
import { live } from "../../support/live.ts"
import { TestDatabaseOnUrl, TestDatabaseUrlLive } from "../../support/TestDatabase.ts"
import { testStreamConfig } from "../../support/TestApp.ts"

/** One instance's recorder, over a pool of its own. */
const Instance = ChangeRecorder.layer.pipe(
  Layer.provideMerge(
    Layer.mergeAll(SportsChangeLog.layerSql, StreamRecords.layerSql, ResultRecords.layerSql, ClosingLinesRepo.layerSql)
  ),
  Layer.provide(Layer.succeed(StreamConfig, testStreamConfig())),
  Layer.provideMerge(TestDatabaseOnUrl),
  Layer.fresh
)

const kickOff = Date.now() - 60_000
const league = { id: "900", name: "Premier Division", sportId: 1, countryCode: "gb" }
const match = (id: string, status: SportsEvent["status"]): SportsEvent => ({
  id,
  sportId: 1,
  league,
  home: { id: "900-0", name: "Arsenal", countryCode: null },
  away: { id: "900-1", name: "Brighton", countryCode: null },
  startsAt: new Date(kickOff),
  status,
  score: status === "live" ? "0-0" : null,
  minute: status === "live" ? 1 : null,
  hasLineup: false,
  hasOdds: true
})
const snapshot = (provider: string, events: ReadonlyArray<SportsEvent>): Snapshot => ({
  provider,
  scope: { sportIds: [1], leagues: false, events: true, liveOnly: false },
  leagues: [league],
  events
})

const closingChanges = (provider: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ event_id: string; source: string }>`
      SELECT event_id, data::jsonb ->> 'source' AS source FROM sports_changes
      WHERE provider = ${provider} AND kind = 'closing' ORDER BY position
    `).pipe(Effect.orDie)

layer(TestDatabaseUrlLive, live)("closing lines across a fleet", (it) => {
  it.effect("two recorders seeing the same kick-off at once keep one line and send it once", () =>
    Effect.gen(function*() {
      const [a, b] = [yield* Layer.build(Instance), yield* Layer.build(Instance)]
      const provider = "race-kick-off"
      const [first, second] = [Context.get(a, ChangeRecorder), Context.get(b, ChangeRecorder)]
      yield* first.recordRefresh(provider, snapshot(provider, [match("7", "scheduled")]))
      yield* first.recordOdds(provider, [{
        eventId: "7",
        inPlay: false,
        answeredAt: Date.now(),
        markets: [{ key: "1_1", name: "Full Time Result", odds: [{ label: "Home", value: 2.5 }], quotedAt: null }]
      }])
      const kickedOff = snapshot(provider, [match("7", "live")])
      yield* Effect.all([first.recordRefresh(provider, kickedOff), second.recordRefresh(provider, kickedOff)], {
        concurrency: "unbounded"
      })
      const line = yield* Context.get(b, ClosingLinesRepo).closingLine(provider, "7")
      assert.strictEqual(line?.source, "kick_off")
      assert.deepStrictEqual(line?.markets, [{
        key: "1_1",
        name: "Full Time Result",
        odds: [{ label: "Home", value: 2.5 }]
      }])
      assert.deepStrictEqual(yield* Effect.provide(closingChanges(provider), a), [{
        event_id: "7",
        source: "kick_off"
      }])
    }).pipe(Effect.scoped))

  it.effect("two recorders keeping the provider's line of one event at once keep the first, once", () =>
    Effect.gen(function*() {
      const [a, b] = [yield* Layer.build(Instance), yield* Layer.build(Instance)]
      const provider = "race-asked"
      const [first, second] = [Context.get(a, ChangeRecorder), Context.get(b, ChangeRecorder)]
      const line = (value: number) => ({
        eventId: "8",
        sportId: 1,
        leagueId: "900",
        source: "provider" as const,
        closedAt: kickOff,
        quotedAt: kickOff - 1_000,
        markets: [{ key: "1_1", name: "Full Time Result", odds: [{ label: "Home", value }] }]
      })
      const kept = yield* Effect.all([
        first.recordClosing(provider, line(1.5)),
        second.recordClosing(provider, line(1.6))
      ], { concurrency: "unbounded" })
      assert.deepStrictEqual([...kept].sort(), [false, true])
      const held = yield* Context.get(a, ClosingLinesRepo).closingLine(provider, "8")
      assert.deepStrictEqual(held, line(kept[0] ? 1.5 : 1.6))
      assert.deepStrictEqual(yield* Effect.provide(closingChanges(provider), b), [{
        event_id: "8",
        source: "provider"
      }])
    }).pipe(Effect.scoped))
})
