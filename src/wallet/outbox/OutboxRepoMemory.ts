import type { Currency } from "../../domain/Currency.ts"
import { Clock, Duration, Effect, Option, Schedule } from "effect"
import type { Callback } from "../../domain/Callbacks.ts"
import { creditOf } from "../../domain/Callbacks.ts"
import { drainBatch, type HeldQueue, type QueueRelease } from "../../domain/DeliveryQueue.ts"
import type { MemoryCallback } from "../WalletRepoMemory.ts"
import type { Backlog, CallbackFilter, ClaimedQueue, OutboxRepoShape, QueueHead, RunMarks } from "./OutboxShape.ts"

/** A player's delivery queue in memory: partner_callback_queues' row; times in the Clock's milliseconds. */
interface MemoryQueue {
  nextAttemptAt: number | null
  attempts: number
  lockedBy: string | null
  lockedAt: number | null
  /** Bumped by every write of the queue (a scheduling, a claim), as the row's xmin changes: a lease compares it. */
  version: number
}

/**
 * The outbox in memory (`OutboxRepo.layerMemory`): the callbacks the
 * memory wallet repository wrote (MemoryCallbacks) read as the outbox's rows,
 * with their delivery state and the players' delivery queues kept here. A
 * notification is seen when the outbox next reads (nothing here runs
 * between a write and a read): its player's queue is then made due, as the
 * SQL's statement does at the write.
 */
export const make = (written: ReadonlyArray<MemoryCallback>): Effect.Effect<OutboxRepoShape> =>
  Effect.sync(() => {
    /** Rows by id (their index in `written`, from 1), created when first read. */
    const rows = new Map<number, Callback>()
    const queues = new Map<number, MemoryQueue>()
    const free = (queue: MemoryQueue) => queue.lockedAt === null
    let versions = 0
    const undelivered = (all: ReadonlyArray<Callback>, playerId: number) =>
      all.filter((row) => row.playerId === playerId && row.status !== "delivered" && row.kind !== "bet")
    /** queuesScheduling's rule: see OutboxRepoShape.scheduleQueue. */
    const schedule = (playerId: number, mode: "preserve" | "now", now: number) => {
      const queue = queues.get(playerId)
      if (queue === undefined) {
        queues.set(playerId, { nextAttemptAt: now, attempts: 0, lockedBy: null, lockedAt: null, version: ++versions })
        return
      }
      const waiting = mode === "preserve" && queue.attempts === 0 && queue.nextAttemptAt !== null
      queue.nextAttemptAt = waiting ? queue.nextAttemptAt : now
      queue.attempts = 0
      queue.version = ++versions
    }
    const rowsNow = (now: Date): ReadonlyArray<Callback> => {
      written.forEach((callback, index) => {
        const id = index + 1
        if (rows.has(id)) return
        const status = callback.asked === undefined ? "pending" : callback.asked.error === null ? "delivered" : "failed"
        rows.set(id, {
          id,
          eventId: callback.eventId,
          partnerId: callback.partnerId,
          environment: callback.environment,
          playerId: callback.playerId,
          kind: callback.kind,
          txnId: callback.txnId,
          transactionRef: callback.transactionRef,
          status,
          attempts: callback.asked === undefined ? 0 : 1,
          lastError: callback.asked?.error ?? null,
          createdAt: now,
          deliveredAt: status === "delivered" ? now : null,
          nextAttemptAt: null,
          body: callback.body
        })
        if (status === "pending") schedule(callback.playerId, "preserve", now.getTime())
      })
      return [...rows.values()].map((row) =>
        row.status === "pending" ? { ...row, nextAttemptAt: dueAt(row.playerId) } : row
      )
    }
    const dueAt = (playerId: number) => {
      const next = queues.get(playerId)?.nextAttemptAt
      return next === undefined || next === null ? null : new Date(next)
    }
    const read = <A>(f: (rows: ReadonlyArray<Callback>, now: Date) => A) =>
      Effect.map(Clock.currentTimeMillis, (millis) => f(rowsNow(new Date(millis)), new Date(millis)))
    const changeNow = (id: number, now: Date, f: (row: Callback, now: Date) => Partial<Callback>) => {
      const row = rows.get(id)
      if (row !== undefined) rows.set(id, { ...row, ...f(row, now) })
    }
    const change = (id: number, f: (row: Callback, now: Date) => Partial<Callback>) =>
      read((_, now) => changeNow(id, now, f))
    const deliveredNow = (row: Callback, now: Date): Partial<Callback> => ({
      status: "delivered",
      attempts: row.attempts + 1,
      lastError: null,
      deliveredAt: now
    })
    const failedAttempt = (error: string, final: boolean) => (row: Callback): Partial<Callback> =>
      row.status === "delivered"
        ? {}
        : { attempts: row.attempts + 1, lastError: error, status: final ? "failed" : "pending" }
    const headOf = (row: Callback): QueueHead => ({
      id: row.id,
      eventId: row.eventId,
      kind: row.kind,
      body: row.body,
      partnerId: row.partnerId,
      environment: row.environment
    })

    return {
      queueOf: (playerId: number, limit: number) =>
        read((all) => undelivered(all, playerId).slice(0, limit).map(headOf)),
      owedTo: (playerId: number, currency: Currency) =>
        read((all) =>
          all.filter((row) => row.playerId === playerId && row.status !== "delivered")
            .reduce((owed, row) => owed + creditOf(row, currency), 0n)
        ),
      markDelivered: (id: number) => change(id, deliveredNow),
      markFailed: (id: number, error: string, final: boolean) => change(id, failedAttempt(error, final)),
      scheduleQueue: (playerId: number, mode: "preserve" | "now") =>
        read((_, now) => schedule(playerId, mode, now.getTime())),
      claim: (holder: string, limit: number, staleAfter: Duration.Duration) =>
        read((all, now) =>
          [...queues.entries()]
            .filter(([, queue]) =>
              queue.nextAttemptAt !== null && queue.nextAttemptAt <= now.getTime() &&
              (queue.lockedAt === null || queue.lockedAt < now.getTime() - Duration.toMillis(staleAfter))
            )
            .sort(([, a], [, b]) => a.nextAttemptAt! - b.nextAttemptAt!)
            .slice(0, limit)
            .map(([playerId, queue]): ClaimedQueue => {
              queue.lockedBy = holder
              queue.lockedAt = now.getTime()
              queue.version = ++versions
              const batch = undelivered(all, playerId).slice(0, drainBatch).map(headOf)
              return { playerId, holder, attempts: queue.attempts, lease: String(queue.version), batch }
            })
        ),
      // The marks first, as the SQL's statement writes them whoever holds the queue; an emptied queue is forgotten
      // only as the SQL's is: nothing left undelivered, and nothing wrote the queue since its claim.
      release: (held: HeldQueue, release: QueueRelease, marks: RunMarks = { delivered: [] }) =>
        read((_, now) => {
          for (const id of marks.delivered) changeNow(id, now, deliveredNow)
          if (marks.failed !== undefined) {
            changeNow(marks.failed.id, now, failedAttempt(marks.failed.error, marks.failed.final))
          }
          const queue = queues.get(held.playerId)
          if (queue === undefined || queue.lockedBy !== held.holder) {
            return
          }
          const untouched = String(queue.version) === held.lease
          if (release._tag === "Emptied" && untouched && undelivered([...rows.values()], held.playerId).length === 0) {
            return void queues.delete(held.playerId)
          }
          const failed = release._tag === "BackingOff" || release._tag === "Parked"
          Object.assign(queue, {
            lockedBy: null,
            lockedAt: null,
            version: ++versions,
            attempts: failed ? release.attempts : 0,
            nextAttemptAt: release._tag === "Parked"
              ? null
              : now.getTime() + (release._tag === "BackingOff" ? Duration.toMillis(release.delay) : 0)
          })
        }),
      // Nothing announces a write in memory: the written callbacks are looked at every few milliseconds instead.
      whenWritten: (wake: Effect.Effect<void>) => {
        let seen = written.length
        const look = Effect.suspend(() => {
          if (written.length === seen) return Effect.void
          seen = written.length
          return wake
        })
        return Effect.asVoid(Effect.forkScoped(Effect.repeat(look, Schedule.spaced("20 millis"))))
      },
      list: (filter: CallbackFilter) =>
        read((all) =>
          all.filter((row) =>
            (filter.status === undefined || row.status === filter.status) &&
            (filter.partnerId === undefined || row.partnerId === filter.partnerId) &&
            (filter.environment === undefined || row.environment === filter.environment) &&
            (filter.playerId === undefined || row.playerId === filter.playerId)
          ).reverse().slice(0, filter.limit)
        ),
      find: (id: number, partnerId?: number) =>
        read((all) =>
          Option.fromNullishOr(
            all.find((row) => row.id === id && (partnerId === undefined || row.partnerId === partnerId))
          )
        ),
      requeue: (id: number) =>
        Effect.andThen(
          change(id, () => ({ status: "pending", lastError: null })),
          read((all, now) => {
            const row = rows.get(id)
            if (row !== undefined) schedule(row.playerId, "now", now.getTime())
            return Option.fromNullishOr(all.find((requeued) => requeued.id === id))
          })
        ),
      ofTransactions: (refs: ReadonlyArray<number>) =>
        read((all) => all.filter((row) => row.transactionRef !== null && refs.includes(row.transactionRef))),
      rolledBack: (refs: ReadonlyArray<number>) =>
        read((all) =>
          new Set(
            all.filter((row) =>
              row.kind === "rollback" && row.transactionRef !== null && refs.includes(row.transactionRef)
            )
              .map((row) => row.transactionRef!)
          )
        ),
      exhausted: (limit: number) =>
        read((all) => all.filter((row) => row.status === "failed" && row.kind !== "bet").slice(0, limit)),
      backlog: read((all, now): Backlog => {
        const waiting = all.filter((row) => row.status !== "delivered" && row.kind !== "bet")
        const pending = waiting.filter((row) => row.status === "pending")
        const oldest = pending.reduce((min, row) => Math.min(min, row.createdAt.getTime()), now.getTime())
        return {
          pending: pending.length,
          failed: waiting.length - pending.length,
          oldestPendingSeconds: (now.getTime() - oldest) / 1000,
          queues: {
            queued: [...queues.values()].filter(free).length,
            locked: [...queues.values()].filter((queue) => !free(queue)).length,
            failing: [...queues.values()].filter((queue) => free(queue) && queue.attempts > 0).length
          }
        }
      })
    }
  })
