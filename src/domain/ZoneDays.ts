import { DateTime } from "effect"

/**
 * Days as a partner's time zone cuts them: a calendar day in an IANA zone (America/Sao_Paulo, Asia/Tokyo) is the span
 * of instants whose local date is that day, [its first instant, the next day's first instant), 23 to 25 hours where
 * the clocks change. Days are `YYYYMMDD`; instants epoch millis, UTC. The zones' rules are the runtime's (Intl,
 * through effect's DateTime). Pure.
 */

/** A span of instants, [from, before), epoch millis. */
export interface DayWindow {
  readonly from: number
  readonly before: number
}

export const utcZone = "UTC"

const dayMillis = 86_400_000

/** The longest zone name taken (the longest IANA name is about 30 characters). */
const maxZoneName = 64

/**
 * An IANA zone name, any case, as the runtime names it (`america/sao_paulo` is America/Sao_Paulo, `utc` UTC), or
 * undefined: a name the runtime does not know, or an offset (`+03:00`), which is no zone of places.
 */
export const timeZoneNamed = (name: string): string | undefined => {
  if (name.length > maxZoneName || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return undefined
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

const partsOf = (day: string) => ({
  year: Number(day.slice(0, 4)),
  month: Number(day.slice(4, 6)),
  day: Number(day.slice(6, 8))
})

/** Date.UTC's arguments for a day. */
const ymd = (day: string): [number, number, number] => {
  const { day: date, month, year } = partsOf(day)
  return [year, month - 1, date]
}

/** The UTC day (YYYYMMDD) an instant falls on. */
export const utcDayOf = (instant: number): string => new Date(instant).toISOString().slice(0, 10).replaceAll("-", "")

/** The YYYYMMDD day after `day`. */
export const nextDay = (day: string): string => utcDayOf(Date.UTC(...ymd(day)) + dayMillis)

/**
 * The first instant of `day` in `zone` (a name timeZoneNamed gave): its local midnight, or where the clocks skip
 * midnight, the first instant after the gap.
 */
export const dayStartIn = (day: string, zone: string): number =>
  zone === utcZone ? Date.UTC(...ymd(day)) : DateTime.toEpochMillis(
    DateTime.makeZonedUnsafe(partsOf(day), {
      timeZone: DateTime.zoneMakeNamedUnsafe(zone),
      adjustForTimeZone: true,
      disambiguation: "compatible"
    })
  )

/** The instants of `day` in `zone`: kick-offs at or after `from` and before `before` are that day's. */
export const dayIn = (day: string, zone: string): DayWindow => ({
  from: dayStartIn(day, zone),
  before: dayStartIn(nextDay(day), zone)
})

/** The UTC days (YYYYMMDD, in order) a span of instants overlaps: one for a UTC day, two for most zones' days. */
export const utcDaysOf = (window: DayWindow): ReadonlyArray<string> => {
  const days: Array<string> = []
  for (let start = Date.UTC(...ymd(utcDayOf(window.from))); start < window.before; start += dayMillis) {
    days.push(utcDayOf(start))
  }
  return days
}

/** Whether a span is exactly one UTC day (a zone at UTC+0 that day cuts it as UTC does). */
export const isUtcDay = (window: DayWindow): boolean =>
  window.before - window.from === dayMillis && window.from % dayMillis === 0

/**
 * A zone's day read from the lists of the UTC days it overlaps: each event once (by id: a list may repeat one the
 * other has), those kicking off within the day, in kick-off order, then by id.
 */
export const eventsOfDay = <E extends { readonly id: string; readonly startsAt: Date }>(
  lists: ReadonlyArray<ReadonlyArray<E>>,
  window: DayWindow
): ReadonlyArray<E> => {
  const byId = new Map<string, E>()
  for (const list of lists) {
    for (const event of list) {
      const kickOff = event.startsAt.getTime()
      if (kickOff >= window.from && kickOff < window.before && !byId.has(event.id)) byId.set(event.id, event)
    }
  }
  return [...byId.values()].sort((a, b) =>
    a.startsAt.getTime() - b.startsAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  )
}
