import { Cause, Effect, Layer, Queue } from "effect"
import { canonicalId, type OddsMarket } from "../../domain/Sports.ts"
import type { OddsSighting } from "../../domain/SportsChanges.ts"
import { type Fetched, SportsProvider } from "../SportsProvider.ts"
import { ChangeRecorder } from "./ChangeRecorder.ts"

/** Answers waiting to be written; past this (the database far behind) new ones are dropped until it catches up. */
const backlog = 10_000

/** Answers already recorded, by event and phase (the newest answer's time), at most this many remembered. */
const remembered = 50_000

/**
 * The provider named `provider` with its odds reads recorded in the change log: each
 * new odds answer (one the provider gave after the last one recorded; a cached
 * answer is recorded once) goes to a queue that one fiber writes in batches, so
 * a partner's odds request never waits on the log. An answer dropped when
 * the backlog is full is recorded by the next read of those odds.
 */
export const recordingOdds = (provider: string) =>
  Layer.effect(
    SportsProvider,
    Effect.gen(function*() {
      const underlying = yield* SportsProvider
      const recorder = yield* ChangeRecorder
      const answers = yield* Queue.dropping<OddsSighting>(backlog)
      const recorded = new Map<string, number>()

      yield* Queue.takeAll(answers).pipe(
        Effect.flatMap((sightings) => recorder.recordOdds(provider, sightings)),
        Effect.catchCause((cause) =>
          Cause.hasInterruptsOnly(cause)
            ? Effect.failCause(cause)
            : Effect.logWarning("Odds answers could not be written to the change log").pipe(
              Effect.annotateLogs({ provider, cause: Cause.pretty(cause) })
            )
        ),
        Effect.forever,
        Effect.forkScoped
      )

      const record = (inPlay: boolean) => (eventId: string, fetched: Fetched<ReadonlyArray<OddsMarket>>) =>
        Effect.sync(() => {
          const id = canonicalId(eventId)
          const key = `${id}\u0000${inPlay}`
          if ((recorded.get(key) ?? -1) >= fetched.storedAt) return
          const sighting: OddsSighting = {
            eventId: id,
            inPlay,
            answeredAt: fetched.storedAt,
            markets: fetched.value.map((market) => ({
              key: market.key,
              name: market.name,
              odds: market.odds,
              quotedAt: market.quotedAt ?? null
            }))
          }
          if (!Queue.offerUnsafe(answers, sighting)) return
          recorded.delete(key)
          recorded.set(key, fetched.storedAt)
          if (recorded.size > remembered) recorded.delete(recorded.keys().next().value!)
        })

      return SportsProvider.of({
        ...underlying,
        odds: (eventId) => Effect.tap(underlying.odds(eventId), (fetched) => record(false)(eventId, fetched)),
        liveOdds: (eventId) => Effect.tap(underlying.liveOdds(eventId), (fetched) => record(true)(eventId, fetched))
      })
    })
  )
