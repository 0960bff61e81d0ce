/**
 * The query values the provider endpoints (./Sports.ts) take: each read one documented way, a value that cannot be
 * read a 422 naming its field.
 */
import { Schema, SchemaGetter } from "effect"
import { oddsFormats, OddsValue } from "../domain/OddsFormat.ts"
import { timeZoneNamed } from "../domain/ZoneDays.ts"
import { integerQuery, PageQuery } from "./Paging.ts"

/** A sport id from the query string (BetsAPI's: 1 soccer, 18 basketball, 13 tennis), plain decimal digits. */
export const SportIdQuery = integerQuery({
  minimum: 1,
  maximum: 2_147_483_647,
  description: "Sport id: 1 soccer, 18 basketball, 13 tennis, 17 ice hockey, ... (default 1)",
  example: 1
})

/** `YYYYMMDD` (the provider's form) or `YYYY-MM-DD`, a real calendar day; decoded to `YYYYMMDD`. */
export const DayQuery = Schema.String.annotate({
  description: "A day, YYYYMMDD or YYYY-MM-DD: UTC, or in `timezone` when given",
  examples: ["2026-11-22"]
}).pipe(
  Schema.decodeTo(
    Schema.String.check(
      Schema.makeFilter((day: string) => {
        const match = /^(\d{4})(\d{2})(\d{2})$/.exec(day)
        if (match === null) return false
        const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])))
        return date.getUTCFullYear() === Number(match[1]) && date.getUTCMonth() === Number(match[2]) - 1 &&
          date.getUTCDate() === Number(match[3])
      }, { message: "The :attribute field must be a day as YYYYMMDD or YYYY-MM-DD." })
    ),
    {
      decode: SchemaGetter.transform((raw: string) => raw.trim().replace(/^(\d{4})-(\d{2})-(\d{2})$/, "$1$2$3")),
      encode: SchemaGetter.transform((day: string) => day)
    }
  )
)

/** An IANA time zone name, any case; decoded to the runtime's spelling of it (`asia/tokyo` is Asia/Tokyo). */
export const TimeZoneQuery = Schema.String.annotate({
  description: "The IANA time zone `day` (or `date`) is cut in, by kick-off time (default UTC); times stay UTC",
  examples: ["America/Sao_Paulo"]
}).pipe(
  Schema.decodeTo(
    Schema.String.check(
      Schema.makeFilter((zone: string) => timeZoneNamed(zone) !== undefined, {
        message: "The :attribute field must be an IANA time zone name, like America/Sao_Paulo or Asia/Tokyo."
      })
    ),
    {
      decode: SchemaGetter.transform((raw: string) => timeZoneNamed(raw.trim()) ?? raw.trim()),
      encode: SchemaGetter.transform((zone: string) => zone)
    }
  )
)

export const IncludeRawQuery = Schema.Literals(["true", "false", "1", "0"]).annotate({
  message: "The :attribute field must be true or false.",
  description: "true: also answer the provider's raw payload in provider_response"
})

export const rawQuery = { include_raw: Schema.optional(IncludeRawQuery) }

/** How an odds answer writes its prices; `decimal`, the providers' own, unless asked. */
export const OddsFormatQuery = Schema.Literals(oddsFormats).annotate({
  message: "The selected :attribute is invalid. Use decimal, american, fractional or probability.",
  description: "How prices are written: decimal (default, 2.5), american (150: +150; -200), fractional " +
    "(\"3/2\") or probability (implied, 0.4). The answer's Odds-Format header echoes it."
})

/** The query parameter of every odds answer: spread it into the endpoint's query. */
export const oddsFormatQuery = { odds_format: Schema.optional(OddsFormatQuery) }

/** The header every odds answer names its format in (sent as `odds-format`: HTTP header names are case-blind). */
export const oddsFormatHeader = "Odds-Format"

/** A price as `odds_format` writes it: the schema of every odds answer's `value`. */
export { OddsValue }

export const listQuery = { sport_id: Schema.optional(SportIdQuery), page: Schema.optional(PageQuery), ...rawQuery }

/** A list of a day's events: `day` cut in `timezone`. */
export const dayListQuery = {
  ...listQuery,
  day: Schema.optional(DayQuery),
  timezone: Schema.optional(TimeZoneQuery),
  league_id: Schema.optional(Schema.String.annotate({ examples: ["155"] }))
}
