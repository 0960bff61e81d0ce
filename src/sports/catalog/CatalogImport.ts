import { Effect } from "effect"
import type { Page } from "../../domain/Paging.ts"
import type { RefreshScope, Snapshot } from "../../domain/SportsCatalog.ts"
import type { SportsEvent } from "../../domain/Sports.ts"
import type { Fetched, SportsProvider, SportsProviderError, UnsupportedSport } from "../SportsProvider.ts"

/** A runaway pager (a provider reporting millions of pages) stops here. */
const maxPages = 5_000

/** Every page of a paged list: the first tells how many there are, the rest come a few at a time. */
const allPages = Effect.fn("SportsCatalogImport.allPages")(function*<A>(
  fetchPageOfAnySport: (page: number) => Effect.Effect<Fetched<Page<A>>, SportsProviderError | UnsupportedSport>
) {
  // The refresh's scope holds only the sports the provider offers (SportsCatalog sees to it): another is a defect.
  const fetchPage = (page: number) => Effect.catchTag(fetchPageOfAnySport(page), "UnsupportedSport", Effect.die)
  const first = yield* fetchPage(1)
  const pageCount = first.value.perPage > 0 && first.value.results.length > 0
    ? Math.min(Math.ceil(first.value.total / first.value.perPage), maxPages)
    : 1
  const rest = yield* Effect.forEach(
    Array.from({ length: Math.max(0, pageCount - 1) }, (_, i) => i + 2),
    fetchPage,
    { concurrency: 8 }
  )
  return [first, ...rest] as ReadonlyArray<Fetched<Page<A>>>
})

/** Days of upcoming events a refresh reads of a provider that lists them day by day (today included). */
const upcomingDaysRead = 3

/**
 * Days of ended events a full refresh reads, by kick-off (today included): a result the provider gives up to 48 hours
 * late (API-Football's competitions without live scores stay NS until then) still becomes final and is streamed.
 */
const endedDaysRead = 3

const itemsOf = <A>(pages: ReadonlyArray<Fetched<Page<A>>>) => pages.flatMap((page) => page.value.results)

const utcDay = (time: number) => new Date(time).toISOString().slice(0, 10).replaceAll("-", "")

/**
 * Fetches the snapshot a refresh will publish: per sport, every page of
 * leagues, and every page of upcoming (a provider that lists them by day: today's and the next two days'), in-play,
 * and ended events (today's; a full refresh also the two days before), so games that finished since the last
 * refresh are closed, late results included.
 * Any failure fails the whole snapshot, so nothing half-fetched is written.
 */
export const fetchSnapshot = Effect.fn("SportsCatalogImport.fetchSnapshot")(function*(
  provider: SportsProvider["Service"],
  scope: RefreshScope,
  now: number
) {
  const perSport = yield* Effect.forEach(
    scope.sportIds,
    Effect.fn("SportsCatalogImport.fetchSport")(function*(sportId: number) {
      const leagues = scope.leagues && !scope.liveOnly
        ? itemsOf(yield* allPages((page) => provider.leagues({ sportId, page })))
        : []
      if (!scope.events) return { leagues, events: [] as ReadonlyArray<Fetched<Page<SportsEvent>>> }
      // A provider whose upcoming list is a day's is asked for today and the days after it, up to upcomingDaysRead.
      const upcomingDays = provider.upcomingByDay
        ? Array.from({ length: upcomingDaysRead }, (_, i) => utcDay(now + i * 86_400_000))
        : [undefined]
      const lists = [
        ...(scope.liveOnly
          ? []
          : upcomingDays.map((day) => (page: number) => provider.upcoming({ sportId, page, day }))),
        (page: number) => provider.live({ sportId, page }),
        ...Array.from(
          { length: scope.liveOnly ? 1 : endedDaysRead },
          (_, i) => (page: number) => provider.ended({ sportId, page, day: utcDay(now - i * 86_400_000) })
        )
      ]
      const events = yield* Effect.forEach(lists, (list) => allPages(list), { concurrency: 2 })
      return { leagues, events: events.flat() }
    }),
    { concurrency: 2 }
  )

  // Later lists win: an event that went from upcoming to in play to ended is kept in its latest state, with
  // when the provider gave the page it was on (the live change stream's updated_at).
  const events = new Map<string, SportsEvent>()
  const answeredAt = new Map<string, number>()
  for (const { events: pages } of perSport) {
    for (const page of pages) {
      for (const event of page.value.results) {
        events.set(event.id, event)
        answeredAt.set(event.id, page.storedAt)
      }
    }
  }
  return {
    provider: provider.name,
    scope,
    leagues: perSport.flatMap(({ leagues }) => leagues),
    events: [...events.values()],
    answeredAt
  } satisfies Snapshot
})
