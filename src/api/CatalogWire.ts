/**
 * The catalog's answers on the wire (their contract is ./Catalog.ts): the lists' and feeds' entries and their `meta`.
 */
import { Schema } from "effect"
import {
  CountryRecord,
  FeedEntry,
  LiveFeedEntry,
  NamedEntry,
  SportRecord,
  SportsCatalogOverview
} from "../domain/SportsCatalog.ts"
import { SportsCatalogFilters } from "../domain/SportsCatalogQuery.ts"
import { IsoDate } from "./Envelope.ts"
import { PageMeta } from "./Paging.ts"

/** The `meta` of the catalog's lists and feeds: the page's, and the position to go on from. */
export const SyncMeta = Schema.Struct({
  ...PageMeta.fields,
  next_since: Schema.Int.annotate({
    description: "The position of the change log this answer goes on from: send it as `since` for what changed " +
      "after it (with `since`, walk a long answer this way, page 1 each time). The live stream's ids are the same " +
      "positions.",
    examples: [1048576]
  })
})

/** An entry's mark in an answer to `since`. */
export const Removed = Schema.optionalKey(Schema.Boolean.annotate({
  description: "Only with `since`: true when the record changed so that it is no longer in the list as asked " +
    "(ended, no longer listed, filtered out): drop it; false otherwise"
}))

/** The `data` of a list: `results` and `meta`. */
export const listData = <Entry extends Schema.Top>(entry: Entry) =>
  Schema.Struct({ results: Schema.Array(entry), meta: SyncMeta })

// The wire's entries are the domain's, keys in snake_case and dates as ISO strings: each codec below
// encodes what the catalog answers, and the contract declares its encoded side (the typed client reads that).

const feedKeys = {
  id: "event_id",
  sportId: "sport_id",
  leagueId: "league_id",
  leagueName: "league_name",
  homeName: "home_name",
  awayName: "away_name",
  startsAt: "starts_at",
  hasOdds: "has_odds",
  lastUpdate: "last_update"
} as const

/** The query's filters as the catalog takes them (the query's other keys, paging and sort, are left out). */
export const FiltersCodec = SportsCatalogFilters.pipe(Schema.encodeKeys({
  sport: "sport_id",
  leagueId: "league_id",
  teamId: "team_id",
  hasOdds: "has_odds",
  dateFrom: "date_from",
  dateTo: "date_to",
  timeZone: "timezone"
}))

/** Where a feed's event is in its life cycle: what tells a partner why an entry left a feed (`removed`). */
const feedLifeCycle = {
  status: FeedEntry.fields.status.annotate({
    description: "In the life cycle's words, as on the provider's event endpoints and the change stream: scheduled " +
      "(every entry of the prematch feed), live (every entry of the live feed), final, postponed, cancelled, " +
      "abandoned or suspended (an entry that left, `removed`). An event the provider stopped listing keeps the last " +
      "status the catalog had of it."
  }),
  reason: FeedEntry.fields.reason.annotate({
    description: "Why it has its status, where the provider said so: its own code (API-Football's PST, BetsAPI's " +
      "time_status 4) and words (Match Postponed); the service's own code is overdue. Null otherwise."
  })
}

export const PrematchEntryCodec = Schema.Struct({
  ...FeedEntry.fields,
  startsAt: IsoDate,
  lastUpdate: IsoDate,
  ...feedLifeCycle,
  removed: Removed
}).pipe(Schema.encodeKeys(feedKeys))

export const LiveEntryCodec = Schema.Struct({
  ...LiveFeedEntry.fields,
  startsAt: IsoDate,
  lastUpdate: IsoDate,
  ...feedLifeCycle,
  minute: LiveFeedEntry.fields.minute.annotate({
    description: "The match clock where the sport has one; otherwise whole minutes since the start (0 before it)"
  }),
  removed: Removed
}).pipe(Schema.encodeKeys(feedKeys))

export const NamedEntryCodec = Schema.Struct({ ...NamedEntry.fields, removed: Removed }).pipe(
  Schema.encodeKeys({ countryCode: "country_code", sportId: "sport_id" })
)
export const SportEntryCodec = Schema.Struct({ ...SportRecord.fields, removed: Removed })
export const CountryEntryCodec = Schema.Struct({ ...CountryRecord.fields, removed: Removed })

export const OverviewCodec = SportsCatalogOverview.pipe(Schema.encodeKeys({
  sports: "sports_total",
  countries: "countries_total",
  leagues: "leagues_total",
  teams: "teams_total",
  events: "events_total"
}))

export const PrematchEntry = Schema.toEncoded(PrematchEntryCodec)
export const LiveEntry = Schema.toEncoded(LiveEntryCodec)
/** The feeds' `data`, for the handlers that write their answers once per value (src/api/Envelope.ts). */
export const PrematchFeedData = listData(PrematchEntry)
export const LiveFeedData = listData(LiveEntry)
/** The dynamic filters' `data`. */
export const FiltersData = Schema.Struct({
  source: Schema.String,
  sports: Schema.Array(Schema.String),
  countries: Schema.Array(Schema.String),
  leagues: Schema.Array(Schema.String),
  teams: Schema.Array(Schema.String)
})
