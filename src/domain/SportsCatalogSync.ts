import { Result, Schema } from "effect"
import type { Page, PageRequest } from "./Paging.ts"
import type { EventSource } from "./SportsCatalog.ts"
import type { EventQuery, ListQuery } from "./SportsCatalogQuery.ts"

/**
 * Reading the catalog's lists and feeds since a position of the live
 * stream's change log (`?since=`): what changed after it, and where to go
 * on from. Every record of a list carries the position at which a publish
 * last changed it there, one of its own, drawn in commit order (sql/0044),
 * so "changed after n" is "stamped above n", and a page of changes in
 * position order ends at a position nothing unread lies below. An event is a
 * record of each feed it is or was open in: a change of an event in play is
 * none of the pre-match feed's, the change that takes it out of one is that
 * feed's last. Pure.
 */

/** The lists a since read covers: an event is a record of each feed it is or was open in. */
export type RecordKind = "sport" | "country" | "league" | "team" | EventSource

/** The order a publish's records take their positions in: kind by kind, then by id as text. */
export const recordKinds: ReadonlyArray<Exclude<RecordKind, EventSource>> = ["sport", "country", "league", "team"]
export const feeds: ReadonlyArray<EventSource> = ["prematch", "live"]

/** The feed an event is open in, from its stored facts (as the feeds select events); none: ended, no longer listed. */
export const openFeedOf = (event: { readonly active: boolean; readonly status: string }): EventSource | null =>
  event.active && (event.status === "prematch" || event.status === "live") ? event.status : null

/** A record's position in a list, and for a feed's event whether it was open in the feed then. */
export interface RecordPosition {
  readonly position: number
  readonly listed: boolean | null
}

/**
 * The feeds a changed event's change belongs to: the one it is open in now, and one it was open in at its last
 * position there (it left it). A feed it never was in never hears of it; one it left hears of it once, its last.
 */
export const feedsChanged = (
  openNow: EventSource | null,
  was: (feed: EventSource) => RecordPosition | undefined
): ReadonlyArray<EventSource> => feeds.filter((feed) => openNow === feed || was(feed)?.listed === true)

/** What a publish wrote (new, changed or gone inactive): the records of each list, and the events, by id. */
export type Written = Readonly<Record<Exclude<RecordKind, EventSource> | "event", ReadonlyArray<string>>>

/** The positions a publish draws for what it wrote: one a record, and an event one for each feed it may be a change of. */
export const positionsFor = (written: Written) =>
  recordKinds.reduce((count, kind) => count + written[kind].length, 0) + feeds.length * written.event.length

/**
 * Each written record's position, from `first` on: records kind by kind, ids in order; then each event's, one per
 * feed (one its change is not a change of, feedsChanged, is left unused: a gap, as a rolled-back change leaves).
 */
export const positionsFrom = (written: Written, first: number) => {
  const records = recordKinds.flatMap((kind) => [...written[kind]].sort().map((id) => ({ kind, id })))
    .map((record, i) => ({ ...record, position: first + i }))
  const after = first + records.length
  const events = [...written.event].sort().map((id, i): { readonly id: string } & Record<EventSource, number> => ({
    id,
    prematch: after + i * feeds.length,
    live: after + i * feeds.length + 1
  }))
  return { records, events }
}

/**
 * Which records a since read answers: every one of the list changed after the since whose league, country, sport and
 * teams meet the filters (the filters of what a record is, read on its data now, as the stream's are); each is
 * listed, or removed when the rest of the query (its search, `active`, `has_odds`, days, and for a feed being open in
 * it) now leaves it out, as a change may have.
 */
export const changedEventsOf = (query: EventQuery): EventQuery => ({
  ...query,
  search: null,
  hasOdds: null,
  startsFrom: null,
  startsBefore: null
})

/** The same for a list of sports, countries, leagues or teams: its search and `active` say listed or removed. */
export const changedRecordsOf = (query: ListQuery): ListQuery => ({ ...query, search: null, active: null })

/**
 * Where the change log stands for a since read: its head (the highest position committed), and the lowest position
 * a since may name (the log's floor, or where the catalog's world began when another provider's replaced it).
 */
export interface SyncBounds {
  readonly head: number
  readonly floor: number
}

/** The stream's own words for a position it cannot go on from (its `reset` reasons). */
export const lostReasons = ["expired", "unknown_position"] as const
export type LostReason = (typeof lostReasons)[number]

/** A since the catalog cannot answer from: changes after it are no longer kept, or it is past the log's head. */
export class LostPosition extends Schema.TaggedError<LostPosition>()("LostPosition", {
  reason: Schema.Literals(lostReasons),
  since: Schema.Int,
  message: Schema.String
}) {}

/**
 * `since` when the catalog can answer what changed after it: from the floor to the head, both included, as the stream
 * goes on from a Last-Event-ID (0, the log's start, while nothing is pruned). A page walk from `since` goes on from
 * positions at or above it, so only the floor rising meanwhile (STREAM_RETENTION) cuts one short, as it does a stream.
 */
export const checkedSince = (since: number, bounds: SyncBounds): Result.Result<number, LostPosition> =>
  since < bounds.floor
    ? Result.fail(
      new LostPosition({
        reason: "expired",
        since,
        message: `Changes after since=${since} are no longer kept (they are kept from position ${bounds.floor}): ` +
          "re-read the list without since, then go on from its meta.next_since."
      })
    )
    : since > bounds.head
    ? Result.fail(
      new LostPosition({
        reason: "unknown_position",
        since,
        message: `since=${since} is no position of this change log (its head is ${bounds.head}): ` +
          "re-read the list without since, then go on from its meta.next_since."
      })
    )
    : Result.succeed(since)

/** A record that changed after a since, found by its identity: in the list as asked (`listed`) or not (removed). */
export interface Changed<A> {
  readonly record: A
  readonly position: number
  readonly listed: boolean
}

/** The changes after a since that a page covers, in position order, and how many there are over all pages. */
export interface ChangedPage<A> {
  readonly results: ReadonlyArray<Changed<A>>
  readonly total: number
}

/** An entry of a list as answered: in a since read, `removed` when it is no longer in the list as asked. */
export type Entry<A> = A | (A & { readonly removed: boolean })

/** A page of a list as of a position of the change log: go on from `next` (a since read's `next_since`). */
export interface Synced<A> extends Page<Entry<A>> {
  readonly next: number
}

/**
 * Where to go on from: a full page of changes ends at its last position (the rest follow it, nothing unread lies
 * below it: positions commit in order); a short one at the head read before its rows (a change committed meanwhile
 * is answered again, never skipped).
 */
export const nextSince = (page: PageRequest, changes: ReadonlyArray<{ readonly position: number }>, head: number) =>
  changes.length >= page.perPage ? changes[changes.length - 1].position : head

/** Whether an entry was marked removed (a since read's), or not marked at all. */
const removedOf = <A>(entry: Entry<A>): boolean | undefined =>
  typeof entry === "object" && entry !== null && "removed" in entry && typeof entry.removed === "boolean"
    ? entry.removed
    : undefined

/** Each entry as `entryOf` answers it, its mark kept. */
export const mapEntries = <A, B>(answer: Synced<A>, entryOf: (item: A) => B): Synced<B> => ({
  ...answer,
  results: answer.results.map((item) => {
    const removed = removedOf(item)
    return removed === undefined ? entryOf(item) : { ...entryOf(item), removed }
  })
})

/** A since read's page: each change as an entry, removed when not listed, and where to go on from. */
export const syncedChanges = <A>(
  page: PageRequest,
  changed: ChangedPage<A>,
  head: number
): Synced<A> => ({
  results: changed.results.map(({ listed, record }) => ({ ...record, removed: !listed })),
  page: page.page,
  perPage: page.perPage,
  total: changed.total,
  next: nextSince(page, changed.results, head)
})

/** A whole list's page as of `head` (read before its rows). */
export const syncedPage = <A>(answer: Page<A>, head: number): Synced<A> => ({ ...answer, next: head })
