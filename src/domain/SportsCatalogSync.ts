import { Result, Schema } from "effect"
import type { Page, PageRequest } from "./Paging.ts"
import type { EventQuery, ListQuery } from "./SportsCatalogQuery.ts"

/**
 * Reading the catalog's lists and feeds since a position of the live
 * stream's change log (`?since=`): what changed after it, and where to go
 * on from. Every record of the catalog carries the position at which a
 * publish last changed it, one of its own, drawn in commit order (sql/0042),
 * so "changed after n" is "stamped above n", and a page of changes in
 * position order ends at a position nothing unread lies below. Pure.
 */

/** The records a since read covers, each kind a list of its own. */
export type RecordKind = "sport" | "country" | "league" | "team" | "event"

/** The order a publish's records take their positions in: kind by kind, then by id as text. */
export const recordKinds: ReadonlyArray<RecordKind> = ["sport", "country", "league", "team", "event"]

/** An event's place in the feeds: the one it is listed in, or none (ended, no longer listed by the provider). */
export type Listing = "prematch" | "live" | "none"

/** An event's listing from its stored facts, as the feeds select open events. */
export const listingOf = (event: { readonly active: boolean; readonly status: string }): Listing =>
  event.active && (event.status === "prematch" || event.status === "live") ? event.status : "none"

/**
 * What a record knows of its last change: its position, and for an event its listing then and the position at which
 * the listing last moved (0: never since it came).
 */
export interface RecordPosition {
  readonly position: number
  readonly listing: Listing | null
  readonly movedAt: number
}

/** The record's position after a change at `position`: the listing's move is kept, or moved to now. */
export const restamped = (
  previous: RecordPosition | undefined,
  position: number,
  listing: Listing | null
): RecordPosition => ({
  position,
  listing,
  movedAt: previous === undefined ? 0 : previous.listing === listing ? previous.movedAt : position
})

/**
 * Which records a since read answers: every one changed after the since whose league, country, sport and teams meet
 * the filters (the filters of what a record is, read on its data now, as the stream's are); each is listed, or
 * removed when the rest of the query (its search, `active`, `has_odds`, days, and for a feed being open in it) now
 * leaves it out, as a change may have. A feed's event not open in it is answered only when its listing moved after
 * the since (it may have been in the feed then): an event in play changes every minute, and a pre-match feed need
 * not hear of it each time.
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

/** `since` when the catalog can answer what changed after it (from the floor to the head, both included). */
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
