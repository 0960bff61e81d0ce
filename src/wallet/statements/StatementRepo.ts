import { Context, Effect, Layer, Option, Schema, Semaphore } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import { Environment } from "../../domain/Environment.ts"
import { nextDay } from "../../domain/Statements.ts"
import type { ComputedStatement } from "../../domain/StatementDocument.ts"
import { IdFromBigInt, MinorFromNumeric } from "../../platform/SqlCodecs.ts"
import { rowsOf } from "../../platform/SqlRows.ts"

/** One currency's totals of a statement (wallet_statement_totals), in its minor units. */
const StoredTotals = Schema.Struct({
  currency: Schema.String,
  bets: MinorFromNumeric,
  wins: MinorFromNumeric,
  refunds: MinorFromNumeric,
  rollbacks: MinorFromNumeric,
  net: MinorFromNumeric,
  transactions: Schema.Int
})
export type StoredTotals = typeof StoredTotals.Type

const listedFields = {
  partnerId: IdFromBigInt,
  environment: Environment,
  day: Schema.String,
  transactions: Schema.Int,
  /** Its totals, one per currency of the day (by code); none for a day without activity. */
  currencies: Schema.fromJsonString(Schema.Array(StoredTotals)),
  computedAt: Schema.Date
}

/** A statement in a listing: everything but its document. */
const ListedStatement = Schema.Struct(listedFields).pipe(
  Schema.encodeKeys({ partnerId: "partner_id", computedAt: "computed_at" })
)
export type ListedStatement = typeof ListedStatement.Type

/** A statement as kept: its document byte for byte (and its SHA-256), and what the listings show of it. */
export const StoredStatement = Schema.Struct({ ...listedFields, document: Schema.String, sha256: Schema.Uint8Array })
  .pipe(
    Schema.encodeKeys({ partnerId: "partner_id", computedAt: "computed_at", sha256: "document_sha256" })
  )
export type StoredStatement = typeof StoredStatement.Type

/** A test statement of today so far, as kept until it is closed again or the day's own is written. */
export interface PartialStatement {
  readonly document: string
  readonly sha256: Uint8Array
  readonly closedUpTo: Date
}

const PartialRow = Schema.Struct({ document: Schema.String, sha256: Schema.Uint8Array, closedUpTo: Schema.Date }).pipe(
  Schema.encodeKeys({ sha256: "document_sha256", closedUpTo: "closed_up_to" })
)

export interface NewStatement {
  readonly partnerId: number
  readonly environment: Environment
  readonly computed: ComputedStatement
}

const Days = Schema.Array(Schema.Struct({ day: Schema.String }))
const decodeDays = Schema.decodeUnknownEffect(Days)

/** The partner environments a day has a statement of already (the partner's id as text, as the key is built). */
const writtenRows = rowsOf(
  Schema.Struct({ partnerId: Schema.String, environment: Environment }).pipe(
    Schema.encodeKeys({ partnerId: "partner_id" })
  )
)

/** The first day the statements know of, written or closed. */
const firstDayRows = rowsOf(Schema.Struct({ first: Schema.NullOr(Schema.String) }))

/** What closing a day wrote: its statements, and whether the day is complete (no partner environment waits). */
export interface DayClose {
  readonly statements: ReadonlyArray<NewStatement>
  readonly complete: boolean
}

/**
 * The daily statements (wallet_statements, their totals per currency in wallet_statement_totals), the days
 * whose statements are all written
 * (wallet_statement_days) and the test statements of today so far (wallet_statement_partials): the only code that
 * reads or writes them (but TestData, which clears a test environment). A day is closed in one transaction
 * holding a fleet-wide lock, so however many instances try, each statement is computed and stored once.
 */
export class StatementRepo extends Context.Service<StatementRepo, {
  /** The first day statements were written for; none before the first close. */
  readonly firstDay: Effect.Effect<Option.Option<string>>
  /** Whether every statement of the day was written. */
  isComplete(day: string): Effect.Effect<boolean>
  /** The days from `from` to `to` (inclusive) whose statements are not all written yet, oldest first. */
  openDays(from: string, to: string): Effect.Effect<ReadonlyArray<string>>
  /**
   * Closes `day` once across the fleet: in one transaction holding the statements' lock, `work` is told which
   * partner environments (`partnerId:environment`) have their statement already and computes the others it can
   * (it runs inside the transaction); they are stored, and the day marked complete when `work` says so.
   * How many statements this call wrote.
   */
  close<E, R>(
    day: string,
    closedAt: Date,
    work: (written: ReadonlySet<string>) => Effect.Effect<DayClose, E, R>
  ): Effect.Effect<number, E, R>
  find(partnerId: number, environment: Environment, day: string): Effect.Effect<Option.Option<StoredStatement>>
  /**
   * Keeps a test statement of `day` so far, replacing the one closed before; none once the day has its own statement
   * (false then: the day's statement is what is read).
   */
  savePartial(partnerId: number, day: string, statement: PartialStatement, computedAt: Date): Effect.Effect<boolean>
  /** The test statement of `day` so far, if one was closed and the day's own is not written yet. */
  findPartial(partnerId: number, day: string): Effect.Effect<Option.Option<PartialStatement>>
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
      // Amounts as text in the JSON (a number would not hold 40 digits).
      const listed = sql.literal(
        `s.partner_id, s.environment, s.day::text AS day, s.transactions, s.computed_at,
        (SELECT coalesce(json_agg(json_build_object('currency', t.currency, 'bets', t.bets::text,
                  'wins', t.wins::text, 'refunds', t.refunds::text, 'rollbacks', t.rollbacks::text,
                  'net', t.net::text, 'transactions', t.transactions) ORDER BY t.currency), '[]')::text
         FROM wallet_statement_totals t
         WHERE t.partner_id = s.partner_id AND t.environment = s.environment AND t.day = s.day) AS currencies`
      )

      const insert = (day: string, statement: NewStatement) =>
        Effect.gen(function*() {
          const { summary } = statement.computed
          yield* sql`
            INSERT INTO wallet_statements (partner_id, environment, day, transactions, document, document_sha256,
                                           computed_at)
            VALUES (${statement.partnerId}, ${statement.environment}, ${day}::date, ${summary.counts.transactions},
                    ${statement.computed.document}, ${statement.computed.sha256}, ${summary.computedAt})
          `
          // The day's own statement replaces what was closed of it so far.
          yield* sql`
            DELETE FROM wallet_statement_partials
            WHERE partner_id = ${statement.partnerId} AND environment = ${statement.environment} AND day = ${day}::date
          `
          yield* Effect.forEach(summary.currencies, ({ counts, currency, totals }) =>
            sql`
              INSERT INTO wallet_statement_totals (partner_id, environment, day, currency, bets, wins, refunds,
                                                   rollbacks, net, transactions)
              VALUES (${statement.partnerId}, ${statement.environment}, ${day}::date, ${currency},
                      ${totals.bets.toString()}, ${totals.wins.toString()}, ${totals.refunds.toString()},
                      ${totals.rollbacks.toString()}, ${totals.net.toString()}, ${counts.transactions})
            `, { discard: true })
        })

      const close = <E, R>(
        day: string,
        at: Date,
        work: (written: ReadonlySet<string>) => Effect.Effect<DayClose, E, R>
      ) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext('wallet_statement_days'))`.pipe(Effect.orDie)
          const [closed] = yield* sql`SELECT 1 FROM wallet_statement_days WHERE day = ${day}::date`.pipe(Effect.orDie)
          if (closed !== undefined) return 0
          const written = yield* writtenRows(sql`
            SELECT partner_id::text, environment FROM wallet_statements WHERE day = ${day}::date
          `)
          const result = yield* work(new Set(written.map((row) => `${row.partnerId}:${row.environment}`)))
          yield* Effect.forEach(result.statements, (statement) => insert(day, statement), { discard: true }).pipe(
            Effect.orDie
          )
          if (result.complete) {
            yield* sql`INSERT INTO wallet_statement_days (day, closed_at) VALUES (${day}::date, ${at})`.pipe(
              Effect.orDie
            )
          }
          return result.statements.length
        })).pipe(Effect.catchTag("SqlError", Effect.die))

      const find = SqlSchema.findOneOption({
        Request: Schema.Struct({ partnerId: Schema.Int, environment: Environment, day: Schema.String }),
        Result: StoredStatement,
        execute: ({ day, environment, partnerId }) =>
          sql`
            SELECT ${listed}, s.document, s.document_sha256 FROM wallet_statements s
            WHERE s.partner_id = ${partnerId} AND s.environment = ${environment} AND s.day = ${day}::date
          `
      })

      const findPartial = SqlSchema.findOneOption({
        Request: Schema.Struct({ partnerId: Schema.Int, day: Schema.String }),
        Result: PartialRow,
        execute: ({ day, partnerId }) =>
          sql`
            SELECT document, document_sha256, closed_up_to FROM wallet_statement_partials
            WHERE partner_id = ${partnerId} AND environment = 'test' AND day = ${day}::date
          `
      })

      // Under the close's lock: a partial one is never written beside the day's own.
      const savePartial = (partnerId: number, day: string, statement: PartialStatement, computedAt: Date) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT pg_advisory_xact_lock(hashtext('wallet_statement_days'))`
          const [final] = yield* sql`
            SELECT 1 FROM wallet_statements WHERE partner_id = ${partnerId} AND environment = 'test' AND day = ${day}::date
          `
          if (final !== undefined) return false
          yield* sql`
            INSERT INTO wallet_statement_partials (partner_id, environment, day, document, document_sha256,
                                                   closed_up_to, computed_at)
            VALUES (${partnerId}, 'test', ${day}::date, ${statement.document}, ${statement.sha256},
                    ${statement.closedUpTo}, ${computedAt})
            ON CONFLICT (partner_id, environment, day) DO UPDATE SET document = EXCLUDED.document,
              document_sha256 = EXCLUDED.document_sha256, closed_up_to = EXCLUDED.closed_up_to,
              computed_at = EXCLUDED.computed_at
          `
          return true
        })).pipe(Effect.orDie)

      const recent = SqlSchema.findAll({
        Request: Schema.Struct({
          partnerId: Schema.optional(Schema.Int),
          environment: Schema.optional(Environment),
          limit: Schema.Int
        }),
        Result: ListedStatement,
        execute: (filter) => {
          const conditions = [sql`true`]
          if (filter.partnerId !== undefined) conditions.push(sql`s.partner_id = ${filter.partnerId}`)
          if (filter.environment !== undefined) conditions.push(sql`s.environment = ${filter.environment}`)
          return sql`
            SELECT ${listed} FROM wallet_statements s WHERE ${sql.and(conditions)}
            ORDER BY s.day DESC, s.partner_id, s.environment LIMIT ${filter.limit}
          `
        }
      })

      return StatementRepo.of({
        firstDay: firstDayRows(sql`
          SELECT least((SELECT min(day) FROM wallet_statements), (SELECT min(day) FROM wallet_statement_days))::text AS first
        `).pipe(Effect.map(([row]) => Option.fromNullishOr(row.first))),
        isComplete: (day) =>
          sql`SELECT 1 FROM wallet_statement_days WHERE day = ${day}::date`.pipe(
            Effect.map((rows) => rows.length > 0),
            Effect.orDie
          ),
        openDays: (from, to) =>
          sql`
            SELECT d::date::text AS day FROM generate_series(${from}::date, ${to}::date, interval '1 day') AS d
            WHERE NOT EXISTS (SELECT 1 FROM wallet_statement_days s WHERE s.day = d::date)
            ORDER BY 1
          `.pipe(Effect.flatMap(decodeDays), Effect.map((rows) => rows.map((row) => row.day)), Effect.orDie),
        close,
        find: (partnerId, environment, day) => Effect.orDie(find({ partnerId, environment, day })),
        savePartial,
        findPartial: (partnerId, day) => Effect.orDie(findPartial({ partnerId, day })),
        recent: (filter) => Effect.orDie(recent(filter))
      })
    })
  )

  /**
   * The same rules over memory, for tests without PostgreSQL: a day closes once however many fibers try (one permit
   * stands for the fleet-wide lock), a statement is written once per partner environment and day (a second is a
   * defect and nothing of the close is kept), `work` failing keeps nothing, and listings come newest day first.
   */
  static readonly layerMemory = Layer.sync(StatementRepo, () => {
    const statements = new Map<string, StoredStatement>()
    const partials = new Map<string, PartialStatement>()
    const days = new Map<string, Date>()
    const lock = Semaphore.makeUnsafe(1)
    const key = (partnerId: number, environment: Environment, day: string) => `${partnerId}:${environment}:${day}`
    const byListing = (a: StoredStatement, b: StoredStatement) =>
      a.day !== b.day
        ? (a.day < b.day ? 1 : -1)
        : a.partnerId - b.partnerId || (a.environment < b.environment ? -1 : a.environment > b.environment ? 1 : 0)
    const stored = (day: string, { computed, environment, partnerId }: NewStatement): StoredStatement => ({
      partnerId,
      environment,
      day,
      transactions: computed.summary.counts.transactions,
      currencies: computed.summary.currencies.map(({ counts, currency, totals }) => ({
        currency,
        ...totals,
        transactions: counts.transactions
      })),
      computedAt: computed.summary.computedAt,
      document: computed.document,
      sha256: computed.sha256
    })
    const listed = ({ document: _document, sha256: _sha256, ...listing }: StoredStatement): ListedStatement => listing
    return StatementRepo.of({
      firstDay: Effect.sync(() => {
        const all = [...[...statements.values()].map((statement) => statement.day), ...days.keys()].sort()
        return Option.fromNullishOr(all[0])
      }),
      isComplete: (day) => Effect.sync(() => days.has(day)),
      openDays: (from, to) =>
        Effect.sync(() => {
          const open: Array<string> = []
          for (let day = from; day <= to; day = nextDay(day)) if (!days.has(day)) open.push(day)
          return open
        }),
      close: (day, closedAt, work) =>
        lock.withPermit(Effect.gen(function*() {
          if (days.has(day)) return 0
          const written = new Set(
            [...statements.values()].filter((statement) => statement.day === day).map((s) =>
              `${s.partnerId}:${s.environment}`
            )
          )
          const result = yield* work(written)
          const keys = result.statements.map((statement) => key(statement.partnerId, statement.environment, day))
          if (keys.some((k) => statements.has(k)) || new Set(keys).size !== keys.length) {
            return yield* Effect.die(
              new Error("duplicate key value violates unique constraint \"wallet_statements_pkey\"")
            )
          }
          result.statements.forEach((statement, i) => statements.set(keys[i], stored(day, statement)))
          keys.forEach((k) => partials.delete(k))
          if (result.complete) days.set(day, closedAt)
          return result.statements.length
        })),
      find: (partnerId, environment, day) =>
        Effect.sync(() => Option.fromNullishOr(statements.get(key(partnerId, environment, day)))),
      savePartial: (partnerId, day, statement) =>
        lock.withPermit(Effect.sync(() => {
          if (statements.has(key(partnerId, "test", day))) return false
          partials.set(key(partnerId, "test", day), statement)
          return true
        })),
      findPartial: (partnerId, day) =>
        Effect.sync(() => Option.fromNullishOr(partials.get(key(partnerId, "test", day)))),
      recent: (filter) =>
        Effect.sync(() =>
          [...statements.values()]
            .filter((s) =>
              (filter.partnerId === undefined || s.partnerId === filter.partnerId) &&
              (filter.environment === undefined || s.environment === filter.environment)
            )
            .sort(byListing)
            .slice(0, filter.limit)
            .map(listed)
        )
    })
  })
}
