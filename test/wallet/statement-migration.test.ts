/**
 * Statements written before currencies (sql/0029): their totals move to wallet_statement_totals in the deployment's
 * DEFAULT_CURRENCY (BRL here), in its minor units; a day without activity gets no currency; the document stays
 * byte for byte and is read in that currency.
 */
import { NodeServices } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { assert, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { createHash } from "node:crypto"
import { linesOf, summaryOf } from "../../src/domain/StatementDocument.ts"
import * as Database from "../../src/platform/Database.ts"
import { StatementRepo } from "../../src/wallet/statements/StatementRepo.ts"
import { scopedDatabase } from "../support/TestDatabase.ts"

const onDatabase = (url: string) => Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 4 }))

const migrateUpTo = (last: number) =>
  PgMigrator.run({
    loader: Effect.map(Database.sqlFileLoader(Database.migrationsDirectory), (all) => all.filter(([id]) => id <= last))
  }).pipe(Effect.provide(NodeServices.layer))

/** A statement document as the service wrote it before currencies: one totals object, lines without a currency. */
const oldDocument =
  "{\"record\":\"statement\",\"partner\":\"earlier-bets\",\"environment\":\"live\",\"date\":\"2026-11-22\"," +
  "\"from\":\"2026-11-22T00:00:00.000Z\",\"to\":\"2026-11-23T00:00:00.000Z\",\"computed_at\":\"2026-11-23T00:01:00.412Z\"," +
  "\"totals\":{\"bets\":16.25,\"wins\":7.5,\"refunds\":0,\"rollbacks\":0,\"net\":-8.75}," +
  "\"counts\":{\"transactions\":2,\"bets\":2,\"refused_bets\":0,\"wins\":1,\"refunds\":0,\"rollbacks\":0}}\n" +
  "{\"record\":\"transaction\",\"transaction_id\":\"txn-1\",\"kind\":\"bet\",\"status\":\"applied\",\"refusal\":null," +
  "\"note\":null,\"rolled_back\":false,\"external_player_id\":\"ana\",\"round_id\":\"r-1\",\"game_code\":\"g\"," +
  "\"provider_code\":\"p\",\"bet\":10,\"win\":7.5,\"amount\":-2.5,\"created_at\":\"2026-11-22T10:00:00.000Z\"," +
  "\"settled_at\":\"2026-11-22T10:00:00.100Z\"}\n" +
  "{\"record\":\"transaction\",\"transaction_id\":\"txn-2\",\"kind\":\"bet\",\"status\":\"applied\",\"refusal\":null," +
  "\"note\":null,\"rolled_back\":false,\"external_player_id\":\"ana\",\"round_id\":\"r-2\",\"game_code\":\"g\"," +
  "\"provider_code\":\"p\",\"bet\":6.25,\"win\":0,\"amount\":-6.25,\"created_at\":\"2026-11-22T11:00:00.000Z\"," +
  "\"settled_at\":\"2026-11-22T11:00:00.100Z\"}\n"
const emptyDocument =
  "{\"record\":\"statement\",\"partner\":\"earlier-bets\",\"environment\":\"test\",\"date\":\"2026-11-22\"," +
  "\"from\":\"2026-11-22T00:00:00.000Z\",\"to\":\"2026-11-23T00:00:00.000Z\",\"computed_at\":\"2026-11-23T00:01:00.412Z\"," +
  "\"totals\":{\"bets\":0,\"wins\":0,\"refunds\":0,\"rollbacks\":0,\"net\":0}," +
  "\"counts\":{\"transactions\":0,\"bets\":0,\"refused_bets\":0,\"wins\":0,\"refunds\":0,\"rollbacks\":0}}\n"
const sha = (text: string) => createHash("sha256").update(text).digest()

it.effect("statements of the release before currencies keep their documents and get their totals in DEFAULT_CURRENCY", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    const partnerId = yield* Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
      Effect.gen(function*() {
        yield* migrateUpTo(26)
        const [partner] = yield* sql<{ id: string }>`
          INSERT INTO partners (name, slug) VALUES ('Earlier Bets', 'earlier-bets') RETURNING id`
        yield* sql`
          INSERT INTO wallet_statements (partner_id, environment, day, bets, wins, refunds, rollbacks, net, transactions,
                                         document, document_sha256, computed_at)
          VALUES (${partner!.id}, 'live', '2026-11-22', 16.25, 7.5, 0, 0, -8.75, 2, ${oldDocument}, ${sha(oldDocument)},
                  '2026-11-23T00:01:00.412Z'),
                 (${partner!.id}, 'test', '2026-11-22', 0, 0, 0, 0, 0, 0, ${emptyDocument}, ${sha(emptyDocument)},
                  '2026-11-23T00:01:00.412Z')`
        yield* Database.migrate
        return Number(partner!.id)
      })).pipe(onDatabase(url))

    const repo = StatementRepo.layerSql.pipe(Layer.provide(PgClient.layer({ url: Redacted.make(url) })))
    const [live, test] = yield* Effect.flatMap(
      Effect.service(StatementRepo),
      (statements) =>
        Effect.all([
          statements.find(partnerId, "live", "2026-11-22"),
          statements.find(partnerId, "test", "2026-11-22")
        ])
    ).pipe(Effect.provide(repo))
    const stored = Option.getOrThrow(live)
    assert.strictEqual(stored.document, oldDocument, "byte for byte")
    assert.deepStrictEqual(new Uint8Array(stored.sha256), new Uint8Array(sha(oldDocument)))
    assert.deepStrictEqual(stored.currencies, [
      { currency: "BRL", bets: 1625n, wins: 750n, refunds: 0n, rollbacks: 0n, net: -875n, transactions: 2 }
    ])
    assert.deepStrictEqual(Option.getOrThrow(test).currencies, [], "a day without activity has no currency")
    // The old document, read in the currency its totals were given.
    assert.deepStrictEqual(summaryOf(oldDocument, "BRL").currencies.map((entry) => [entry.currency, entry.totals]), [
      ["BRL", { bets: 1625n, wins: 750n, refunds: 0n, rollbacks: 0n, net: -875n }]
    ])
    assert.deepStrictEqual(linesOf(oldDocument, 0, 10, "BRL").map((line) => [line.currency, line.bet, line.amount]), [
      ["BRL", 1000n, -250n],
      ["BRL", 625n, -625n]
    ])
    assert.deepStrictEqual(summaryOf(emptyDocument).currencies, [])
  }))
