import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import type { PartnerBooks } from "./FakePartner.ts"
import { FakeUpstream } from "./FakeUpstream.ts"
import { scopedDatabase } from "./TestDatabase.ts"

/**
 * What the crash tests start from: a database of the test's own, a partner whose live wallet is the fake partner
 * (its books know the webhook secret and the player's balance), and one persisted player holding `balance` (whole
 * currency units). The processes a test starts and kills run on `databaseUrl`; `sql` looks at what they wrote.
 */
export const givenCrashPartner = (books: PartnerBooks, slug: string, external: string, balance: number) =>
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
    const [player] = yield* sql<{ id: string; internal_user_id: string }>`
      INSERT INTO partner_players (partner_id, external_player_id, currency, balance)
      VALUES (${Number(partner.id)}, ${external}, 'BRL', ${balance * 100}) RETURNING id::text, internal_user_id::text
    `
    books.secrets.add(partner.webhook_secret)
    books.balances.set(external, BigInt(balance * 100))
    return { databaseUrl, sql, playerId: Number(player.id), userCode: Number(player.internal_user_id) }
  })
