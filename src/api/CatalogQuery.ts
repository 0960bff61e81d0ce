/**
 * The query values and the refresh body the catalog's endpoints (./Catalog.ts) take.
 */
import { Schema, SchemaGetter } from "effect"
import { integerQuery, PageQuery, PerPageQuery } from "./Paging.ts"
import { DayQuery, TimeZoneQuery } from "./SportsQuery.ts"

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

export const listQuery = {
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
