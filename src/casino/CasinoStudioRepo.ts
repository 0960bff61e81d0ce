import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlError, SqlSchema } from "effect/sql"
import { studioAliasConflict, StudioAliasRefused } from "../domain/Studios.ts"

/**
 * The operator's studio rules (domain/Studios.ts): which aggregator serves a studio several offer, and the aliases
 * the names alone miss. The only place the SQL of casino_studio_servers and casino_studio_aliases lives. Keys are
 * studio keys (studioKey).
 */
export class CasinoStudioRepo extends Context.Service<CasinoStudioRepo, {
  /** Studio key -> the aggregator the operator chose. */
  readonly servers: Effect.Effect<ReadonlyMap<string, string>>
  setServer(studio: string, aggregator: string): Effect.Effect<void>
  /** Alias key -> studio key. */
  readonly aliases: Effect.Effect<ReadonlyMap<string, string>>
  /**
   * Sets `alias -> studio` unless studioAliasConflict refuses it against the aliases kept, checked and written as
   * one step: two sets at once (`a -> b` and `b -> a`) cannot both pass. Answers the alias's studio before, if any.
   */
  setAlias(alias: string, studio: string): Effect.Effect<Option.Option<string>, StudioAliasRefused>
  /** Removes an alias; answers its studio, none when there was no such alias. */
  removeAlias(alias: string): Effect.Effect<Option.Option<string>>
}>()("partner-api/casino/CasinoStudioRepo") {
  static readonly layerSql = Layer.effect(
    CasinoStudioRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const servers = SqlSchema.findAll({
        Request: Schema.Void,
        Result: Schema.Struct({ studio: Schema.String, aggregator: Schema.String }),
        execute: () => sql`SELECT studio, aggregator FROM casino_studio_servers`
      })
      const aliases = SqlSchema.findAll({
        Request: Schema.Void,
        Result: Schema.Struct({ alias: Schema.String, studio: Schema.String }),
        execute: () => sql`SELECT alias, studio FROM casino_studio_aliases`
      })
      const removed = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: Schema.Struct({ studio: Schema.String }),
        execute: (alias) => sql`DELETE FROM casino_studio_aliases WHERE alias = ${alias} RETURNING studio`
      })
      const aliasMap = Effect.map(
        Effect.orDie(aliases()),
        (rows): ReadonlyMap<string, string> => new Map(rows.map((row) => [row.alias, row.studio]))
      )
      return CasinoStudioRepo.of({
        servers: Effect.map(
          Effect.orDie(servers()),
          (rows) => new Map(rows.map((row) => [row.studio, row.aggregator]))
        ),
        setServer: (studio, aggregator) =>
          sql`INSERT INTO casino_studio_servers (studio, aggregator) VALUES (${studio}, ${aggregator})
              ON CONFLICT (studio) DO UPDATE SET aggregator = EXCLUDED.aggregator, updated_at = now()`.pipe(
            Effect.asVoid,
            Effect.orDie
          ),
        aliases: aliasMap,
        setAlias: (alias, studio) =>
          sql.withTransaction(Effect.gen(function*() {
            // Every set takes the table's lock first (in the caller's transaction when there is one, so held until
            // its audit row is written too): the check below reads aliases no other set is writing. Reads of the
            // table go on meanwhile (the mode does not block SELECT); a removal cannot make a chain, so needs none.
            yield* sql`LOCK TABLE casino_studio_aliases IN SHARE ROW EXCLUSIVE MODE`
            const kept = yield* aliasMap
            const refused = studioAliasConflict(kept, alias, studio)
            if (refused !== undefined) return yield* refused
            yield* sql`INSERT INTO casino_studio_aliases (alias, studio) VALUES (${alias}, ${studio})
                       ON CONFLICT (alias) DO UPDATE SET studio = EXCLUDED.studio`
            return Option.fromUndefinedOr(kept.get(alias))
          })).pipe(Effect.catchIf(SqlError.isSqlError, Effect.die)),
        removeAlias: (alias) => removed(alias).pipe(Effect.map(Option.map((row) => row.studio)), Effect.orDie)
      })
    })
  )

  /** The same rules in memory, for tests without PostgreSQL; a set's check and write are one synchronous step. */
  static readonly layerMemory = Layer.sync(CasinoStudioRepo, () => {
    const servers = new Map<string, string>()
    const aliases = new Map<string, string>()
    return CasinoStudioRepo.of({
      servers: Effect.sync(() => new Map(servers)),
      setServer: (studio, aggregator) => Effect.sync(() => void servers.set(studio, aggregator)),
      aliases: Effect.sync(() => new Map(aliases)),
      setAlias: (alias, studio) =>
        Effect.suspend(() => {
          const refused = studioAliasConflict(aliases, alias, studio)
          if (refused !== undefined) return Effect.fail(refused)
          const before = Option.fromUndefinedOr(aliases.get(alias))
          aliases.set(alias, studio)
          return Effect.succeed(before)
        }),
      removeAlias: (alias) =>
        Effect.sync(() => {
          const before = Option.fromUndefinedOr(aliases.get(alias))
          aliases.delete(alias)
          return before
        })
    })
  })
}
