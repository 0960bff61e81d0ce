import { Effect, Schedule } from "effect"

/**
 * Options for `layer(...)` in tests that talk to real PostgreSQL, sockets
 * and processes: they run on the real clock, since time-outs, retries and
 * polling must actually elapse.
 */
export const live = { excludeTestServices: true } as const

/**
 * Reads until `holds` is true, for what happens on its own time (a schedule,
 * another process); a defect naming `what` after ~20 s. That bound is only
 * reached when something is wrong, or the machine is loaded far past what a
 * run needs: a test waits for the event, never for a fixed time.
 */
export const eventually = <A, E, R>(
  read: Effect.Effect<A, E, R>,
  holds: (a: A) => boolean,
  what = "the expected state"
) =>
  read.pipe(
    Effect.filterOrFail(holds, () => `never reached ${what}`),
    Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 400 }),
    Effect.orDie
  )
