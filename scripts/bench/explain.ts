/**
 * PostgreSQL's own time for a catalog read: the statements the catalog's
 * repository runs for a feed or dynamic-filters path when nothing is cached
 * (captured as the repository runs them, through effect's statement
 * transformer), each then run under EXPLAIN (ANALYZE) on one warm session, best
 * of three. The baseline of the uncached catalog rows: what the database
 * alone needs for the same queries.
 */
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted, Result, Schema } from "effect"
import { SqlClient, Statement } from "effect/sql"
import { feedQuery, SourceQuery } from "../../src/api/CatalogQuery.ts"
import { FiltersCodec } from "../../src/api/CatalogWire.ts"
import { eventQueryOf, facetQueryOf, feedOrderOf } from "../../src/domain/SportsCatalogQuery.ts"
import { CatalogChanges } from "../../src/sports/catalog/CatalogChanges.ts"
import { SportsCatalogRepo } from "../../src/sports/catalog/SportsCatalogRepo.ts"

const readQuery = Schema.decodeUnknownSync(Schema.Struct({ ...feedQuery, source: Schema.optional(SourceQuery) }))
const filtersOf = Schema.decodeSync(FiltersCodec)

type Compiled = readonly [string, ReadonlyArray<unknown>]

/** The reads the service makes for `path` (/sports/feed/... or /sports/catalog/filters) with its read cache off. */
const reads = (path: string) =>
  Effect.gen(function*() {
    const repo = yield* SportsCatalogRepo
    const url = new URL(path, "http://bench")
    const query = readQuery(Object.fromEntries(url.searchParams))
    const filters = filtersOf(query)
    if (url.pathname.endsWith("/catalog/filters")) {
      const events = Result.getOrThrow(eventQueryOf(query.source ?? "prematch", filters))
      yield* Effect.all([
        repo.eventSportIds(facetQueryOf("sport", events)),
        repo.eventCountryCodes(facetQueryOf("country", events)),
        repo.eventLeagueNames(facetQueryOf("league", events)),
        repo.eventTeamNames(facetQueryOf("team", events))
      ])
      return
    }
    const source = url.pathname.endsWith("/live") ? "live" : "prematch"
    const events = Result.getOrThrow(eventQueryOf(source, filters))
    yield* repo.feedPage(events, feedOrderOf(query.sort_by, query.sort_direction), {
      page: query.page ?? 1,
      perPage: query.per_page ?? 50
    })
    yield* repo.feedTotal(events)
  })

const executionMillis = (plan: unknown): number => {
  const document = typeof plan === "string" ? JSON.parse(plan) : plan
  return (document as ReadonlyArray<{ readonly "Execution Time": number }>)[0]["Execution Time"]
}

/**
 * For each path: the sum of its statements' execution times (what the database does for one request) and
 * each statement's own. The statements run on one connection, warmed first (ICU collators open once per session).
 */
export const databaseTimes = (databaseUrl: string, paths: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const context = yield* Layer.build(
      // Only reads are explained: what a publish would send the change stream never happens here.
      SportsCatalogRepo.layerSql.pipe(
        Layer.provide(CatalogChanges.none),
        Layer.provideMerge(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 1 }))
      )
    )
    const sql = Context.get(context, SqlClient.SqlClient)
    const results: Array<
      { readonly path: string; readonly millis: number; readonly statements: ReadonlyArray<number> }
    > = []
    for (const path of paths) {
      const captured: Array<Compiled> = []
      const capture: Statement.Transformer = (statement) =>
        Effect.sync(() => {
          captured.push(statement.compile())
          return statement
        })
      yield* reads(path).pipe(
        Effect.provideContext(context),
        Effect.provideService(Statement.CurrentTransformer, capture)
      )
      const statements: Array<number> = []
      for (const [text, params] of captured) {
        const explain = sql.unsafe<{ readonly "QUERY PLAN": unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params)
        yield* explain
        let best = Infinity
        for (let i = 0; i < 3; i++) best = Math.min(best, executionMillis((yield* explain)[0]["QUERY PLAN"]))
        statements.push(best)
      }
      results.push({ path, millis: statements.reduce((a, b) => a + b, 0), statements })
    }
    return results
  }).pipe(Effect.orDie, Effect.scoped)
