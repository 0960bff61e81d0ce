import { Context, type Effect, type Scope } from "effect"
import type { Page, PageRequest } from "../../domain/Paging.ts"
import type {
  CountryRecord,
  FeedEvent,
  NamedRecord,
  PublishReport,
  Snapshot,
  SportRecord,
  SportsCatalogOverview
} from "../../domain/SportsCatalog.ts"
import type { EventQuery, FeedOrder, ListQuery } from "../../domain/SportsCatalogQuery.ts"

/** NOTIFY channel: the sports catalog changed (a refresh), from any instance. */
export const sportsCatalogChangedChannel = "partner_api_sports_catalog_changed"

/**
 * The local sports catalog's tables (sports_sports, sports_countries,
 * sports_leagues, sports_teams, sports_team_leagues, sports_events): the
 * only code that reads or writes them. Queries come already read by the
 * rules (SportsCatalogQuery); answers are decoded domain values. Database
 * failures are defects here: callers cannot act on them.
 *
 * Implementations: SportsCatalogRepoSql (PostgreSQL), SportsCatalogRepoMemory (tests).
 */
export class SportsCatalogRepo extends Context.Service<SportsCatalogRepo, {
  /** A page of the open events `query` selects, in `order`; ties in kick-off order, then by id. */
  feedPage(query: EventQuery, order: FeedOrder, page: PageRequest): Effect.Effect<ReadonlyArray<FeedEvent>>
  /** How many open events `query` selects. */
  feedTotal(query: EventQuery): Effect.Effect<number>
  /** The sports of the events `query` selects. */
  eventSportIds(query: EventQuery): Effect.Effect<ReadonlyArray<number>>
  /** Their countries' codes. */
  eventCountryCodes(query: EventQuery): Effect.Effect<ReadonlyArray<string>>
  /** The names of their leagues (as the league records carry them). */
  eventLeagueNames(query: EventQuery): Effect.Effect<ReadonlyArray<string>>
  /** The names of the teams playing them, home or away. */
  eventTeamNames(query: EventQuery): Effect.Effect<ReadonlyArray<string>>
  /** Lists in name order (natural, case aside), then by id. */
  sports(query: ListQuery, page: PageRequest): Effect.Effect<Page<SportRecord>>
  countries(query: ListQuery, page: PageRequest): Effect.Effect<Page<CountryRecord>>
  leagues(query: ListQuery, page: PageRequest): Effect.Effect<Page<NamedRecord>>
  teams(query: ListQuery, page: PageRequest): Effect.Effect<Page<NamedRecord>>
  readonly overview: Effect.Effect<SportsCatalogOverview>
  /** No event at all: the catalog was never filled. */
  readonly isEmpty: Effect.Effect<boolean>
  /**
   * Publishes a snapshot, all or nothing, taking turns with every other publish (any instance).
   * Unchanged rows are not rewritten; what the scope covered but the snapshot no longer lists goes
   * inactive. A change is announced on sportsCatalogChangedChannel once it is visible.
   */
  publish(snapshot: Snapshot): Effect.Effect<PublishReport>
  /** Runs `run` after each change published (by any instance), for as long as the scope lives. */
  onChange(run: Effect.Effect<void>): Effect.Effect<void, never, Scope.Scope>
}>()("partner-api/catalog/SportsCatalogRepo") {}
