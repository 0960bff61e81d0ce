import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { randomBytes } from "node:crypto"
import { storedCurrency } from "../../../src/domain/Currency.ts"
import type { HeldQueue } from "../../../src/domain/DeliveryQueue.ts"
import type { PartnerPlayer } from "../../../src/domain/Partner.ts"
import type { PartnerRepo } from "../../../src/partners/PartnerRepo.ts"
import { PartnerPlayers } from "../../../src/partners/PartnerPlayers.ts"
import { OutboxRepo } from "../../../src/wallet/outbox/OutboxRepo.ts"
import { WalletRepo } from "../../../src/wallet/WalletRepo.ts"
import { givenRepoPlayer, writeRepoWin } from "../../support/RepoPartner.ts"

/**
 * What the players' delivery queues promise, whichever form keeps them: OutboxRepo over PostgreSQL (layerSql) and
 * over memory (layerMemory), the notifications written by WalletRepo, run by outbox-queue-repo.test.ts on the real
 * clock (stale holds and backoffs must pass).
 */
export const outboxQueueSpec = (it: Vitest.MethodsNonLive<WalletRepo | PartnerPlayers | OutboxRepo | PartnerRepo>) => {
  const unique = () => randomBytes(4).toString("hex")
  const staleAfter = Duration.minutes(1)
  const givenPlayer = givenRepoPlayer
  const writeWin = writeRepoWin
  /**
   * The player's queue if `holder` could claim it now. Other due queues it claimed (other tests' players) are handed
   * straight back.
   */
  const claimOf = (holder: string, player: PartnerPlayer, staleFor = staleAfter) =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const claimed = yield* repo.claim(holder, 1_000, staleFor)
      for (const other of claimed) if (other.playerId !== player.id) yield* repo.release(other, { _tag: "Due" })
      return claimed.find((queue) => queue.playerId === player.id)
    })
  const deliverAll = (player: PartnerPlayer) =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      for (const head of yield* repo.queueOf(player.id, 100)) yield* repo.markDelivered(head.id)
    })

  it.effect("a failure reported after another sender delivered the notification leaves it delivered, owed nothing", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const player = yield* givenPlayer
      yield* writeWin(player)
      const [head] = yield* repo.queueOf(player.id, 1)
      // A run took it, a wallet call's catch-up delivered it meanwhile, then the run's own attempt failed.
      yield* repo.markDelivered(head.id)
      yield* repo.markFailed(head.id, "The partner refused it.", false)
      yield* repo.markFailed(head.id, "The partner refused it.", true)
      assert.deepStrictEqual(yield* repo.queueOf(player.id, 1), [])
      assert.strictEqual(yield* repo.owedTo(player.id, storedCurrency(player.currency)), 0n)
    }))

  it.effect("a notification makes its player's queue due; one holder at a time; an emptied queue is forgotten", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const player = yield* givenPlayer
      assert.isUndefined(yield* claimOf(`a-${unique()}`, player), "no notification, no queue")
      yield* writeWin(player)
      const held = yield* claimOf(`a-${unique()}`, player)
      assert.deepInclude(held, { playerId: player.id, attempts: 0 })
      assert.isUndefined(yield* claimOf(`b-${unique()}`, player), "held by another")
      yield* deliverAll(player)
      yield* repo.release(held!, { _tag: "Emptied" })
      assert.isUndefined(yield* claimOf(`b-${unique()}`, player), "forgotten")
    }))

  it.effect("a notification written while the queue is held keeps it, due, when its holder finds it emptied", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const player = yield* givenPlayer
      yield* writeWin(player)
      const held = (yield* claimOf(`a-${unique()}`, player))!
      yield* deliverAll(player)
      yield* writeWin(player)
      yield* repo.release(held, { _tag: "Emptied" })
      assert.deepInclude(yield* claimOf(`b-${unique()}`, player), { playerId: player.id, attempts: 0 })
    }))

  it.effect("a queue held longer than the claimer's stale time is claimable again; its old holder's release changes nothing", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const player = yield* givenPlayer
      yield* writeWin(player)
      const crashed = (yield* claimOf(`crashed-${unique()}`, player))!
      yield* Effect.sleep("400 millis")
      assert.isUndefined(yield* claimOf(`b-${unique()}`, player), "not held a minute yet")
      const taken = yield* claimOf(`b-${unique()}`, player, Duration.millis(300))
      assert.deepInclude(taken, { playerId: player.id })
      yield* repo.release(crashed, { _tag: "Due" })
      assert.isUndefined(yield* claimOf(`c-${unique()}`, player), "still its new holder's")
    }))

  it.effect("a failed run backs off; a parked queue waits until scheduled or written to, its backoff forgotten", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const player = yield* givenPlayer
      yield* writeWin(player)
      const first = (yield* claimOf(`a-${unique()}`, player))!
      yield* repo.release(first, { _tag: "BackingOff", attempts: 1, delay: Duration.millis(300) })
      assert.isUndefined(yield* claimOf(`b-${unique()}`, player), "backing off")
      const [listed] = yield* repo.list({ playerId: player.id, status: "pending", limit: 1 })
      assert.isAbove(listed.nextAttemptAt!.getTime(), Date.now(), "its next attempt is ahead")
      yield* Effect.sleep("400 millis")
      const second = yield* claimOf(`b-${unique()}`, player)
      assert.deepInclude(second, { attempts: 1 })

      yield* repo.release(second!, { _tag: "Parked", attempts: 2 })
      yield* Effect.sleep("100 millis")
      assert.isUndefined(yield* claimOf(`c-${unique()}`, player), "parked")
      yield* repo.scheduleQueue(player.id, "preserve")
      const revived = yield* claimOf(`c-${unique()}`, player)
      assert.deepInclude(revived, { attempts: 0 })

      yield* repo.release(revived!, { _tag: "BackingOff", attempts: 3, delay: Duration.hours(1) })
      yield* writeWin(player)
      assert.deepInclude(yield* claimOf(`d-${unique()}`, player), { attempts: 0 }, "a new notification")
    }))

  it.effect("the backlog counts the queues not held, held, and not held after failed runs", () =>
    Effect.gen(function*() {
      const repo = yield* OutboxRepo
      const [waiting, holding, failing] = [yield* givenPlayer, yield* givenPlayer, yield* givenPlayer]
      for (const player of [waiting, holding, failing]) yield* writeWin(player)
      const before = (yield* repo.backlog).queues
      const held: Array<HeldQueue> = [(yield* claimOf(`a-${unique()}`, holding))!]
      const failed = (yield* claimOf(`a-${unique()}`, failing))!
      yield* repo.release(failed, { _tag: "BackingOff", attempts: 1, delay: Duration.hours(1) })
      const after = (yield* repo.backlog).queues
      assert.deepStrictEqual(
        [after.queued - before.queued, after.locked - before.locked, after.failing - before.failing],
        [-1, 1, 1]
      )
      for (const queue of held) yield* repo.release(queue, { _tag: "Due" })
    }))
}
