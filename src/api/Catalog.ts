import { Schema, SchemaGetter } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import {
  CountryRecord,
  FeedEntry,
  LiveFeedEntry,
  NamedEntry,
  SportRecord,
  SportsCatalogOverview
} from "../domain/SportsCatalog.ts"
import { SportsCatalogFilters } from "../domain/SportsCatalogQuery.ts"
import { Envelope, IsoDate } from "./Envelope.ts"
import { Gone, InternalError } from "./Errors.ts"
import { integerQuery, PageMeta, PageQuery, PerPageQuery } from "./Paging.ts"
import { RequestValidation } from "./RequestValidation.ts"
import { DayQuery, TimeZoneQuery } from "./Sports.ts"
import { PartnerUpstreams } from "./Security.ts"

// Query values the contract leaves open get one documented reading each; a
// value that cannot be read is a 422 naming the field, never ignored.

const truthy = ["true", "1", "yes", "on"]
const falsy = ["false", "0", "no", "off"]

/** `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, any case. */
export const BooleanQuery = Schema.String.annotate({
  description: "true or false (also 1/0, yes/no, on/off)",
  examples: ["true"]
}).pipe(
  Schema.decodeTo(
    Schema.Literals(["true", "false"]).annotate({
      message: "The :attribute field must be true or false (also 1/0, yes/no)."
    }),
    {
      decode: SchemaGetter.transform((raw: string) => {
        const value = raw.trim().toLowerCase()
        return (truthy.includes(value) ? "true" : falsy.includes(value) ? "false" : value) as "true" | "false"
      }),
      encode: SchemaGetter.transform((value: string) => value)
    }
  ),
  Schema.decodeTo(Schema.Boolean, {
    decode: SchemaGetter.transform((value: "true" | "false") => value === "true"),
    encode: SchemaGetter.transform((value: boolean) => (value ? "true" : "false") as "true" | "false")
  })
)

/**
 * A sport by its id (1 soccer, 18 basketball, 13 tennis, ...: plain decimal digits, at least 1) or its
 * name in any case (letters, spaces, `.`, `'` and `-`). `0x10` or `1e2` is neither: a 422, not a guess.
 */
export const SportRef = Schema.String.annotate({
  description: "Sport id (1 soccer, 18 basketball, 13 tennis) or name (Soccer, any case)",
  examples: ["1"]
}).check(Schema.makeFilter(
  (raw: string) => /^\d{1,9}$/.test(raw) ? Number(raw) >= 1 : /^\p{L}[\p{L} .'-]*$/u.test(raw),
  { message: "The :attribute field must be a sport id (like 1) or a sport name (like Soccer)." }
))

export const SourceQuery = Schema.Literals(["prematch", "live"]).annotate({
  message: "The selected :attribute is invalid. Use prematch or live."
})

const CountryRef = Schema.String.annotate({
  description:
    "Country code (br) or name (Brazil), any case; a code means every code of its country (en and gb are England)",
  examples: ["br"]
})

const listQuery = {
  search: Schema.optional(
    Schema.String.annotate({ description: "Case-insensitive, any part of the name", examples: ["fla"] })
  ),
  page: Schema.optional(PageQuery),
  per_page: Schema.optional(PerPageQuery),
  active: Schema.optional(BooleanQuery),
  sport_id: Schema.optional(SportRef),
  country: Schema.optional(CountryRef),
  league_id: Schema.optional(Schema.String.annotate({ examples: ["155"] })),
  team_id: Schema.optional(Schema.String.annotate({ examples: ["10305"] }))
}

export const feedFilters = {
  sport_id: Schema.optional(SportRef),
  country: Schema.optional(CountryRef),
  league_id: Schema.optional(Schema.String.annotate({ examples: ["155"] })),
  team_id: Schema.optional(
    Schema.String.annotate({ description: "Events where the team plays home or away", examples: ["10305"] })
  ),
  search: Schema.optional(
    Schema.String.annotate({ description: "Case-insensitive, over league and team names", examples: ["flamengo"] })
  ),
  has_odds: Schema.optional(BooleanQuery),
  date: Schema.optional(DayQuery),
  date_from: Schema.optional(DayQuery),
  date_to: Schema.optional(DayQuery),
  timezone: Schema.optional(TimeZoneQuery)
}

export const feedQuery = {
  ...feedFilters,
  page: Schema.optional(PageQuery),
  per_page: Schema.optional(PerPageQuery),
  sort_by: Schema.optional(Schema.String.annotate({
    description: "time (default), league_name, home_name, away_name or last_update; anything else means time",
    examples: ["time"]
  })),
  sort_direction: Schema.optional(Schema.String.annotate({
    description: "asc (default) or desc; anything else means asc",
    examples: ["asc"]
  }))
}

/**
 * `since`: a position of the change log (the live stream's event ids, a list's `meta.next_since`), decimal digits
 * (at most 15, as a stream's Last-Event-ID). Kept apart from the lists' and feeds' own filters, added to each.
 */
export const SinceQuery = integerQuery({
  minimum: 0,
  maximum: 999_999_999_999_999,
  description: "A position of the change log (a list's meta.next_since, or a stream event's id): answers what " +
    "changed after it, in the order it changed, entries no longer in the list marked removed; 0 is everything " +
    "since the log began.",
  example: 1048576
})

export const sinceQuery = { since: Schema.optional(SinceQuery) }

/** The refresh body; every field optional, and the body itself too. */
export const RefreshRequest = Schema.Struct({
  sport_id: Schema.optionalKey(
    Schema.NullOr(Schema.Union([Schema.Int, Schema.String])).annotate({
      message: "The :attribute field must be an integer or a string."
    })
  ),
  import_leagues: Schema.optionalKey(Schema.Boolean),
  import_events: Schema.optionalKey(Schema.Boolean)
}).annotate({
  identifier: "CatalogRefreshRequest",
  examples: [{ sport_id: 1, import_leagues: true, import_events: true }]
})
export type RefreshRequest = typeof RefreshRequest.Type

const Imported = Schema.Struct({
  sports: Schema.Int,
  countries: Schema.Int,
  leagues: Schema.Int,
  teams: Schema.Int,
  events: Schema.Int,
  deactivated: Schema.Int
})

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
const Removed = Schema.optionalKey(Schema.Boolean.annotate({
  description: "Only with `since`: true when the record changed so that it is no longer in the list as asked " +
    "(ended, no longer listed, filtered out): drop it; false otherwise"
}))

/** The `data` of a list: `results` and `meta`. */
const listData = <Entry extends Schema.Top>(entry: Entry) =>
  Schema.Struct({ results: Schema.Array(entry), meta: SyncMeta })

const listEnvelope = <Entry extends Schema.Top>(
  identifier: string,
  data: ReturnType<typeof listData<Entry>>,
  example: Entry["Encoded"]
) =>
  Envelope(identifier, data, {
    example: { results: [example], meta: { page: 1, per_page: 50, total: 1, next_since: 1048576 } }
  })

const list = <Entry extends Schema.Top>(identifier: string, entry: Entry, example: Entry["Encoded"]) =>
  listEnvelope(identifier, listData(entry), example)

const examplePrematch = {
  event_id: "10150123",
  sport_id: 1,
  country: "Brazil",
  league_id: "155",
  league_name: "Brazil Serie A",
  home_name: "Flamengo",
  away_name: "Palmeiras",
  starts_at: "2026-11-22T19:00:00.000Z",
  has_odds: true,
  last_update: "2026-11-22T18:55:12.000Z",
  status: "scheduled" as const,
  reason: null
}

const exampleLeague = {
  id: "155",
  name: "Brazil Serie A",
  country: "Brazil",
  country_code: "br",
  sport_id: 1,
  active: true
}

const sinceRead = "With `since` (a position of the change log: `meta.next_since`, or a stream event's id), only " +
  "what changed after it, in the order it changed (the sort aside), each entry with `removed` (true: it left the " +
  "list as asked, drop it); go on from `meta.next_since`. A `since` the log no longer covers, or past its head, is " +
  "a 410: re-read without it."
const catalogRead = "Read from the local catalog (see refresh), never from the provider; names sort in name order, " +
  `then by id, so pages never overlap. ${sinceRead}`
const feedRead = "Read from the local catalog. Filters combine; `date`, `date_from` and `date_to` are days " +
  "(YYYY-MM-DD or YYYYMMDD) cut by kick-off time in `timezone` (an IANA name such as America/Sao_Paulo; default " +
  "UTC; `starts_at` and every time stay UTC), `date_to` before `date_from` is a 422, and so is a zone the service " +
  `does not know (naming \`timezone\`). Ties sort in kick-off order, then by id. ${sinceRead}`

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
const NamedRef = Schema.toEncoded(NamedEntryCodec)

export class CatalogGroup extends HttpApiGroup.make("catalog")
  .add(
    HttpApiEndpoint.post("refresh", "/sports/catalog/refresh", {
      // Listed apart, so an empty body reads as null (HttpApi checks for a Null member).
      payload: [RefreshRequest, Schema.Null],
      success: Envelope(
        "CatalogRefreshResponse",
        Schema.Struct({
          sport_id: Schema.NullOr(Schema.Union([Schema.Int, Schema.String])),
          import_leagues: Schema.Boolean,
          import_events: Schema.Boolean,
          message: Schema.String,
          imported: Imported
        }),
        {
          example: {
            sport_id: 1,
            import_leagues: true,
            import_events: true,
            message: "Catalog refreshed.",
            imported: { sports: 1, countries: 12, leagues: 48, teams: 860, events: 1240, deactivated: 3 }
          }
        }
      ),
      error: InternalError
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Refresh the local catalog from the sports provider",
      description: "All or nothing: a refresh that fails leaves the previous catalog as it was. No body (or null) " +
        "refreshes every configured sport; `sport_id` (an id or a name) one. The service also refreshes on a schedule."
    }))
  )
  .add(
    HttpApiEndpoint.get("overview", "/sports/catalog/overview", {
      success: Envelope(
        "CatalogOverviewResponse",
        Schema.toEncoded(OverviewCodec),
        {
          example: { sports_total: 3, countries_total: 24, leagues_total: 96, teams_total: 1720, events_total: 2480 }
        }
      )
    }).annotateMerge(OpenApi.annotations({
      summary: "How much the local catalog holds",
      description: "Counts of sports, countries, leagues, teams and events in the local catalog."
    }))
  )
  .add(
    HttpApiEndpoint.get("sports", "/sports/catalog/sports", {
      query: { ...listQuery, ...sinceQuery },
      success: list("CatalogSportsResponse", SportEntryCodec, { id: 1, name: "Soccer", active: true }),
      error: Gone
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Sports of the local catalog",
      description: `A sport is active while it has open events. ${catalogRead}`
    }))
  )
  .add(
    HttpApiEndpoint.get("countries", "/sports/catalog/countries", {
      query: { ...listQuery, ...sinceQuery },
      success: list("CatalogCountriesResponse", CountryEntryCodec, { name: "Brazil", code: "br", active: true }),
      error: Gone
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Countries of the local catalog",
      description:
        `\`code\` is the provider's (ISO 3166 alpha-2, lowercase, plus a few of BetsAPI's own). ${catalogRead}`
    }))
  )
  .add(
    HttpApiEndpoint.get("leagues", "/sports/catalog/leagues", {
      query: { ...listQuery, ...sinceQuery },
      success: list("CatalogLeaguesResponse", NamedRef, exampleLeague),
      error: Gone
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Leagues of the local catalog",
      description: `\`country\` is null for international competitions. ${catalogRead}`
    }))
  )
  .add(
    HttpApiEndpoint.get("teams", "/sports/catalog/teams", {
      query: { ...listQuery, ...sinceQuery },
      success: list("CatalogTeamsResponse", NamedRef, {
        ...exampleLeague,
        id: "10305",
        name: "Flamengo"
      }),
      error: Gone
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Teams of the local catalog",
      description: `\`league_id\` narrows to the teams that play in the league. ${catalogRead}`
    }))
  )
  .add(
    HttpApiEndpoint.get("filters", "/sports/catalog/filters", {
      query: { source: Schema.optional(SourceQuery), ...feedFilters },
      success: Envelope(
        "CatalogFiltersResponse",
        FiltersData,
        {
          example: {
            source: "prematch",
            sports: ["Basketball", "Soccer"],
            countries: ["Brazil", "Spain"],
            leagues: ["Brazil Serie A", "Liga Primera"],
            teams: ["Flamengo", "Palmeiras"]
          }
        }
      )
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "The filter options still available, given the filters already chosen",
      description: "Each list is narrowed by every chosen filter except its own, so a choice can still be changed."
    }))
  )
  .add(
    HttpApiEndpoint.get("prematch", "/sports/feed/prematch", {
      query: { ...feedQuery, ...sinceQuery },
      success: listEnvelope("PrematchFeedResponse", PrematchFeedData, examplePrematch),
      error: Gone
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Events not started yet, filtered, sorted and paged",
      description: feedRead
    }))
  )
  .add(
    HttpApiEndpoint.get("live", "/sports/feed/live", {
      query: { ...feedQuery, ...sinceQuery },
      success: listEnvelope("LiveFeedResponse", LiveFeedData, {
        ...examplePrematch,
        status: "live",
        score: "1-0",
        minute: 37
      }),
      error: Gone
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Events in play, filtered, sorted and paged",
      description: `The prematch feed's contract, plus \`score\` (home-away) and \`minute\`. ${feedRead}`
    }))
  )
  .middleware(PartnerUpstreams)
  .annotateMerge(OpenApi.annotations({
    description: "The local sports catalog and its feeds: fast, filterable reads refreshed from the provider."
  }))
{}
