import { Schema } from "effect"
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { Envelope } from "./Envelope.ts"
import { Gone, InternalError } from "./Errors.ts"
import { RequestValidation } from "./RequestValidation.ts"
import { PartnerUpstreams } from "./Security.ts"
import { feedFilters, feedQuery, listQuery, RefreshRequest, sinceQuery, SourceQuery } from "./CatalogQuery.ts"
import {
  CountryEntryCodec,
  FiltersData,
  listData,
  LiveFeedData,
  NamedEntryCodec,
  OverviewCodec,
  PrematchFeedData,
  SportEntryCodec
} from "./CatalogWire.ts"

const Imported = Schema.Struct({
  sports: Schema.Int,
  countries: Schema.Int,
  leagues: Schema.Int,
  teams: Schema.Int,
  events: Schema.Int,
  deactivated: Schema.Int
})

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
