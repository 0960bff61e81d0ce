import { NodeServices } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { assert, it } from "@effect/vitest"
import { ConfigProvider, Effect, Redacted } from "effect"
import { SqlClient, type SqlError } from "effect/sql"
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as Database from "../../src/platform/Database.ts"
import { decodeTransactions, transactionColumns } from "../../src/wallet/WalletRows.ts"
import { scopedDatabase } from "../support/TestDatabase.ts"

const onDatabase = (url: string) => Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 4 }))

it.effect("every numbered file in sql/ is a migration", () =>
  Effect.gen(function*() {
    const files = (yield* Effect.promise(() => fs.readdir(Database.migrationsDirectory))).filter((f) =>
      f.endsWith(".sql")
    )
    assert.isAbove(files.length, 0)
    for (const file of files) assert.match(file, /^\d{4}_[a-z0-9_]+\.sql$/)
  }))

it.effect("an empty database gets every migration once; running again applies nothing", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    const files = (yield* Effect.promise(() => fs.readdir(Database.migrationsDirectory))).filter((f) =>
      f.endsWith(".sql")
    )
    const first = yield* Database.migrate.pipe(onDatabase(url))
    assert.strictEqual(first.length, files.length)
    const second = yield* Database.migrate.pipe(onDatabase(url))
    assert.deepStrictEqual(second, [])
    const tables = yield* Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      sql<{ name: string }>`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`).pipe(onDatabase(url))
    assert.include(
      tables.map((t) =>
        t.name
      ),
      "partners"
    )
  }))

it.effect("two services migrating one database at once apply each migration once", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    const [a, b] = yield* Effect.all(
      [Database.migrate.pipe(onDatabase(url)), Database.migrate.pipe(onDatabase(url))],
      { concurrency: 2 }
    )
    const applied = yield* Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM effect_sql_migrations`).pipe(onDatabase(url))
    assert.strictEqual(applied[0].n, a.length + b.length)
    assert.isTrue(a.length === 0 || b.length === 0)
  }))

/** The settings the loader gives the migrations of a deployment whose DEFAULT_CURRENCY is BRL (the default). */
const brlSettings = { "partner_api.default_currency": "BRL", "partner_api.default_currency_exponent": "2" }

/** The migrations up to `last`, as a database of an earlier release had them applied. */
const migrateUpTo = (last: number) =>
  PgMigrator.run({
    loader: Effect.map(
      Database.sqlFileLoader(Database.migrationsDirectory, brlSettings),
      (all) => all.filter(([id]) => id <= last)
    )
  }).pipe(Effect.provide(NodeServices.layer))

it.effect("a partner of the release before environments keeps its token, URL and secret as its live ones, and gets a test environment", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    yield* migrateUpTo(12).pipe(onDatabase(url))
    const tokenHash = createHash("sha256").update("pak_issued_before_environments_0123456789").digest()
    const before = yield* Effect.flatMap(
      Effect.service(SqlClient.SqlClient),
      (sql) =>
        sql<{ id: string; webhook_secret: string }>`
        INSERT INTO partners (name, slug, callback_url, token_hash)
        VALUES ('Earlier Bets', 'earlier-bets', 'https://earlier.example/wallet', ${tokenHash})
        RETURNING id, webhook_secret`
    ).pipe(onDatabase(url))
    yield* Database.migrate.pipe(onDatabase(url))
    const environments = yield* Effect.flatMap(
      Effect.service(SqlClient.SqlClient),
      (sql) =>
        sql<
          { environment: string; callback_url: string | null; webhook_secret: string; token_hash: Uint8Array | null }
        >`
        SELECT e.environment, e.callback_url, e.webhook_secret, t.token_hash
        FROM partner_environments e
        LEFT JOIN partner_tokens t USING (partner_id, environment)
        WHERE e.partner_id = ${before[0].id} ORDER BY e.environment`
    ).pipe(onDatabase(url))
    assert.deepStrictEqual(environments.map((e) => e.environment), ["live", "test"])
    const [liveRow, testRow] = environments
    assert.strictEqual(liveRow.callback_url, "https://earlier.example/wallet")
    assert.strictEqual(liveRow.webhook_secret, before[0].webhook_secret)
    assert.deepStrictEqual(Buffer.from(liveRow.token_hash ?? []), tokenHash)
    // The test environment: a secret of its own, no URL (the sandbox wallet answers) and no token until one is issued.
    assert.isNull(testRow.callback_url)
    assert.isNull(testRow.token_hash)
    assert.notStrictEqual(testRow.webhook_secret, liveRow.webhook_secret)
  }))

/**
 * A database of the release before aggregators had names (migrations up to 0021): a live and a test player with a
 * settled round each, a pending bet and a refund, a provider and a game. `gateway` is the database setting
 * `partner_api.casino_gateway` the operator set before upgrading, if any.
 */
const releaseBeforeAggregators = (url: string) =>
  Effect.gen(function*() {
    yield* migrateUpTo(21).pipe(onDatabase(url))
    return yield* Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      Effect.gen(function*() {
        const [partner] = yield* sql<{ id: string }>`
          INSERT INTO partners (name, slug) VALUES ('Earlier Bets', 'earlier-bets') RETURNING id`
        const players = yield* sql<{ id: string; environment: string }>`
          INSERT INTO partner_players (partner_id, external_player_id, balance, environment)
          VALUES (${partner.id}, 'ana', 100.00, 'live'), (${partner.id}, 'ana', 50.00, 'test')
          RETURNING id, environment`
        for (const player of players) {
          const [round] = yield* sql<{ id: string }>`
            INSERT INTO wallet_rounds (partner_id, environment, player_id, round_id, status, bet_total, win_total)
            VALUES (${partner.id}, ${player.environment}, ${player.id}, 'round-1', 'settled', 12.34, 56.78)
            RETURNING id`
          yield* sql`
            INSERT INTO wallet_transactions (kind, txn_id, fingerprint, partner_id, environment, player_id, round_ref,
                                             round_id, bet, win, amount, balance_after, status, answer, settled_at)
            VALUES ('bet', 'txn-1', 'f', ${partner.id}, ${player.environment}, ${player.id}, ${round.id}, 'round-1',
                    12.34, 56.78, 44.44, 144.44, 'applied', '{"msg": "", "balance": 144.44}', now()),
                   ('refund', 'txn-1', 'f', ${partner.id}, ${player.environment}, ${player.id}, ${round.id}, 'round-1',
                    0, 0, 0, 144.44, 'applied', '{"msg": "", "balance": 144.44}', now())`
        }
        const [provider] = yield* sql<{ id: number }>`
          INSERT INTO casino_providers (slug, upstream_code, name, operator_enabled)
          VALUES ('aurora', 'AURORA', 'Aurora', false) RETURNING id`
        yield* sql`INSERT INTO casino_games (provider_id, game_code, name) VALUES (${provider.id}, 'g-1', 'Game One')`
      })).pipe(onDatabase(url))
  })

/** The unique key an insert ran into. */
const violated = (error: SqlError.SqlError) =>
  error.reason._tag === "UniqueViolation" ? error.reason.constraint : error.reason._tag

const aggregatorsOf = (url: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    Effect.all({
      rounds: sql<{ environment: string; aggregator: string; bet_total: string; win_total: string }>`
        SELECT environment, aggregator, bet_total::text, win_total::text FROM wallet_rounds ORDER BY environment`,
      transactions: sql<{ environment: string; aggregator: string; kind: string; txn_id: string; amount: string }>`
        SELECT environment, aggregator, kind, txn_id, amount::text FROM wallet_transactions ORDER BY environment, kind`,
      providers: sql<{ aggregator: string; slug: string; operator_enabled: boolean }>`
        SELECT aggregator, slug, operator_enabled FROM casino_providers`,
      games: sql<{ aggregator: string; game_code: string }>`SELECT aggregator, game_code FROM casino_games`
    })).pipe(onDatabase(url))

it.effect("a database of the release before aggregators upgrades in place: its rows kept, the test ones the sandbox's, the live ones and the catalog PlayFiver's", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    yield* releaseBeforeAggregators(url)
    yield* Database.migrate.pipe(onDatabase(url))
    const after = yield* aggregatorsOf(url)
    // The amounts of before (12.34, 56.78, 44.44, 0.00), in BRL's minor units since sql/0027.
    assert.deepStrictEqual(after.rounds, [
      { environment: "live", aggregator: "playfiver", bet_total: "1234", win_total: "5678" },
      { environment: "test", aggregator: "sandbox", bet_total: "1234", win_total: "5678" }
    ])
    assert.deepStrictEqual(after.transactions, [
      { environment: "live", aggregator: "playfiver", kind: "bet", txn_id: "txn-1", amount: "4444" },
      { environment: "live", aggregator: "playfiver", kind: "refund", txn_id: "txn-1", amount: "0" },
      { environment: "test", aggregator: "sandbox", kind: "bet", txn_id: "txn-1", amount: "4444" },
      { environment: "test", aggregator: "sandbox", kind: "refund", txn_id: "txn-1", amount: "0" }
    ])
    assert.deepStrictEqual(after.providers, [{ aggregator: "playfiver", slug: "aurora", operator_enabled: false }])
    assert.deepStrictEqual(after.games, [{ aggregator: "playfiver", game_code: "g-1" }])

    // The keys are one aggregator's now: the same ids under another aggregator are other rows, and a repeat is not.
    const sqlOn = <A, E>(work: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
      Effect.flatMap(Effect.service(SqlClient.SqlClient), work).pipe(onDatabase(url))
    yield* sqlOn((sql) =>
      sql`
      INSERT INTO casino_providers (aggregator, slug, upstream_code, name) VALUES ('sandbox', 'aurora', 'AURORA', 'Aurora')`
    )
    const repeat = yield* sqlOn((sql) =>
      sql`
      INSERT INTO casino_providers (aggregator, slug, upstream_code, name)
      VALUES ('playfiver', 'aurora-2', 'AURORA', 'Aurora')`
    ).pipe(Effect.flip)
    assert.strictEqual(violated(repeat), "casino_providers_aggregator_upstream_code_key")
    const other = yield* sqlOn((sql) =>
      sql<{ id: string }>`
      INSERT INTO wallet_rounds (partner_id, environment, player_id, aggregator, round_id, status)
      SELECT partner_id, environment, player_id, 'sandbox', round_id, 'settled' FROM wallet_rounds
      WHERE environment = 'live' RETURNING id`
    )
    assert.strictEqual(other.length, 1)
    yield* sqlOn((sql) =>
      sql`
      INSERT INTO wallet_transactions (kind, txn_id, fingerprint, partner_id, environment, aggregator, player_id,
                                       currency, round_ref, round_id, bet, win, amount, status)
      SELECT 'bet', 'txn-1', 'f', partner_id, environment, 'sandbox', player_id, 'BRL', ${other[0].id}, round_id, 100,
             0, 0, 'pending'
      FROM wallet_rounds WHERE id = ${other[0].id}`
    )
    const twice = yield* sqlOn((sql) =>
      sql`
      INSERT INTO wallet_transactions (kind, txn_id, fingerprint, partner_id, environment, aggregator, player_id,
                                       currency, round_ref, round_id, bet, win, amount, status)
      SELECT 'bet', 'txn-1', 'f', partner_id, environment, 'sandbox', player_id, 'BRL', ${other[0].id}, round_id, 100,
             0, 0, 'pending'
      FROM wallet_rounds WHERE id = ${other[0].id}`
    ).pipe(Effect.flip)
    assert.strictEqual(violated(twice), "wallet_transactions_environment_aggregator_kind_txn_id")
  }))

it.effect("a deployment that ran the sandbox live says so before upgrading: its live rows and catalog become the sandbox's", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    yield* releaseBeforeAggregators(url)
    const name = new URL(url).pathname.slice(1)
    yield* Effect.flatMap(
      Effect.service(SqlClient.SqlClient),
      (sql) => sql.unsafe(`ALTER DATABASE "${name}" SET partner_api.casino_gateway = 'sandbox'`)
    ).pipe(onDatabase(url))
    yield* Database.migrate.pipe(onDatabase(url))
    const after = yield* aggregatorsOf(url)
    assert.deepStrictEqual(after.rounds.map((r) => r.aggregator), ["sandbox", "sandbox"])
    assert.deepStrictEqual(after.transactions.map((t) => t.aggregator), ["sandbox", "sandbox", "sandbox", "sandbox"])
    assert.deepStrictEqual(after.providers.map((p) => p.aggregator), ["sandbox"])
    assert.deepStrictEqual(after.games.map((g) => g.aggregator), ["sandbox"])
  }))

it.effect("a ledger of the release before the wallet's events upgrades in place: its rows and kept answers read as they were, and one debit is undone once", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    yield* releaseBeforeAggregators(url)
    yield* migrateUpTo(23).pipe(onDatabase(url))
    yield* Database.migrate.pipe(onDatabase(url))
    const sqlOn = <A, E>(work: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
      Effect.flatMap(Effect.service(SqlClient.SqlClient), work).pipe(onDatabase(url))
    // The rows of before, read by the ledger's own codec: their kept answers as the outcomes they were.
    const rows = yield* sqlOn((sql) =>
      sql`SELECT ${sql.literal(transactionColumns)} FROM wallet_transactions WHERE environment = 'live' ORDER BY kind`
        .pipe(Effect.flatMap(decodeTransactions))
    )
    assert.deepStrictEqual(rows.map((t) => [t.kind, t.debitTxnId, t.answer]), [
      ["bet", null, { refusal: null, balance: 14_444n }],
      ["refund", null, { refusal: null, balance: 14_444n }]
    ])
    // A rollback names its debit; the first undo is the only one the database takes (12.34 back, 144.44 after, in
    // minor units, in its debit's currency).
    const rollback = (txnId: string) =>
      sqlOn((sql) =>
        sql`
        INSERT INTO wallet_transactions (kind, txn_id, fingerprint, partner_id, environment, aggregator, player_id,
                                         currency, round_ref, round_id, debit_txn_id, amount, balance_after, status,
                                         answer, settled_at)
        SELECT 'rollback', ${txnId}, 'f', partner_id, environment, aggregator, player_id, currency, round_ref, round_id,
               'txn-1', 1234, 14444, 'applied', '{"msg": "", "balance": "14444"}', now()
        FROM wallet_transactions WHERE environment = 'live' AND kind = 'bet'`
      )
    yield* rollback("undo-1")
    assert.strictEqual(violated(yield* Effect.flip(rollback("undo-2"))), "wallet_transactions_one_rollback_per_debit")
  }))

/** The messages of an error and of its causes (and a SqlError's reason), one a line. */
const causesOf = (error: unknown): string => {
  const lines: Array<string> = []
  const seen = new Set<unknown>()
  const visit = (value: unknown) => {
    if (typeof value !== "object" || value === null || seen.has(value)) return
    seen.add(value)
    if ("message" in value) lines.push(String(value.message))
    if ("reason" in value) visit(value.reason)
    if ("cause" in value) visit(value.cause)
  }
  visit(error)
  return lines.join("\n")
}

/**
 * A database of the release before currencies (migrations up to 0026): a live player with 12.50, a round, an applied
 * bet and a refused one with their kept answers, the sandbox's wallet and session of the player, and a statement.
 * Every amount then was in the deployment's currency with two decimals.
 */
const releaseBeforeCurrencies = (url: string) =>
  Effect.gen(function*() {
    yield* migrateUpTo(26).pipe(onDatabase(url))
    yield* Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      Effect.gen(function*() {
        const [partner] = yield* sql<{ id: string }>`
          INSERT INTO partners (name, slug) VALUES ('Before Currencies', 'before-currencies') RETURNING id`
        const [player] = yield* sql<{ id: string }>`
          INSERT INTO partner_players (partner_id, environment, external_player_id, balance)
          VALUES (${partner.id}, 'live', 'ana', 12.50) RETURNING id`
        const [round] = yield* sql<{ id: string }>`
          INSERT INTO wallet_rounds (partner_id, environment, player_id, aggregator, round_id, status, bet_total,
                                     win_total)
          VALUES (${partner.id}, 'live', ${player.id}, 'playfiver', 'round-1', 'settled', 2.50, 1.25)
          RETURNING id`
        yield* sql`
          INSERT INTO wallet_transactions (kind, txn_id, fingerprint, partner_id, environment, aggregator, player_id,
                                           round_ref, round_id, bet, win, amount, balance_after, status, refusal,
                                           answer, settled_at)
          VALUES ('bet', 'txn-1', 'f', ${partner.id}, 'live', 'playfiver', ${player.id}, ${round.id}, 'round-1',
                  2.50, 1.25, -1.25, 12.50, 'applied', NULL, '{"msg": "", "balance": 12.50}', now()),
                 ('bet', 'txn-2', 'f', ${partner.id}, 'live', 'playfiver', ${player.id}, ${round.id}, 'round-1',
                  100.00, 0, 0, 12.50, 'refused', 'INSUFFICIENT_USER_FUNDS',
                  '{"msg": "INSUFFICIENT_USER_FUNDS", "balance": 12.50}', now())`
        yield* sql`
          INSERT INTO sandbox_partner_wallets (partner_id, external_player_id, balance)
          VALUES (${partner.id}, 'ana', 12.50)`
        yield* sql`
          INSERT INTO sandbox_casino_sessions (id, user_code, game_code, provider, balance, lang)
          VALUES ('session-1', 100001, 'g-1', 'aurora', 12.50, 'en')`
        yield* sql`
          INSERT INTO wallet_statements (partner_id, environment, day, bets, wins, refunds, rollbacks, net, transactions,
                                         document, document_sha256, computed_at)
          VALUES (${partner.id}, 'live', '2026-01-01', 2.50, 1.25, 0, 0, -1.25, 2, '{}', ${
          createHash("sha256").update("{}").digest()
        }, now())`
      })).pipe(onDatabase(url))
  })

/** What the upgrade to currencies is about: every amount and currency of the rows releaseBeforeCurrencies wrote. */
const currencyRowsOf = (url: string) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    Effect.all({
      players: sql`SELECT external_player_id, currency, balance::text FROM partner_players`,
      rounds: sql`SELECT round_id, bet_total::text, win_total::text FROM wallet_rounds`,
      transactions: sql`
        SELECT txn_id, status, currency, bet::text, win::text, amount::text, balance_after::text, answer
        FROM wallet_transactions ORDER BY txn_id`,
      sandboxWallets: sql`SELECT external_player_id, currency, balance::text FROM sandbox_partner_wallets`,
      sandboxSessions: sql`SELECT id, currency, balance::text FROM sandbox_casino_sessions`,
      statements: sql`
        SELECT day::text, currency, bets::text, wins::text, refunds::text, rollbacks::text, net::text, transactions
        FROM wallet_statement_totals`
    })).pipe(onDatabase(url))

it.effect("a database of the release before currencies upgrades in place: every amount the same value in BRL's minor units, every row in BRL; a DEFAULT_CURRENCY that cannot hold them stops the upgrade with nothing changed", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    yield* releaseBeforeCurrencies(url)
    const sqlOn = <A, E>(work: (sql: SqlClient.SqlClient) => Effect.Effect<A, E>) =>
      Effect.flatMap(Effect.service(SqlClient.SqlClient), work).pipe(onDatabase(url))
    const migrated = sqlOn((sql) =>
      sql<{ id: number }>`SELECT migration_id::int AS id FROM effect_sql_migrations ORDER BY migration_id`
    )
    const asBefore = sqlOn((sql) =>
      Effect.all({
        balances: sql`
          SELECT p.balance::text AS player, w.balance::text AS wallet, s.balance::text AS session
          FROM partner_players p, sandbox_partner_wallets w, sandbox_casino_sessions s`,
        transactions: sql`
          SELECT txn_id, bet::text, win::text, amount::text, balance_after::text, answer
          FROM wallet_transactions ORDER BY txn_id`,
        rounds: sql`SELECT bet_total::text, win_total::text FROM wallet_rounds`,
        statements: sql`SELECT bets::text, net::text FROM wallet_statements`,
        currencyColumns: sql`
          SELECT table_name FROM information_schema.columns
          WHERE table_schema = current_schema() AND column_name = 'currency'`
      })
    )
    const before = yield* asBefore
    assert.deepStrictEqual(before.balances, [{ player: "12.50", wallet: "12.50", session: "12.50" }])

    // A deployment in JPY has no cents: 12.50 is no amount of yen, so the upgrade refuses and changes nothing.
    const refused = yield* Database.migrate.pipe(
      onDatabase(url),
      Effect.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ DEFAULT_CURRENCY: "JPY" }))),
      Effect.flip
    )
    assert.strictEqual(refused._tag, "MigrationError")
    assert.match(causesOf(refused), /DEFAULT_CURRENCY JPY cannot hold the amounts already recorded exactly/)
    assert.deepStrictEqual((yield* migrated).at(-1), { id: 26 })
    assert.deepStrictEqual(yield* asBefore, before)
    assert.deepStrictEqual(before.currencyColumns, [])

    // In BRL (DEFAULT_CURRENCY unset): the same values, in centavos, every row BRL's.
    yield* Database.migrate.pipe(onDatabase(url))
    assert.isAbove((yield* migrated).at(-1)?.id ?? 0, 28)
    const after = yield* currencyRowsOf(url)
    assert.deepStrictEqual(after, {
      players: [{ external_player_id: "ana", currency: "BRL", balance: "1250" }],
      rounds: [{ round_id: "round-1", bet_total: "250", win_total: "125" }],
      transactions: [
        {
          txn_id: "txn-1",
          status: "applied",
          currency: "BRL",
          bet: "250",
          win: "125",
          amount: "-125",
          balance_after: "1250",
          answer: { msg: "", balance: "1250" }
        },
        {
          txn_id: "txn-2",
          status: "refused",
          currency: "BRL",
          bet: "10000",
          win: "0",
          amount: "0",
          balance_after: "1250",
          answer: { msg: "INSUFFICIENT_USER_FUNDS", balance: "1250" }
        }
      ],
      sandboxWallets: [{ external_player_id: "ana", currency: "BRL", balance: "1250" }],
      sandboxSessions: [{ id: "session-1", currency: "BRL", balance: "1250" }],
      statements: [{
        day: "2026-01-01",
        currency: "BRL",
        bets: "250",
        wins: "125",
        refunds: "0",
        rollbacks: "0",
        net: "-125",
        transactions: 2
      }]
    })
    // The ledger's own codec reads the kept answers as the outcomes they were, in minor units.
    const rows = yield* sqlOn((sql) =>
      sql`SELECT ${sql.literal(transactionColumns)} FROM wallet_transactions ORDER BY txn_id`
        .pipe(Effect.flatMap(decodeTransactions))
    )
    assert.deepStrictEqual(rows.map((t) => [t.txnId, t.bet, t.win, t.amount, t.balanceAfter, t.answer]), [
      ["txn-1", 250n, 125n, -125n, 1250n, { refusal: null, balance: 1250n }],
      ["txn-2", 10_000n, 0n, 0n, 1250n, { refusal: "INSUFFICIENT_USER_FUNDS", balance: 1250n }]
    ])
  }))

it.effect("the change log's event records of the release before the life cycle upgrade to its words; a final one says since when", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    yield* migrateUpTo(41).pipe(onDatabase(url))
    const answeredAt = "2026-11-20T21:00:00.000Z"
    yield* Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      sql`
        INSERT INTO sports_stream_events (provider, event_id, sport_id, league_id, league_name, home_name, away_name,
                                          starts_at, status, active, score, minute, answered_at, fingerprint)
        SELECT 'betsapi', s.status, 1, '94', 'League', 'Home', 'Away', now(), s.status, true, null, null,
               ${answeredAt}, 'x'
        FROM unnest(ARRAY['prematch', 'live', 'ended', 'postponed', 'cancelled', 'interrupted']) AS s(status)`).pipe(
        onDatabase(url)
      )
    yield* Database.migrate.pipe(onDatabase(url))
    const rows = yield* Effect.flatMap(
      Effect.service(SqlClient.SqlClient),
      (sql) =>
        sql<{ event_id: string; status: string; final_at: Date | null; reason: unknown }>`
        SELECT event_id, status, final_at, reason FROM sports_stream_events ORDER BY event_id`
    ).pipe(onDatabase(url))
    assert.deepStrictEqual(
      rows.map((row) => [row.event_id, row.status, row.final_at?.toISOString() ?? null, row.reason]),
      [
        ["cancelled", "cancelled", null, null],
        ["ended", "final", answeredAt, null],
        ["interrupted", "suspended", null, null],
        ["live", "live", null, null],
        ["postponed", "postponed", null, null],
        ["prematch", "scheduled", null, null]
      ]
    )
  }))
