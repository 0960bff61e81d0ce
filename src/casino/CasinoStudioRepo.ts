import { Context, Effect, Layer, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"

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
  setAlias(alias: string, studio: string): Effect.Effect<void>
  removeAlias(alias: string): Effect.Effect<boolean>
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
        aliases: Effect.map(Effect.orDie(aliases()), (rows) => new Map(rows.map((row) => [row.alias, row.studio]))),
        setAlias: (alias, studio) =>
          sql`INSERT INTO casino_studio_aliases (alias, studio) VALUES (${alias}, ${studio})
              ON CONFLICT (alias) DO UPDATE SET studio = EXCLUDED.studio`.pipe(Effect.asVoid, Effect.orDie),
        removeAlias: (alias) =>
          sql`DELETE FROM casino_studio_aliases WHERE alias = ${alias} RETURNING alias`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          )
      })
    })
  )

  /** The same rules in memory, for tests without PostgreSQL. */
  static readonly layerMemory = Layer.sync(CasinoStudioRepo, () => {
    const servers = new Map<string, string>()
    const aliases = new Map<string, string>()
    return CasinoStudioRepo.of({
      servers: Effect.sync(() => new Map(servers)),
      setServer: (studio, aggregator) => Effect.sync(() => void servers.set(studio, aggregator)),
      aliases: Effect.sync(() => new Map(aliases)),
      setAlias: (alias, studio) => Effect.sync(() => void aliases.set(alias, studio)),
      removeAlias: (alias) => Effect.sync(() => aliases.delete(alias))
    })
  })
}
