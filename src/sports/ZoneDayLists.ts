import { Effect, Schema } from "effect"
import { slicePage } from "../domain/Paging.ts"
import type { Page, SportsEvent } from "../domain/Sports.ts"
import { dayIn, eventsOfDay, isUtcDay, utcDaysOf, utcZone } from "../domain/ZoneDays.ts"
import type { Fetched, ListQuery } from "./SportsProvider.ts"

/**
 * A provider's day lists (upcoming, ended) cut in a partner's time zone. Providers list by UTC day, so a zone's day
 * is read from the UTC days it overlaps (two for most zones), every page of each, filtered to the kick-offs within
 * it, and paged again here, 50 a page, with its exact total: paging stays honest (no page skips or repeats an event,
 * `total` counts the zone's day) at the cost of reading the UTC days whole, page by page as each provider pages
 * (cached and shared as every answer is). Without `timeZone`, or in a zone at UTC+0 that day, the provider's own
 * list and pages, as before.
 */

/** The pages of one UTC day read at most: a list longer than this asks the partner to narrow it. */
export const maxPagesPerUtcDay = 100

/** A zone's day is paged as the provider lists page theirs. */
const perPage = 50

/** A zone's day the provider lists more of than maxPagesPerUtcDay pages a UTC day: a 422 naming `timezone`. */
export class ZoneDayTooLarge extends Schema.TaggedError<ZoneDayTooLarge>()("ZoneDayTooLarge", {
  message: Schema.String
}) {}

/** A day list's query, its day (if any) cut in `timeZone` (an IANA name the contract checked; UTC when none). */
export interface ZoneDayQuery extends ListQuery {
  readonly timeZone?: string | undefined
}

type DayList<E> = (query: ListQuery) => Effect.Effect<Fetched<Page<SportsEvent>>, E>

/** Every page of one UTC day's list: the first says how many there are. */
const wholeDay = Effect.fnUntraced(function*<E>(list: DayList<E>, query: ListQuery) {
  const first = yield* list({ ...query, page: 1 })
  const pages = first.value.perPage > 0 && first.value.results.length > 0
    ? Math.ceil(first.value.total / first.value.perPage)
    : 1
  if (pages > maxPagesPerUtcDay) {
    return yield* new ZoneDayTooLarge({
      message:
        `The sports provider lists more than ${
          (maxPagesPerUtcDay * first.value.perPage).toLocaleString("en-US")
        } events on ${query.day} (UTC), which this day in your time zone overlaps: narrow it with league_id, or ask ` +
        "without timezone (UTC days, paged as the provider pages them)."
    })
  }
  const rest = yield* Effect.forEach(
    Array.from({ length: pages - 1 }, (_, i) => i + 2),
    (page) => list({ ...query, page }),
    { concurrency: 2 }
  )
  return [first, ...rest]
})

/**
 * `list` (a provider's upcoming or ended) for `query`, its day cut in its time zone: the answer's raw payload is then
 * every provider answer read, in order, and its age that of the oldest.
 */
export const zoneDayList = Effect.fnUntraced(function*<E>(
  list: DayList<E>,
  query: ZoneDayQuery
): Effect.fn.Return<Fetched<Page<SportsEvent>>, E | ZoneDayTooLarge> {
  const { timeZone, ...asked } = query
  if (asked.day === undefined || timeZone === undefined || timeZone === utcZone) return yield* list(asked)
  const window = dayIn(asked.day, timeZone)
  if (isUtcDay(window)) return yield* list(asked)
  const read = (yield* Effect.forEach(utcDaysOf(window), (day) => wholeDay(list, { ...asked, day }))).flat()
  const oldest = read.reduce((a, b) => (b.storedAt < a.storedAt ? b : a))
  return {
    value: slicePage({ page: asked.page, perPage }, eventsOfDay(read.map((fetched) => fetched.value.results), window)),
    raw: read.map((fetched) => fetched.raw),
    storedAt: oldest.storedAt,
    origin: oldest.origin
  }
})
