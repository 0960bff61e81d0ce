import { onFreePort, startNode } from "./process.ts"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { minorOf } from "../../src/domain/Money.ts"
import type { PartnerBooks } from "./FakePartner.ts"
import { FakeUpstream } from "./FakeUpstream.ts"
import { scopedDatabase } from "./TestDatabase.ts"

/**
 * What the crash tests start from: a database of the test's own, a partner whose live wallet is the fake partner
 * (its books know the webhook secret and the player's balance), and one persisted player holding `balance` (whole
 * currency units) in `currency` (BRL unless said). The processes a test starts and kills run on `databaseUrl`; `sql`
 * looks at what they wrote; `givenRow` gives the same player a row (and a balance at the partner) in another currency.
 */
export const givenCrashPartner = (
  books: PartnerBooks,
  slug: string,
  external: string,
  balance: number | string,
  currency = "BRL"
) =>
  Effect.gen(function*() {
    const fake = yield* FakeUpstream
    const databaseUrl = yield* scopedDatabase()
    const sql = Context.get(
      yield* Layer.build(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 2 })),
      SqlClient.SqlClient
    )
    const [partner] = yield* sql<{ id: string; webhook_secret: string }>`
      WITH p AS (INSERT INTO partners (name, slug) VALUES (${slug}, ${slug}) RETURNING id)
      INSERT INTO partner_environments (partner_id, environment, callback_url)
      SELECT id, 'live', ${`${fake.url}/wallet`} FROM p
      RETURNING partner_id::text AS id, webhook_secret
    `
    /** The player's row in `code`, holding `amount` (whole units, as an aggregator writes them) on both sides. */
    const givenRow = (amount: number | string, code: string) =>
      Effect.gen(function*() {
        const minor = minorOf(String(amount), knownCurrency(code)!)!
        const [player] = yield* sql<{ id: string; internal_user_id: string }>`
          INSERT INTO partner_players (partner_id, external_player_id, currency, balance)
          VALUES (${Number(partner.id)}, ${external}, ${code}, ${
          String(minor)
        }) RETURNING id::text, internal_user_id::text
        `
        books.balances.set(books.walletOf(external, code), minor)
        return { playerId: Number(player.id), userCode: Number(player.internal_user_id) }
      })
    books.secrets.add(partner.webhook_secret)
    const player = yield* givenRow(balance, currency)
    return { databaseUrl, sql, givenRow, ...player }
  })

/**
 * An instance of the service in a process of its own on `databaseUrl` (its catalogues' refreshes out of the way),
 * reachable at `url`: what a crash test kills and starts again.
 */
export const startCrashService = (databaseUrl: string, env: Record<string, string> = {}) =>
  Effect.map(
    onFreePort((port) =>
      startNode(["src/main.ts"], {
        DATABASE_URL: databaseUrl,
        PARTNER_CALLBACK_ALLOW_PRIVATE: "true",
        PORT: String(port),
        HOST: "127.0.0.1",
        CATALOG_REFRESH_INTERVAL: "24 hours",
        CATALOG_LIVE_REFRESH_INTERVAL: "24 hours",
        ...env
      }, /Listening on/)
    ),
    (running) => ({ ...running, url: `http://127.0.0.1:${running.port}` })
  )
