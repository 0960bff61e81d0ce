import type { Currency } from "../../domain/Currency.ts"
import { Clock, Effect, Option } from "effect"
import type { Callback } from "../../domain/Callbacks.ts"
import { creditOf } from "../../domain/Callbacks.ts"
import type { MemoryCallback } from "../WalletRepoMemory.ts"
import type { Backlog, CallbackFilter, OutboxRepoShape, QueueHead } from "./OutboxShape.ts"

/**
 * The outbox in memory (`OutboxRepo.layerMemory`): the callbacks the
 * memory wallet repository wrote (MemoryCallbacks) read as the outbox's rows,
 * with their delivery state kept here. There is no job queue: no delivery queue is
 * scheduled; it serves tests of the ledger's handlers and of the rules, not
 * of delivery.
 */
export const make = (written: ReadonlyArray<MemoryCallback>): Effect.Effect<OutboxRepoShape> =>
  Effect.sync(() => {
    /** Rows by id (their index in `written`, from 1), created when first read. */
    const rows = new Map<number, Callback>()
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
      })
      return [...rows.values()]
    }
    const read = <A>(f: (rows: ReadonlyArray<Callback>, now: Date) => A) =>
      Effect.map(Clock.currentTimeMillis, (millis) => f(rowsNow(new Date(millis)), new Date(millis)))
    const change = (id: number, f: (row: Callback, now: Date) => Partial<Callback>) =>
      read((_, now) => {
        const row = rows.get(id)
        if (row !== undefined) rows.set(id, { ...row, ...f(row, now) })
      })

    return {
      queueOf: (playerId: number, limit: number) =>
        read((all) =>
          all.filter((row) => row.playerId === playerId && row.status !== "delivered" && row.kind !== "bet").slice(
            0,
            limit
          ).map(
            (row): QueueHead => ({
              id: row.id,
              eventId: row.eventId,
              kind: row.kind,
              body: row.body,
              partnerId: row.partnerId,
              environment: row.environment
            })
          )
        ),
      countOf: (playerId: number) => read((all) => all.filter((row) => row.playerId === playerId).length),
      owedTo: (playerId: number, currency: Currency) =>
        read((all) =>
          all.filter((row) => row.playerId === playerId && row.status !== "delivered")
            .reduce((owed, row) => owed + creditOf(row, currency), 0n)
        ),
      markDelivered: (id: number) =>
        change(
          id,
          (row, now) => ({ status: "delivered", attempts: row.attempts + 1, lastError: null, deliveredAt: now })
        ),
      markFailed: (id: number, error: string, final: boolean) =>
        change(id, (row) => ({ attempts: row.attempts + 1, lastError: error, status: final ? "failed" : "pending" })),
      scheduleQueue: (_playerId: number, _mode: "preserve_run_at" | "replace") => Effect.void,
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
      requeue: (id: number) => change(id, () => ({ status: "pending", lastError: null })),
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
          jobs: { queued: 0, locked: 0, failing: 0 }
        }
      })
    }
  })
