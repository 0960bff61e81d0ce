/**
 * A database of the release that delivered through graphile-worker (a job per player) upgraded (sql/0041): every
 * player with undelivered notifications has a delivery queue, and the delivery jobs leave the job queue through its
 * own functions (one an old instance runs is never tried again), the fleet's jobs untouched.
 */
import { NodeServices } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { assert, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import * as Database from "../../../src/platform/Database.ts"
import { scopedDatabase } from "../../support/TestDatabase.ts"

const migrateUpTo = (last: number) =>
  Effect.flatMap(Effect.orDie(Database.migrationSettings), (settings) =>
    PgMigrator.run({
      loader: Effect.map(
        Database.sqlFileLoader(Database.migrationsDirectory, settings),
        (all) => all.filter(([id]) => id <= last)
      )
    })).pipe(Effect.provide(NodeServices.layer))

it.effect("undelivered notifications get their players' queues; the delivery jobs leave graphile-worker", () =>
  Effect.gen(function*() {
    const url = yield* scopedDatabase({ empty: true })
    yield* Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      yield* migrateUpTo(39)
      yield* Database.migrateJobQueue(Redacted.make(url))
      const [partner] = yield* sql<
        { id: string }
      >`INSERT INTO partners (name, slug) VALUES ('Old', 'old') RETURNING id::text`
      const players = yield* sql<{ id: string; external: string }>`
        INSERT INTO partner_players (partner_id, external_player_id, currency, balance)
        SELECT ${partner.id}, external, 'BRL', 0 FROM unnest(ARRAY['waiting', 'exhausted', 'done']) AS external
        RETURNING id::text, external_player_id AS external`
      const id = (external: string) => players.find((player) => player.external === external)!.id
      const callback = (external: string, txn: string, status: string, attempts: number) =>
        sql`INSERT INTO partner_callbacks (event_id, partner_id, player_id, kind, txn_id, body, status, attempts)
            VALUES (${`evt_${txn}`}, ${partner.id}, ${id(external)}, 'win', ${txn}, '{}', ${status}, ${attempts})`
      yield* callback("waiting", "w-1", "delivered", 1)
      yield* callback("waiting", "w-2", "pending", 3)
      yield* callback("exhausted", "x-1", "failed", 25)
      yield* callback("exhausted", "x-2", "pending", 0)
      yield* callback("done", "d-1", "delivered", 1)
      const job = (external: string, task = "partner_callbacks") =>
        sql`SELECT id FROM graphile_worker.add_job(${task}, json_build_object('player_id', ${id(external)}::bigint),
              queue_name => ${`partner-callbacks:player:${id(external)}`},
              job_key => ${`partner-callbacks:player:${id(external)}`})`
      yield* job("waiting")
      yield* job("exhausted")
      // An instance of the old release runs the exhausted player's job right now.
      yield* sql`UPDATE graphile_worker._private_jobs SET locked_at = now(), locked_by = 'old-instance'
                 WHERE key = ${`partner-callbacks:player:${id("exhausted")}`}`
      yield* sql`SELECT id FROM graphile_worker.add_job('fleet_task', '{}'::json, job_key => 'fleet')`

      yield* Database.migrate
      const queues = yield* sql<{ player: string; due: boolean | null; attempts: number }>`
        SELECT p.external_player_id AS player, q.next_attempt_at <= now() AS due, q.attempts
        FROM partner_callback_queues q JOIN partner_players p ON p.id = q.player_id ORDER BY player`
      assert.deepStrictEqual(queues, [
        { player: "exhausted", due: null, attempts: 25 },
        { player: "waiting", due: true, attempts: 0 }
      ])
      const jobs = yield* sql<{ task: string; key: string | null; locked: boolean; retried: boolean }>`
        SELECT task_identifier AS task, key, locked_at IS NOT NULL AS locked, attempts < max_attempts AS retried
        FROM graphile_worker.jobs ORDER BY task_identifier`
      assert.deepStrictEqual(jobs, [
        { task: "fleet_task", key: "fleet", locked: false, retried: true },
        { task: "partner_callbacks", key: null, locked: true, retried: false }
      ])
      const [{ n }] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM graphile_worker._private_job_queues WHERE queue_name LIKE 'partner-callbacks:%'`
      assert.strictEqual(n, 1, "only the queue of the job still running")
    }).pipe(Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 4 })))
  }))
