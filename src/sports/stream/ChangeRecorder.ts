import { Cause, Clock, Context, Duration, Effect, Layer } from "effect"
import { closingChange, type ClosingLine, closingsAtKickOff, kickOffs } from "../../domain/ClosingLines.ts"
import type { EventResult, SettledResult } from "../../domain/Sports.ts"
import type { Snapshot } from "../../domain/SportsCatalog.ts"
import { snapshotRecords } from "../../domain/SportsCatalogPublish.ts"
import { eventChanges, oddsChanges, staleMarketChanges, unlistedEvents } from "../../domain/SportsChangeRules.ts"
import type { ChangeRecord, EventRecord, MarketRecord, OddsSighting } from "../../domain/SportsChanges.ts"
import { settledResult, settleResult } from "../../domain/SportsLifecycle.ts"
import { CatalogChanges } from "../catalog/CatalogChanges.ts"
import { ClosingLinesRepo } from "./ClosingLinesRepo.ts"
import { ResultRecords } from "./ResultRecords.ts"
import { SportsChangeLog } from "./SportsChangeLog.ts"
import { StreamConfig } from "./StreamConfig.ts"
import { StreamRecords } from "./StreamRecords.ts"

/** An event's markets of one phase (pre-match or in play). */
const phaseKey = (of: { readonly eventId: string; readonly inPlay: boolean }) => `${of.eventId}\u0000${of.inPlay}`
const marketKey = (market: MarketRecord) => `${phaseKey(market)}\u0000${market.key}`

/**
 * Writes to the change log what the catalog's refreshes, the odds reads and
 * the passing of time change: it reads what the log knows (StreamRecords)
 * and what the service holds of final results (ResultRecords), lets the rules
 * (domain/SportsChangeRules, SportsLifecycle) tell what changed, and writes the
 * changes and the new records together, holding the log's lock
 * (SportsChangeLog.withLog). A result read (GET .../result) is settled against
 * the same record of results. An event a refresh sees kick off gets its
 * closing line there too (ClosingLinesRepo): the pre-match markets the log
 * holds, or, where it holds none, an ask of the provider (ClosingLineAsks),
 * whose answer comes back through recordClosing.
 */
export class ChangeRecorder extends Context.Service<ChangeRecorder, {
  /** What a published snapshot changed in the data of `provider` (a provider's name); inside the publish's transaction when it has one. */
  recordRefresh(provider: string, snapshot: Snapshot): Effect.Effect<void>
  /** What odds answers changed in the data of `provider`; answers for events the log does not know are left out. */
  recordOdds(provider: string, sightings: ReadonlyArray<OddsSighting>): Effect.Effect<number>
  /**
   * A final result the provider answered (at `answeredAt`), settled against the service's record of results of
   * `provider` (first seen final, or a correction, is recorded), with that record. Written only when it changes the
   * record; sent on the stream by the next refresh that sees the event.
   */
  recordResult(provider: string, result: EventResult, answeredAt: number): Effect.Effect<SettledResult>
  /** Keeps a closing line the provider answered, and sends it, unless the event has one already; whether it was kept. */
  recordClosing(provider: string, line: ClosingLine): Effect.Effect<boolean>
  /** Suspends, as stale, every market no answer has carried for STREAM_STALE_AFTER. */
  readonly suspendStale: Effect.Effect<number>
  /** Drops changes older than STREAM_RETENTION. */
  readonly prune: Effect.Effect<number>
}>()("partner-api/sports/stream/ChangeRecorder") {
  static readonly layer = Layer.effect(
    ChangeRecorder,
    Effect.gen(function*() {
      const log = yield* SportsChangeLog
      const known = yield* StreamRecords
      const results = yield* ResultRecords
      const closings = yield* ClosingLinesRepo
      const config = yield* StreamConfig
      const staleAfterMillis = Duration.toMillis(config.staleAfter)
      const closingAskAfterMillis = Duration.toMillis(config.closingAskAfter)

      /** Keeps the lines of events that have none yet and appends a `closing` change for each one kept. Under withLog. */
      const keepLines = (provider: string, lines: ReadonlyArray<ClosingLine>, seenAt: number) =>
        Effect.gen(function*() {
          if (lines.length === 0) return 0
          const kept = yield* closings.keep(provider, lines)
          const changes = lines.filter((line) => kept.has(line.eventId)).map((line) => closingChange(line, seenAt))
          yield* log.append(provider, changes)
          return changes.length
        })

      const recordRefresh = Effect.fn("ChangeRecorder.recordRefresh")(function*(provider: string, snapshot: Snapshot) {
        const { scope } = snapshot
        if (!scope.events) return
        const seenAt = yield* Clock.currentTimeMillis
        // The rows are the snapshot's events, in order, with the names the catalog's records carry; the status is the
        // event's own (the catalog keeps its own words for it).
        const observed = snapshotRecords(snapshot).events.map((row, i): EventRecord => ({
          eventId: row.id,
          sportId: row.sportId,
          leagueId: row.leagueId,
          leagueName: row.leagueName,
          homeName: row.homeName,
          awayName: row.awayName,
          startsAt: row.startsAt.getTime(),
          status: snapshot.events[i].status,
          reason: snapshot.events[i].reason ?? null,
          active: true,
          score: row.score,
          minute: row.minute,
          finalAt: null,
          answeredAt: snapshot.answeredAt?.get(row.id) ?? seenAt
        }))
        const listed = new Set(observed.map((event) => event.eventId))
        yield* log.withLog(Effect.gen(function*() {
          const baseline = !(yield* known.providerKnown(provider))
          const { moved, previous } = yield* known.eventRecords(
            provider,
            observed,
            scope.liveOnly ? [] : scope.sportIds
          )
          const movedEvents = observed.filter((event) => moved.has(event.eventId))
          const { changes, records, settled } = eventChanges({
            previous,
            observed: movedEvents,
            unlisted: unlistedEvents(previous.values(), listed, scope),
            results: yield* results.held(
              provider,
              movedEvents.filter((event) => event.status === "final").map((event) => event.eventId)
            ),
            seenAt,
            baseline
          })
          yield* known.saveEvents(provider, records)
          yield* results.save(provider, settled)
          yield* log.append(provider, changes)
          // After the events' changes: a closing line follows the kick-off that closed it.
          const started = kickOffs(previous, records)
          if (started.length === 0) return
          const held = yield* known.marketRecords(provider, started.map((event) => event.eventId))
          const { asks, lines } = closingsAtKickOff({ kickOffs: started, held, seenAt })
          yield* keepLines(provider, lines, seenAt)
          yield* closings.want(provider, asks, seenAt + closingAskAfterMillis)
        }))
      })

      const recordClosing = Effect.fn("ChangeRecorder.recordClosing")(function*(provider: string, line: ClosingLine) {
        const seenAt = yield* Clock.currentTimeMillis
        return (yield* log.withLog(keepLines(provider, [line], seenAt))) > 0
      })

      const recordOdds = Effect.fn("ChangeRecorder.recordOdds")(
        function*(provider: string, sightings: ReadonlyArray<OddsSighting>) {
          if (sightings.length === 0) return 0
          const seenAt = yield* Clock.currentTimeMillis
          const eventIds = [...new Set(sightings.map((sighting) => sighting.eventId))]
          return yield* log.withLog(Effect.gen(function*() {
            const places = yield* known.places(provider, eventIds)
            // Each event's markets of each phase, as the sightings below leave them (oldest answer first).
            const held = new Map<string, Map<string, MarketRecord>>()
            for (const market of yield* known.marketRecords(provider, eventIds)) {
              const phase = phaseKey(market)
              if (!held.has(phase)) held.set(phase, new Map())
              held.get(phase)!.set(market.key, market)
            }
            const changes: Array<ChangeRecord> = []
            const written = new Map<string, MarketRecord>()
            for (const sighting of [...sightings].sort((a, b) => a.answeredAt - b.answeredAt)) {
              const place = places.get(sighting.eventId)
              if (place === undefined) continue
              const phase = phaseKey(sighting)
              const markets = held.get(phase) ?? new Map<string, MarketRecord>()
              const outcome = oddsChanges({
                previous: [...markets.values()],
                sighting,
                event: place,
                seenAt,
                staleAfterMillis
              })
              for (const record of outcome.records) {
                markets.set(record.key, record)
                written.set(marketKey(record), record)
              }
              held.set(phase, markets)
              changes.push(...outcome.changes)
            }
            yield* known.saveMarkets(provider, [...written.values()])
            yield* log.append(provider, changes)
            return changes.length
          }))
        }
      )

      const recordResult = Effect.fn("ChangeRecorder.recordResult")(
        function*(provider: string, result: EventResult, answeredAt: number) {
          const settle = Effect.gen(function*() {
            const seenAt = yield* Clock.currentTimeMillis
            const held = (yield* results.held(provider, [result.eventId])).get(result.eventId)
            const settled = settleResult(
              held,
              { eventId: result.eventId, result, answeredAt },
              { seenAt, finalAt: held?.finalAt ?? seenAt }
            )
            return { held, settled }
          })
          // Read first: a result already recorded (nearly every read) is answered without the log's lock.
          const looked = yield* settle
          if (looked.settled === undefined) return settledResult(result, looked.held)
          return yield* log.withLog(Effect.gen(function*() {
            const { held, settled } = yield* settle
            if (settled !== undefined) yield* results.save(provider, [settled])
            return settledResult(result, settled ?? held)
          }))
        }
      )

      const suspendStale = Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        return yield* log.withLog(Effect.gen(function*() {
          const stale = yield* known.staleMarkets(now - staleAfterMillis)
          const providers = new Set(stale.map((entry) => entry.provider))
          for (const provider of providers) {
            const { changes, records } = staleMarketChanges(stale.filter((entry) => entry.provider === provider), now)
            yield* known.saveMarkets(provider, records)
            yield* log.append(provider, changes)
          }
          return stale.length
        }))
      }).pipe(Effect.withSpan("ChangeRecorder.suspendStale"))

      return ChangeRecorder.of({
        recordRefresh,
        recordOdds,
        recordResult,
        recordClosing,
        suspendStale,
        prune: log.withLog(
          Effect.tap(log.prune(config.retention), () => Effect.andThen(known.prune, results.prune))
        ).pipe(Effect.withSpan("ChangeRecorder.prune"))
      })
    })
  )

  /**
   * The catalog in PostgreSQL, streamed as `provider`: its publishes write their changes in their own
   * transaction, so a failure to write them fails the publish (nothing of it is seen).
   */
  static readonly catalogChanges = (provider: string) =>
    Layer.effect(
      CatalogChanges,
      Effect.gen(function*() {
        const recorder = yield* ChangeRecorder
        const log = yield* SportsChangeLog
        return CatalogChanges.of({
          published: (snapshot) => recorder.recordRefresh(provider, snapshot),
          positions: (count) => log.withLog(log.draw(count)),
          bounds: log.bounds
        })
      })
    )

  /**
   * A catalog in this instance's memory (the sandbox's, for test tokens, beside BetsAPI), streamed as `provider`: the log is
   * written after the catalog, and a failure to write it is logged, not the refresh's: the next refresh,
   * compared with what the log holds, tells what was missed; records left without positions get them with it.
   */
  static readonly memoryCatalogChanges = (provider: string) =>
    Layer.effect(
      CatalogChanges,
      Effect.gen(function*() {
        const recorder = yield* ChangeRecorder
        const log = yield* SportsChangeLog
        /** A failure the catalog's own publish goes on without: logged; `orElse` answered instead. */
        const logged = <A>(what: string, work: Effect.Effect<A>, orElse: A) =>
          work.pipe(
            Effect.catchCause((cause) =>
              Cause.hasInterruptsOnly(cause)
                ? Effect.failCause(cause)
                : Effect.logWarning(what).pipe(
                  Effect.annotateLogs({ provider, cause: Cause.pretty(cause) }),
                  Effect.as(orElse)
                )
            )
          )
        return CatalogChanges.of({
          published: (snapshot) =>
            logged(
              "The change stream missed a refresh of a test catalog",
              recorder.recordRefresh(provider, snapshot),
              undefined
            ),
          positions: (count) =>
            logged(
              "A test catalog's changed records get their positions with its next refresh",
              log.withLog(log.draw(count)),
              undefined
            ),
          bounds: log.bounds
        })
      })
    )
}
