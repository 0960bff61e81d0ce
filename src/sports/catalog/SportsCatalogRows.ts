/**
 * The sports catalog's rows as its statements read them (SportsCatalogRepo.layerSql and its since reads), each
 * decoded once by Schema into the domain's own shapes. Nothing else imports it.
 */
import { Schema } from "effect"
import {
  CountryRecord,
  FeedEvent,
  NamedRecord,
  SportRecord,
  SportsCatalogOverview
} from "../../domain/SportsCatalog.ts"
import type { Changed } from "../../domain/SportsCatalogSync.ts"
import { rowsOf } from "../../platform/SqlRows.ts"

const feedColumns = {
  sportId: "sport_id",
  countryCode: "country_code",
  leagueId: "league_id",
  leagueName: "league_name",
  homeName: "home_name",
  awayName: "away_name",
  startsAt: "starts_at",
  hasOdds: "has_odds",
  lastUpdate: "last_update"
} as const
const FeedRow = FeedEvent.pipe(Schema.encodeKeys(feedColumns))
const NamedRow = NamedRecord.pipe(Schema.encodeKeys({ countryCode: "country_code", sportId: "sport_id" }))
/** A record of a since read: the record's own fields, its position and whether it is listed (sql/0044). */
const Position = Schema.NumberFromString.check(Schema.isInt())
const changeFields = { position: Position, listed: Schema.Boolean }
const ChangedFeedRow = Schema.Struct({ ...FeedEvent.fields, ...changeFields }).pipe(Schema.encodeKeys(feedColumns))
const ChangedNamedRow = Schema.Struct({ ...NamedRecord.fields, ...changeFields }).pipe(
  Schema.encodeKeys({ countryCode: "country_code", sportId: "sport_id" })
)
/** A statement's rows decoded by `Result` (SqlSchema); the statement is built from a query the rules already read. */
export const feedRows = rowsOf(FeedRow)
export const namedRows = rowsOf(NamedRow)
export const sportRows = rowsOf(SportRecord)
export const countryRows = rowsOf(CountryRecord)
export const totalRows = rowsOf(Schema.Struct({ total: Schema.Int }))
export const keptTotalRows = rowsOf(Schema.Struct({ total: Schema.NullOr(Schema.Int) }))
export const sportIdRows = rowsOf(Schema.Struct({ id: Schema.Int }))
export const textRows = rowsOf(Schema.Struct({ value: Schema.String }))
export const overviewRows = rowsOf(SportsCatalogOverview)
export const emptyRows = rowsOf(Schema.Struct({ empty: Schema.Boolean }))
export const changedFeedRows = rowsOf(ChangedFeedRow)
export const changedNamedRows = rowsOf(ChangedNamedRow)
export const changedSportRows = rowsOf(Schema.Struct({ ...SportRecord.fields, ...changeFields }))
export const changedCountryRows = rowsOf(Schema.Struct({ ...CountryRecord.fields, ...changeFields }))
export const sinceFloorRows = rowsOf(Schema.Struct({ floor: Position }))

/** A since read's row as the domain takes it: the record, its position, listed or not. */
export const changedOf = <A extends { readonly position: number; readonly listed: boolean }>(
  { listed, position, ...record }: A
): Changed<Omit<A, "position" | "listed">> => ({ record, position, listed })
