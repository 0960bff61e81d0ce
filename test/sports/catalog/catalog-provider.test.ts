/**
 * The catalog holds one provider's world at a time (sql/0037): what only PostgreSQL can show (a publish that fails
 * midway leaves the old world whole; rows written before 0037 get their provider from the change log), and an empty
 * catalog as both forms see it. What both forms publish and read alike is in SportsCatalogRepoSpec.ts.
 */
import { NodeServices } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { assert, it, layer } from "@effect/vitest"
import { Effect, Exit, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "../../../src/platform/Database.ts"
import { CatalogChanges } from "../../../src/sports/catalog/CatalogChanges.ts"
import { SportsCatalogRepo } from "../../../src/sports/catalog/SportsCatalogRepo.ts"
import * as SportsCatalogRepoMemory from "../../../src/sports/catalog/SportsCatalogRepoMemory.ts"
import { scopedDatabase, TestDatabase } from "../../support/TestDatabase.ts"
import {
  brokenWorldOfB,
  everything,
  overviewOfEverything,
  providerA,
  providerB,
  worldOfB
} from "./SportsCatalogRepoSpec.ts"

const RepoSql = SportsCatalogRepo.layerSql.pipe(Layer.provide(Layer.mergeAll(TestDatabase, CatalogChanges.none)))

const ids = (table: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    Effect.map(
      sql<{ id: string; provider: string }>`SELECT id, provider FROM ${sql(table)} ORDER BY id`,
      (rows) => rows.map((row) => `${row.provider}:${row.id}`)
    ))

layer(Layer.mergeAll(RepoSql, TestDatabase))("the catalog's provider over PostgreSQL", (it) => {
  it.effect("a new catalog is empty for every provider; the first publish records its world and its rows carry it", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      const sql = yield* SqlClient.SqlClient
      assert.isTrue(yield* repo.isEmptyFor(providerA))
      assert.deepStrictEqual(yield* sql`SELECT provider FROM sports_catalog_world`, [{ provider: "unknown" }])
      yield* repo.publish(everything)
      assert.deepStrictEqual(yield* sql`SELECT provider FROM sports_catalog_world`, [{ provider: providerA }])
      assert.deepStrictEqual(yield* ids("sports_leagues"), ["betsapi:900", "betsapi:910", "betsapi:950"])
      const unlabelled = yield* sql<{ n: number }>`
        SELECT ((SELECT count(*) FROM sports_events WHERE provider <> ${providerA})
              + (SELECT count(*) FROM sports_teams WHERE provider <> ${providerA})
              + (SELECT count(*) FROM sports_team_leagues WHERE provider <> ${providerA}))::int AS n`
      assert.strictEqual(unlabelled[0].n, 0)
    }))

  it.effect("a publish by another provider that fails midway leaves the old world whole, and the world it was", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      const sql = yield* SqlClient.SqlClient
      yield* repo.publish(everything)
      const before = { leagues: yield* ids("sports_leagues"), teams: yield* ids("sports_teams") }
      const events = yield* ids("sports_events")
      // B's event 9010 breaks the events' status check: the old world was removed and B's leagues and teams
      // written by then, all rolled back.
      const failed = yield* Effect.exit(repo.publish(brokenWorldOfB))
      assert.isTrue(Exit.isFailure(failed))
      assert.deepStrictEqual(yield* repo.overview, overviewOfEverything)
      assert.deepStrictEqual({ leagues: yield* ids("sports_leagues"), teams: yield* ids("sports_teams") }, before)
      assert.deepStrictEqual(yield* ids("sports_events"), events)
      assert.deepStrictEqual(yield* sql`SELECT provider FROM sports_catalog_world`, [{ provider: providerA }])
      assert.isFalse(yield* repo.isEmptyFor(providerA))
      assert.isTrue(yield* repo.isEmptyFor(providerB))

      // The same world without the broken event goes through.
      yield* repo.publish(worldOfB())
      assert.deepStrictEqual(yield* ids("sports_events"), ["api-football:9001"])
      assert.deepStrictEqual(yield* sql`SELECT provider FROM sports_catalog_world`, [{ provider: providerB }])
      yield* repo.publish(everything)
    }))
})

layer(SportsCatalogRepoMemory.layerMemory)("the catalog's provider in memory", (it) => {
  it.effect("a new catalog is empty for every provider", () =>
    Effect.gen(function*() {
      const repo = yield* SportsCatalogRepo
      assert.isTrue(yield* repo.isEmptyFor(providerA))
      yield* repo.publish(everything)
      assert.isFalse(yield* repo.isEmptyFor(providerA))
      assert.isTrue(yield* repo.isEmptyFor(providerB))
    }))
})

// ---- sql/0037: rows written before it

const onDatabase = (url: string) => Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 4 }))

/** The settings the loader gives the migrations of a deployment whose DEFAULT_CURRENCY is BRL (the default). */
const brlSettings = { "partner_api.default_currency": "BRL", "partner_api.default_currency_exponent": "2" }

/** The migrations up to `last`, as a database of an earlier release had them applied, with `settings` of its own. */
const migrateUpTo = (last: number, settings: Readonly<Record<string, string>> = {}) =>
  PgMigrator.run({
    loader: Effect.map(
      Database.sqlFileLoader(Database.migrationsDirectory, { ...brlSettings, ...settings }),
      (all) => all.filter(([id]) => id <= last)
    )
  }).pipe(Effect.provide(NodeServices.layer))

/** A catalog as 0036 kept it (one league, two teams, one ended event and their membership), and changes by `logged`. */
const catalogBefore0037 = (logged: ReadonlyArray<string>, settings: Readonly<Record<string, string>> = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* migrateUpTo(36)
    yield* sql`INSERT INTO sports_leagues (id, sport_id, country_code, name) VALUES ('900', 1, 'gb', 'Premier Division')`
    yield* sql`INSERT INTO sports_teams (id, sport_id, country_code, name)
               VALUES ('900-Arsenal', 1, 'gb', 'Arsenal'), ('900-Brighton', 1, 'gb', 'Brighton')`
    yield* sql`INSERT INTO sports_team_leagues (team_id, league_id) VALUES ('900-Arsenal', '900'), ('900-Brighton', '900')`
    yield* sql`
      INSERT INTO sports_events (id, sport_id, country_code, league_id, league_name, home_team_id, home_name,
                                 away_team_id, away_name, starts_at, status, score)
      VALUES ('8001', 1, 'gb', '900', 'Premier Division', '900-Arsenal', 'Arsenal', '900-Brighton', 'Brighton',
              '2029-06-01T10:00:00Z', 'ended', '2-1')`
    for (const provider of logged) {
      yield* sql`INSERT INTO sports_changes (provider, kind, event_id, sport_id, league_id, data)
                 VALUES (${provider}, 'event', '8001', 1, '900', '{}')`
    }
    yield* migrateUpTo(Number.MAX_SAFE_INTEGER, settings)
    const providers = yield* sql<{ provider: string }>`
      SELECT provider FROM sports_leagues UNION SELECT provider FROM sports_teams
      UNION SELECT provider FROM sports_team_leagues UNION SELECT provider FROM sports_events`
    const [world] = yield* sql<{ provider: string }>`SELECT provider FROM sports_catalog_world`
    return { rows: providers.map((row) => row.provider), world: world.provider }
  })

const before0037 = (logged: ReadonlyArray<string>, settings: Readonly<Record<string, string>> = {}) =>
  Effect.flatMap(scopedDatabase({ empty: true }), (url) => catalogBefore0037(logged, settings).pipe(onDatabase(url)))

it.effect("rows written before 0037 are the provider's whose change the log holds last; a publish of it keeps them", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    const migrated = yield* catalogBefore0037(["sandbox", "betsapi", "betsapi"]).pipe(onDatabase(url))
    assert.deepStrictEqual(migrated, { rows: ["betsapi"], world: "betsapi" })
    // BetsAPI's next refresh finds its own world: the ended game of June stays, beside what it lists.
    const repo = SportsCatalogRepo.layerSql.pipe(
      Layer.provide(Layer.mergeAll(PgClient.layer({ url: Redacted.make(url) }), CatalogChanges.none))
    )
    const kept = yield* Effect.gen(function*() {
      const catalog = yield* SportsCatalogRepo
      assert.isFalse(yield* catalog.isEmptyFor("betsapi"))
      yield* catalog.publish(everything)
      return yield* catalog.overview
    }).pipe(Effect.provide(repo))
    assert.deepStrictEqual(
      kept,
      { ...overviewOfEverything, events: overviewOfEverything.events + 1 },
      "June's game kept"
    )
  }))

it.effect("the sandbox's test world, newer in the log, does not claim another provider's rows; an empty log: unknown", () =>
  Effect.gen(function*() {
    assert.deepStrictEqual(yield* before0037(["betsapi", "sandbox"]), { rows: ["betsapi"], world: "betsapi" })
    assert.deepStrictEqual(yield* before0037(["sandbox", "sandbox"]), { rows: ["sandbox"], world: "sandbox" })
    assert.deepStrictEqual(yield* before0037([]), { rows: ["unknown"], world: "unknown" })
  }))

it.effect("the operator's partner_api.sports_provider, set before upgrading, wins over the log", () =>
  Effect.gen(function*() {
    const named = { "partner_api.sports_provider": "betsapi" }
    assert.deepStrictEqual(yield* before0037(["sandbox"], named), { rows: ["betsapi"], world: "betsapi" })
    assert.deepStrictEqual(yield* before0037([], named), { rows: ["betsapi"], world: "betsapi" })
  }))
