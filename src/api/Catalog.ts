import { Schema, SchemaGetter } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "./Envelope.ts"
import { InternalError } from "./Errors.ts"
import { PageMeta, PageQuery, PerPageQuery } from "./Paging.ts"
import { RequestValidation } from "./RequestValidation.ts"
import { DayQuery } from "./Sports.ts"

// Query values the contract leaves open get one documented reading each; a
// value that cannot be read is a 422 naming the field, never ignored.

const truthy = ["true", "1", "yes", "on"]
const falsy = ["false", "0", "no", "off"]

/** `true`/`false`, `1`/`0`, `yes`/`no`, `on`/`off`, any case. */
export const BooleanQuery = Schema.String.pipe(
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
).annotate({ description: "true or false (also 1/0, yes/no)" })

/** A sport by its id (1 soccer, 18 basketball, 13 tennis, ...) or its name, any case. */
export const SportRef = Schema.String.annotate({ description: "Sport id (1 soccer, 18 basketball, 13 tennis) or name" })

export const SourceQuery = Schema.Literals(["prematch", "live"]).annotate({
  message: "The selected :attribute is invalid. Use prematch or live."
})

const listQuery = {
  search: Schema.optional(Schema.String),
  page: Schema.optional(PageQuery),
  per_page: Schema.optional(PerPageQuery),
  active: Schema.optional(BooleanQuery),
  sport_id: Schema.optional(SportRef),
  country: Schema.optional(Schema.String.annotate({ description: "Country code (br) or name (Brazil)" })),
  league_id: Schema.optional(Schema.String),
  team_id: Schema.optional(Schema.String)
}

export const feedFilters = {
  sport_id: Schema.optional(SportRef),
  country: Schema.optional(Schema.String.annotate({ description: "Country code (br) or name (Brazil)" })),
  league_id: Schema.optional(Schema.String),
  team_id: Schema.optional(Schema.String.annotate({ description: "Events where the team plays home or away" })),
  search: Schema.optional(Schema.String.annotate({ description: "Case-insensitive, over league and team names" })),
  has_odds: Schema.optional(BooleanQuery),
  date: Schema.optional(DayQuery),
  date_from: Schema.optional(DayQuery),
  date_to: Schema.optional(DayQuery)
}

const feedQuery = {
  ...feedFilters,
  page: Schema.optional(PageQuery),
  per_page: Schema.optional(PerPageQuery),
  sort_by: Schema.optional(Schema.String.annotate({
    description: "time (default), league_name, home_name, away_name or last_update; anything else means time"
  })),
  sort_direction: Schema.optional(Schema.String.annotate({
    description: "asc (default) or desc; anything else means asc"
  }))
}

/** The refresh body; every field optional, and the body itself too. */
export const RefreshRequest = Schema.Struct({
  sport_id: Schema.optionalKey(Schema.NullOr(Schema.Union([Schema.Int, Schema.String])).annotate({
    message: "The :attribute field must be an integer or a string."
  })),
  import_leagues: Schema.optionalKey(Schema.Boolean),
  import_events: Schema.optionalKey(Schema.Boolean)
}).annotate({ identifier: "CatalogRefreshRequest" })
export type RefreshRequest = typeof RefreshRequest.Type

const Imported = Schema.Struct({
  sports: Schema.Int,
  countries: Schema.Int,
  leagues: Schema.Int,
  teams: Schema.Int,
  events: Schema.Int,
  deactivated: Schema.Int
})

const list = <Entry extends Schema.Top>(identifier: string, entry: Entry) =>
  Envelope(identifier, Schema.Struct({ results: Schema.Array(entry), meta: PageMeta }))

const NamedRef = {
  id: Schema.String,
  name: Schema.String,
  country: Schema.NullOr(Schema.String),
  country_code: Schema.NullOr(Schema.String),
  sport_id: Schema.Int,
  active: Schema.Boolean
}

export const PrematchEntry = Schema.Struct({
  event_id: Schema.String,
  sport_id: Schema.Int,
  country: Schema.NullOr(Schema.String),
  league_id: Schema.String,
  league_name: Schema.String,
  home_name: Schema.String,
  away_name: Schema.String,
  starts_at: Schema.String,
  has_odds: Schema.Boolean,
  last_update: Schema.String
})

export const LiveEntry = Schema.Struct({
  ...PrematchEntry.fields,
  score: Schema.String,
  minute: Schema.Int.annotate({
    description: "The match clock where the sport has one; otherwise whole minutes since the start (0 before it)"
  })
})

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
        })
      ),
      error: InternalError
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "Refresh the local catalog from the sports provider",
      description: "All or nothing: a refresh that fails leaves the previous catalog as it was."
    }))
  )
  .add(
    HttpApiEndpoint.get("overview", "/sports/catalog/overview", {
      success: Envelope(
        "CatalogOverviewResponse",
        Schema.Struct({
          sports_total: Schema.Int,
          countries_total: Schema.Int,
          leagues_total: Schema.Int,
          teams_total: Schema.Int,
          events_total: Schema.Int
        })
      )
    })
  )
  .add(
    HttpApiEndpoint.get("sports", "/sports/catalog/sports", {
      query: listQuery,
      success: list(
        "CatalogSportsResponse",
        Schema.Struct({ id: Schema.Int, name: Schema.String, active: Schema.Boolean })
      )
    }).middleware(RequestValidation)
  )
  .add(
    HttpApiEndpoint.get("countries", "/sports/catalog/countries", {
      query: listQuery,
      success: list(
        "CatalogCountriesResponse",
        Schema.Struct({ name: Schema.String, code: Schema.String, active: Schema.Boolean })
      )
    }).middleware(RequestValidation)
  )
  .add(
    HttpApiEndpoint.get("leagues", "/sports/catalog/leagues", {
      query: listQuery,
      success: list("CatalogLeaguesResponse", Schema.Struct(NamedRef))
    }).middleware(RequestValidation)
  )
  .add(
    HttpApiEndpoint.get("teams", "/sports/catalog/teams", {
      query: listQuery,
      success: list("CatalogTeamsResponse", Schema.Struct(NamedRef))
    }).middleware(RequestValidation)
  )
  .add(
    HttpApiEndpoint.get("filters", "/sports/catalog/filters", {
      query: { source: Schema.optional(SourceQuery), ...feedFilters },
      success: Envelope(
        "CatalogFiltersResponse",
        Schema.Struct({
          source: Schema.String,
          sports: Schema.Array(Schema.String),
          countries: Schema.Array(Schema.String),
          leagues: Schema.Array(Schema.String),
          teams: Schema.Array(Schema.String)
        })
      )
    }).middleware(RequestValidation).annotateMerge(OpenApi.annotations({
      summary: "The filter options still available, given the filters already chosen",
      description: "Each list is narrowed by every chosen filter except its own, so a choice can still be changed."
    }))
  )
  .add(
    HttpApiEndpoint.get("prematch", "/sports/feed/prematch", {
      query: feedQuery,
      success: list("PrematchFeedResponse", PrematchEntry)
    }).middleware(RequestValidation)
  )
  .add(
    HttpApiEndpoint.get("live", "/sports/feed/live", {
      query: feedQuery,
      success: list("LiveFeedResponse", LiveEntry)
    }).middleware(RequestValidation)
  )
{}
