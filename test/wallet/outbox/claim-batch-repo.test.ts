/**
 * A claim brings its queue's batch, and a release writes its run's marks, alike over PostgreSQL and over memory
 * (OutboxRepo.layerSql, OutboxRepo.layerMemory), the notifications written by the wallet's repository of the same form.
 */
import { assert } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { randomBytes } from "node:crypto"
import type { PartnerPlayer } from "../../../src/domain/Partner.ts"
import { OutboxRepo } from "../../../src/wallet/outbox/OutboxRepo.ts"
import { givenRepoPlayer, writeRepoWin } from "../../support/RepoPartner.ts"
import { type OutboxRepoSpec, overBothForms } from "./OutboxRepoForms.ts"

const unique = () => randomBytes(4).toString("hex")

const writeWin = writeRepoWin

/** The player's queue if `holder` could claim it now; other players' queues claimed are handed back. */
const claimOf = (holder: string, player: PartnerPlayer, staleFor = Duration.minutes(1)) =>
  Effect.gen(function*() {
    const repo = yield* OutboxRepo
    const claimed = yield* repo.claim(holder, 1_000, staleFor)
    for (const other of claimed) if (other.playerId !== player.id) yield* repo.release(other, { _tag: "Due" })
    return claimed.find((queue) => queue.playerId === player.id)
  })

const statusOf = (player: PartnerPlayer) =>
  Effect.flatMap(
    Effect.service(OutboxRepo),
    (repo) => repo.list({ playerId: player.id, limit: 100 })
  ).pipe(Effect.map((rows) => [...rows].reverse().map((row) => [row.eventId, row.status, row.attempts] as const)))

const spec: OutboxRepoSpec = (it) => {
  it.effect("a claim brings the queue's undelivered notifications, oldest first; a release marks them delivered", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const player = yield* givenRepoPlayer
      const first = yield* writeWin(player)
      const second = yield* writeWin(player)
      const held = (yield* claimOf(`a-${unique()}`, player))!
      assert.deepStrictEqual(held.batch.map((head) => head.eventId), [first, second])
      yield* repo.release(held, { _tag: "Emptied" }, { delivered: held.batch.map((head) => head.id) })
      assert.deepStrictEqual(yield* statusOf(player), [[first, "delivered", 1], [second, "delivered", 1]])
      assert.isUndefined(yield* claimOf(`b-${unique()}`, player), "forgotten")
    }))

  it.effect("a notification written after the claim is not in its batch, and keeps the queue the release empties", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const player = yield* givenRepoPlayer
      const first = yield* writeWin(player)
      const held = (yield* claimOf(`a-${unique()}`, player))!
      const later = yield* writeWin(player)
      assert.deepStrictEqual(held.batch.map((head) => head.eventId), [first])
      yield* repo.release(held, { _tag: "Emptied" }, { delivered: [held.batch[0].id] })
      const next = (yield* claimOf(`b-${unique()}`, player))!
      assert.deepStrictEqual(next.batch.map((head) => head.eventId), [later])
      assert.strictEqual(next.attempts, 0)
      yield* repo.release(next, { _tag: "Due" })
    }))

  it.effect("a failed attempt is written with the release that backs the queue off", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const player = yield* givenRepoPlayer
      const first = yield* writeWin(player)
      const held = (yield* claimOf(`a-${unique()}`, player))!
      yield* repo.release(held, { _tag: "BackingOff", attempts: 1, delay: Duration.hours(1) }, {
        delivered: [],
        failed: { id: held.batch[0].id, error: "The partner answered HTTP 500.", final: false }
      })
      assert.deepStrictEqual(yield* statusOf(player), [[first, "pending", 1]])
      const [listed] = yield* repo.list({ playerId: player.id, limit: 1 })
      assert.strictEqual(listed.lastError, "The partner answered HTTP 500.")
      assert.isUndefined(yield* claimOf(`b-${unique()}`, player), "backing off")
    }))

  it.effect("a holder taken for dead still writes its marks, and its release leaves the queue to its new holder", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const player = yield* givenRepoPlayer
      const first = yield* writeWin(player)
      const crashed = (yield* claimOf(`crashed-${unique()}`, player))!
      // A claimer to which any hold is stale (its stale time negative): no waiting for one to age.
      const taken = (yield* claimOf(`b-${unique()}`, player, Duration.seconds(-1)))!
      yield* repo.release(crashed, { _tag: "Emptied" }, { delivered: [crashed.batch[0].id] })
      assert.deepStrictEqual(yield* statusOf(player), [[first, "delivered", 1]])
      assert.isUndefined(yield* claimOf(`c-${unique()}`, player), "still its new holder's")
      yield* repo.release(taken, { _tag: "Emptied" })
      assert.isUndefined(yield* claimOf(`c-${unique()}`, player), "forgotten by its new holder")
    }))
}

overBothForms("a claim's batch and a release's marks", spec)
