import { Cause, Effect, Layer } from "effect"
import type { Page, SportsEvent } from "../../domain/Sports.ts"
import { SportsProvider } from "../SportsProvider.ts"
import { ChangeRecorder } from "./ChangeRecorder.ts"
import { ResultRecords } from "./ResultRecords.ts"

/**
 * The provider named `provider` with the service's record of final results: a result read is settled against it
 * (first seen final, or a correction, recorded: ChangeRecorder.recordResult) and answered with it, and a final event
 * (one event, or the ended list) carries when the service first saw it final. The record is PostgreSQL's, so every
 * instance answers the same; when it cannot be read, the provider's answer goes out as it came, and the failure is
 * logged.
 */
export const recordingResults = (provider: string) =>
  Layer.effect(
    SportsProvider,
    Effect.gen(function*() {
      const underlying = yield* SportsProvider
      const recorder = yield* ChangeRecorder
      const results = yield* ResultRecords

      const orAsGiven = <A>(given: A, what: string) => (recorded: Effect.Effect<A>) =>
        recorded.pipe(
          Effect.catchCause((cause) =>
            Cause.hasInterruptsOnly(cause) ? Effect.failCause(cause) : Effect.as(
              Effect.logWarning(`The record of results could not be read for ${what}`).pipe(
                Effect.annotateLogs({ provider, cause: Cause.pretty(cause) })
              ),
              given
            )
          )
        )

      /** The final events of a list, each with when the service first saw it final (where it holds its result). */
      const withFinalAt = (events: ReadonlyArray<SportsEvent>) => {
        const finals = events.filter((event) => event.status === "final").map((event) => event.id)
        if (finals.length === 0) return Effect.succeed(events)
        return Effect.map(results.held(provider, finals), (held) =>
          held.size === 0 ? events : events.map((event) => {
            const record = held.get(event.id)
            return record === undefined || event.status !== "final"
              ? event
              : { ...event, finalAt: new Date(record.finalAt) }
          }))
      }

      return SportsProvider.of({
        ...underlying,
        result: (eventId) =>
          Effect.flatMap(underlying.result(eventId), (fetched) =>
            recorder.recordResult(provider, fetched.value, fetched.storedAt).pipe(
              Effect.map((value) => ({ ...fetched, value })),
              orAsGiven(fetched, "a result")
            )),
        event: (eventId) =>
          Effect.flatMap(underlying.event(eventId), (fetched) =>
            withFinalAt([fetched.value]).pipe(
              Effect.map(([value]) => ({ ...fetched, value })),
              orAsGiven(fetched, "an event")
            )),
        ended: (query) =>
          Effect.flatMap(underlying.ended(query), (fetched) =>
            withFinalAt(fetched.value.results).pipe(
              Effect.map((events) => ({
                ...fetched,
                value: { ...fetched.value, results: events } satisfies Page<SportsEvent>
              })),
              orAsGiven(fetched, "the ended events")
            ))
      })
    })
  )
