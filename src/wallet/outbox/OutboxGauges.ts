import { Effect, Metric } from "effect"
import { outboxFailed, outboxOldestPendingAge, outboxPending } from "../../platform/Metrics.ts"
import type { OutboxRepo } from "./OutboxRepo.ts"

/**
 * Brings the outbox's gauges up to date from the database: run by /metrics
 * scrapes (at most once every few seconds, shared by the scrapes that come
 * meanwhile; see MetricsRoute.ts), so they cost nothing while nobody scrapes
 * and say the same on every instance (the outbox is shared).
 */
export const refreshOutboxGauges = (repo: OutboxRepo["Service"]) =>
  Effect.flatMap(repo.backlog, (backlog) =>
    Effect.all([
      Metric.update(outboxPending, backlog.pending),
      Metric.update(outboxFailed, backlog.failed),
      Metric.update(outboxOldestPendingAge, backlog.oldestPendingSeconds)
    ], { discard: true })).pipe(Effect.withSpan("OutboxGauges.refresh"))
