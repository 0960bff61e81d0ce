import { Context, Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { Environment } from "../../domain/Environment.ts"
import { formatCents } from "../../domain/Money.ts"
import type { ComputedStatement } from "../../domain/Statements.ts"
import { CentsFromNumeric, IdFromBigInt } from "../../platform/SqlCodecs.ts"

const listedFields = {
  partnerId: IdFromBigInt,
  environment: Environment,
  day: Schema.String,
  transactions: Schema.Int,
  bets: CentsFromNumeric,
  wins: CentsFromNumeric,
  refunds: CentsFromNumeric,
  rollbacks: CentsFromNumeric,
  net: CentsFromNumeric,
  computedAt: Schema.Date
}

/** A statement in a listing: everything but its document. */
const ListedStatement = Schema.Struct(listedFields).pipe(Schema.encodeKeys({ partnerId: "partner_id", computedAt: "computed_at" }))
export type ListedStatement = typeof ListedStatement.Type

/** A statement as kept: its document byte for byte (and its SHA-256), and what the listings show of it. */
export const StoredStatement = Schema.Struct({ ...listedFields, document: Schema.String, sha256: Schema.Uint8Array }).pipe(
  Schema.encodeKeys({ partnerId: "partner_id", computedAt: "computed_at", sha256: "document_sha256" })
)
export type StoredStatement = typeof StoredStatement.Type

export interface NewStatement {
  readonly partnerId: number
  readonly environment: Environment
  readonly computed: ComputedStatement
}

/** The closed days' bounds: statements begin on `first`; `last` is the latest day closed. */
export interface ClosedDays {
  readonly first: Option.Option<string>
  readonly last: Option.Option<string>
}

const Bounds = Schema.Struct({ first: Schema.NullOr(Schema.String), last: Schema.NullOr(Schema.String) })
const decodeBounds = Schema.decodeUnknownEffect(Schema.Array(Bounds))

/**
 * The daily statements (wallet_statements) and the days whose statements were computed
 * (wallet_statement_days): the only code that reads or writes them. A day is closed in one transaction
 * holding a fleet-wide lock, so however many instances try, it is computed and stored once.
 */
export class StatementRepo extends Context.Service<StatementRepo, {
  readonly closedDays: Effect.Effect<ClosedDays>
  /** When the day was closed; none if it was not (yet). */
  closedAt(day: string): Effect.Effect<Option.Option<Date>>
  /**
   * Closes `day` at `closedAt`, once across the fleet: in one transaction holding the statements' lock, when the
   * day is not closed yet, computes its statements (`compute` runs inside it) and stores them with the day's close.
   * False when the day was closed already (by another instance).
   */
  close<E, R>(
    day: string,
    closedAt: Date,
    compute: Effect.Effect<ReadonlyArray<NewStatement>, E, R>
  ): Effect.Effect<boolean, E, R>
  find(partnerId: number, environment: Environment, day: string): Effect.Effect<Option.Option<StoredStatement>>
  /** The latest stored statements, newest day first. */
  recent(filter: {
    readonly partnerId?: number | undefined
    readonly environment?: Environment | undefined
    readonly limit: number
  }): Effect.Effect<ReadonlyArray<ListedStatement>>
}>()("partner-api/wallet/StatementRepo") {
  static readonly layerSql = Layer.effect(
    StatementRepo,
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const listed = sql.literal(`partner_id, environment, day::text AS day, transactions, bets, wins, refunds, rollbacks, net,
        computed_at`)

      const closedAt = SqlSchema.findOneOption({
        Request: Schema.String,
        Result: Schema.Struct({ closed_at: Schema.Date }),
        execute: (day) => sql`SELECT closed_at FROM wallet_statement_days WHERE day = ${day}::date`
      })

      const insert = (day: string, statement: NewStatement) => {
        const { summary } = statement.computed
        return sql`
          INSERT INTO wallet_statements (partner_id, environment, day, bets, wins, refunds, rollbacks, net, transactions,
                                         document, document_sha256, computed_at)
          VALUES (${statement.partnerId}, ${statement.environment}, ${day}::date, ${formatCents(summary.totals.bets)},
                  ${formatCents(summary.totals.wins)}, ${formatCents(summary.totals.refunds)},
                  ${formatCents(summary.totals.rollbacks)}, ${formatCents(summary.totals.net)}, ${summary.counts.transactions},
                  ${statement.computed.document}, ${statement.computed.sha256}, ${summary.computedAt})
        `
      }

      const close = <E, R>(day: string, at: Date, compute: Effect.Effect<ReadonlyArray<NewStatement>, E, R>) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext('wallet_statement_days'))`.pipe(Effect.orDie)
          const [closed] = yield* sql`SELECT 1 FROM wallet_statement_days WHERE day = ${day}::date`.pipe(Effect.orDie)
          if (closed !== undefined) return false
          const statements = yield* compute
          yield* sql`INSERT INTO wallet_statement_days (day, closed_at) VALUES (${day}::date, ${at})`.pipe(Effect.orDie)
          yield* Effect.forEach(statements, (statement) => insert(day, statement), { discard: true }).pipe(Effect.orDie)
          return true
        })).pipe(Effect.catchTag("SqlError", Effect.die))

      const find = SqlSchema.findOneOption({
        Request: Schema.Struct({ partnerId: Schema.Int, environment: Environment, day: Schema.String }),
        Result: StoredStatement,
        execute: ({ day, environment, partnerId }) =>
          sql`
            SELECT ${listed}, document, document_sha256 FROM wallet_statements
            WHERE partner_id = ${partnerId} AND environment = ${environment} AND day = ${day}::date
          `
      })

      const recent = SqlSchema.findAll({
        Request: Schema.Struct({ partnerId: Schema.optional(Schema.Int), environment: Schema.optional(Environment), limit: Schema.Int }),
        Result: ListedStatement,
        execute: (filter) => {
          const conditions = [sql`true`]
          if (filter.partnerId !== undefined) conditions.push(sql`partner_id = ${filter.partnerId}`)
          if (filter.environment !== undefined) conditions.push(sql`environment = ${filter.environment}`)
          return sql`
            SELECT ${listed} FROM wallet_statements WHERE ${sql.and(conditions)}
            ORDER BY day DESC, partner_id, environment LIMIT ${filter.limit}
          `
        }
      })

      return StatementRepo.of({
        closedDays: sql`SELECT min(day)::text AS first, max(day)::text AS last FROM wallet_statement_days`.pipe(
          Effect.flatMap(decodeBounds),
          Effect.map(([row]) => ({ first: Option.fromNullishOr(row.first), last: Option.fromNullishOr(row.last) })),
          Effect.orDie
        ),
        closedAt: (day) => closedAt(day).pipe(Effect.map(Option.map((row) => row.closed_at)), Effect.orDie),
        close,
        find: (partnerId, environment, day) => Effect.orDie(find({ partnerId, environment, day })),
        recent: (filter) => Effect.orDie(recent(filter))
      })
    })
  )
}
