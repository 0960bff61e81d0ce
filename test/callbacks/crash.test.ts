/**
 * Durability across processes: an instance killed (SIGKILL) in the middle
 * of delivering a notification. Another instance on the same database takes
 * the player's line over once the dead one's lock is stale, and the partner
 * is paid once.
 */
import { NodeServices } from "@effect/platform-node"
import { PgClient } from "@effect/sql-pg"
import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"
import { freePort, startNode } from "../support/process.ts"
import { scopedDatabase } from "../support/TestDatabase.ts"

const books = new PartnerBooks()


layer(Layer.merge(FakeUpstream.layer(books.script), NodeServices.layer), live)("a crashed instance", (it) => {
  it.effect("leaves its delivery to another instance, and the partner is paid once", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const databaseUrl = yield* scopedDatabase()
      const service = (env: Record<string, string>) =>
        Effect.gen(function*() {
          const port = yield* freePort()
          const running = yield* startNode(["src/main.ts"], {
            DATABASE_URL: databaseUrl,
            PORT: String(port),
            HOST: "127.0.0.1",
            CATALOG_REFRESH_INTERVAL: "24 hours",
            CATALOG_LIVE_REFRESH_INTERVAL: "24 hours",
            ...env
          }, /Listening on/)
          return { ...running, url: `http://127.0.0.1:${port}` }
        })

      const first = yield* service({ PARTNER_CALLBACK_TIMEOUT: "60 seconds" })

      const sql = Context.get(
        yield* Layer.build(PgClient.layer({ url: Redacted.make(databaseUrl), maxConnections: 2 })),
        SqlClient.SqlClient
      )
      const [partner] = yield* sql<{ id: string; webhook_secret: string }>`
        INSERT INTO partners (name, slug, token_hash, callback_url)
        VALUES ('Crash Partner', 'crash-partner', sha256('crash-token'), ${`${fake.url}/wallet`})
        RETURNING id::text, webhook_secret
      `
      const [player] = yield* sql<{ internal_user_id: string; id: string }>`
        INSERT INTO partner_players (partner_id, external_player_id, balance)
        VALUES (${Number(partner.id)}, 'crash-player', 50) RETURNING internal_user_id::text, id::text
      `
      const [agent] = yield* sql<{ value: string }>`SELECT value FROM service_secrets WHERE name = 'sandbox_agent_secret'`
      books.secrets.add(partner.webhook_secret)
      books.balances.set("crash-player", 5_000)
      books.hangNotifications = true

      const answer = yield* Effect.promise(() =>
        fetch(`${first.url}/aggregator/wallet`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            type: "WinBet",
            user_code: Number(player.internal_user_id),
            agent_code: "sandbox",
            agent_secret: agent.value,
            slot: { txn_id: "crash-win-1", round_id: "crash-round-1", bet: 5, win: 20, game_code: "g", provider_code: "p" }
          })
        }).then((response) => response.json())
      )
      assert.deepStrictEqual(answer, { msg: "", balance: 65 })
      const win = transactionEventId("win", "crash-win-1")
      // The first instance is now delivering the win, and the partner keeps it waiting.
      yield* eventually(Effect.sync(() => books.receivedFor(win).length), (n) => n === 1, "the first delivery attempt")
      process.kill(Number(first.handle.pid), "SIGKILL")
      books.hangNotifications = false

      const second = yield* service({ PARTNER_CALLBACK_STALE_LOCK: "2 seconds" })
      const delivered = yield* eventually(
        sql<{ status: string }>`SELECT status FROM partner_callbacks WHERE event_id = ${win}`,
        (rows) => rows[0]?.status === "delivered",
        "the delivery by the second instance"
      )
      assert.strictEqual(delivered[0].status, "delivered", second.output.join("\n"))
      assert.strictEqual(books.applied.filter((id) => id === win).length, 1)
      assert.strictEqual(books.balanceOf("crash-player"), 6_500)
    }).pipe(Effect.scoped), { timeout: 60_000 })
})
