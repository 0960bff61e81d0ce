import { Duration } from "effect"

/**
 * The rules of an event's statistics samples (StatSamplesRepo keeps them): a provider that answers its statistics
 * as running totals (API-Football) is sampled each time a live fixture is read, and the samples, one per minute of
 * the match, show how the statistics moved. What the provider sends is not ours to fail on: a sample or a statistic
 * outside the bounds is left out, never refused.
 */

/** One sample: the statistics' totals at a minute of the match. */
export interface StatSample {
  readonly minute: number
  readonly stats: Readonly<Record<string, number>>
  readonly sampledAt: Date
}

/** The minutes a sample may have (extra time and stoppages included); one sample per minute. */
export const firstMinute = 0
export const lastMinute = 200
/** The most samples an answer carries (the minutes bound what is kept to one more: see samplesAnswered). */
export const maxSamples = 200
/** The most statistics a sample keeps, and the longest name of one (in characters). */
export const maxStats = 32
export const maxStatNameLength = 64
/** The longest provider name and event id a sample is kept for (in characters). */
export const maxProviderLength = 32
export const maxEventIdLength = 64
/** How long samples are kept: older ones are pruned. */
export const samplesKeptFor = Duration.days(30)

const lengthOf = (text: string) => [...text].length

/** A provider and event id samples can be kept for: neither empty nor longer than its bound. */
export const isEventKey = (provider: string, eventId: string) =>
  provider.length > 0 && lengthOf(provider) <= maxProviderLength &&
  eventId.length > 0 && lengthOf(eventId) <= maxEventIdLength

/**
 * The statistics a sample keeps: those named by 1 to 64 characters whose value is a safe integer ≥ 0, the first 32
 * of them by name (so every sample of an event keeps the same ones, whatever order the provider sends them in).
 */
export const statsToKeep = (stats: Readonly<Record<string, unknown>>): Readonly<Record<string, number>> =>
  Object.fromEntries(
    Object.entries(stats)
      .filter((entry): entry is [string, number] => {
        const [name, value] = entry
        return name.length > 0 && lengthOf(name) <= maxStatNameLength && Number.isSafeInteger(value) &&
          (value as number) >= 0
      })
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, maxStats)
      .map(([name, value]) => [name, value === 0 ? 0 : value]) // -0 is 0, as JSON writes it
  )

/**
 * The sample as kept, or null when it is not kept at all: its event's ids out of bounds, its minute not an integer
 * from 0 to 200, its time not a valid date.
 */
export const sampleToKeep = (provider: string, eventId: string, sample: StatSample): StatSample | null =>
  isEventKey(provider, eventId) && Number.isInteger(sample.minute) && sample.minute >= firstMinute &&
    sample.minute <= lastMinute && sample.sampledAt instanceof Date && !Number.isNaN(sample.sampledAt.getTime())
    ? { minute: sample.minute, stats: statsToKeep(sample.stats), sampledAt: new Date(sample.sampledAt.getTime()) }
    : null

/**
 * Whether `incoming` replaces the sample kept for its minute: only a later one does, so a sample arriving late
 * (another instance's, a slow fetch's) never undoes a newer one; an equal time keeps what is there.
 */
export const replaces = (kept: StatSample, incoming: StatSample) =>
  incoming.sampledAt.getTime() > kept.sampledAt.getTime()

/**
 * An event's samples as answered: by minute ascending, at most 200 of them. The minutes 0 to 200 allow one more:
 * then the latest 200 minutes are answered, as the end of the match says more than its kick-off.
 */
export const samplesAnswered = (samples: ReadonlyArray<StatSample>): ReadonlyArray<StatSample> =>
  [...samples].sort((a, b) => a.minute - b.minute).slice(-maxSamples)
