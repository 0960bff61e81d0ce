import { Duration } from "effect"

/**
 * How many certification runs a partner may start, and how long a run is kept. A run sends a few hundred callbacks
 * to the partner's test wallet and keeps each exchange, so the partner's own starts are counted in a rolling hour
 * (every run counts, the operators' too, though only the partner's are refused), and runs past their keeping are
 * pruned with their cases.
 */

/** The rolling window the runs a partner starts are counted in. */
export const runsWindow = Duration.hours(1)

/** How long a run is kept: older ones are pruned, but for each partner's latest verdict on its own wallet (its live token's gate). */
export const runsKeptFor = Duration.days(90)

/**
 * When the partner's next run may start, from the starts of its runs in the window before `now`: null, now (fewer
 * than `perHour` of them); else when enough of the oldest have left the window.
 */
export const nextRunAt = (starts: ReadonlyArray<Date>, perHour: number, now: Date): Date | null => {
  const from = now.getTime() - Duration.toMillis(runsWindow)
  const recent = starts.map((start) => start.getTime()).filter((start) => start > from).sort((a, b) => a - b)
  if (recent.length < perHour) return null
  return new Date(recent[recent.length - perHour] + Duration.toMillis(runsWindow))
}

/** Whole seconds until `at`, at least 1: what Retry-After says. */
export const secondsUntil = (at: Date, now: Date) => Math.max(1, Math.ceil((at.getTime() - now.getTime()) / 1000))

/** `19:42 UTC`: the time of day `at` is, in UTC, to the minute. */
const utcTime = (at: Date) => `${at.toISOString().slice(11, 16)} UTC`

/** A refused start in words: the limit, and when the next run may start (a UTC time and minutes from now). */
export const runsLimitMessage = (perHour: number, nextAt: Date, now: Date) => {
  const minutes = Math.max(1, Math.ceil((nextAt.getTime() - now.getTime()) / 60_000))
  return `A partner may start ${perHour} wallet certification run${perHour === 1 ? "" : "s"} in any hour, and ` +
    `${perHour === 1 ? "one was" : `${perHour} were`} started in the last hour: the next may start at ` +
    `${utcTime(nextAt)} (in ${minutes} minute${minutes === 1 ? "" : "s"}).`
}
