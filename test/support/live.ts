import { Effect, Schedule } from "effect"

/**
 * Options for `layer(...)` in tests that talk to real PostgreSQL, sockets
 * and processes: they run on the real clock, since time-outs, retries and
 * polling must actually elapse.
 */
export const live = { excludeTestServices: true } as const

/** A value read, as a failure message shows it: JSON (bigints as text), cut short past 2,000 characters. */
const shown = (value: unknown) => {
  let text: string
  try {
    text = JSON.stringify(value, (_key, v) => typeof v === "bigint" ? String(v) : v) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text
}

/**
 * Reads until `holds` is true, for what happens on its own time (a schedule,
 * another process); a defect naming `what` after ~20 s, with what the last
 * read found, so a failure says how far things got. That bound is only
 * reached when something is wrong, or the machine is loaded far past what a
 * run needs: a test waits for the event, never for a fixed time.
 */
export const eventually = <A, E, R>(
  read: Effect.Effect<A, E, R>,
  holds: (a: A) => boolean,
  what = "the expected state"
) =>
  read.pipe(
    Effect.filterOrFail(holds, (last) => `never reached ${what}; the last read found ${shown(last)}`),
    Effect.retry({ schedule: Schedule.spaced("50 millis"), times: 400 }),
    Effect.orDie
  )
