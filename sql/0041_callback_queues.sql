-- The outbox's own delivery queues (issue 38): a row per player with notifications to deliver, which a worker claims
-- (locked_by, locked_at) and drains in order. It replaces a graphile-worker job per player, whose
-- add_job was a large part of a win's cost and whose locked, exhausted jobs could stop the queue's runner.
CREATE TABLE partner_callback_queues (
  -- A player deleted (a partner's test environment cleared) takes their queue along.
  player_id       bigint PRIMARY KEY REFERENCES partner_players (id) ON DELETE CASCADE,
  -- When a worker may take the queue next; NULL: its head failed for good and it waits for an operator.
  next_attempt_at timestamptz DEFAULT now(),
  -- Runs that failed in a row: the backoff's exponent.
  attempts        integer NOT NULL DEFAULT 0,
  locked_by       text,
  -- A holder that kept the queue longer than a claiming worker's PARTNER_CALLBACK_STALE_LOCK is taken for dead:
  -- the queue may be claimed again.
  locked_at       timestamptz
);
CREATE INDEX partner_callback_queues_due ON partner_callback_queues (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
COMMENT ON TABLE partner_callback_queues IS
  'OutboxRepo: a player''s delivery queue while they have notifications to deliver; written with them (WalletRepoSql).';
COMMENT ON INDEX partner_callback_queues_due IS 'OutboxRepo.claim (the due queues, the longest waiting first).';

-- Every player with undelivered notifications gets a queue: due now, or waiting for an operator when its head failed
-- for good (as its job did).
INSERT INTO partner_callback_queues (player_id, next_attempt_at, attempts)
SELECT DISTINCT ON (player_id) player_id,
       CASE WHEN status = 'failed' THEN NULL ELSE now() END,
       CASE WHEN status = 'failed' THEN attempts ELSE 0 END
FROM partner_callbacks
WHERE status <> 'delivered' AND kind <> 'bet'
ORDER BY player_id, id;

-- The delivery jobs leave graphile-worker's queue through its own functions: a job no instance runs is deleted, one
-- an instance of the previous release runs right now finishes its run and is never tried again (its notifications
-- are the new queue's). Their job queues go once empty. A database without the job queue's schema has no jobs.
IF to_regclass('graphile_worker.jobs') IS NOT NULL THEN
  PERFORM graphile_worker.remove_job(key) FROM graphile_worker.jobs
  WHERE task_identifier = 'partner_callbacks' AND key IS NOT NULL;
  PERFORM graphile_worker.complete_jobs(ARRAY(
    SELECT id FROM graphile_worker.jobs WHERE task_identifier = 'partner_callbacks' AND locked_at IS NULL
  ));
  DELETE FROM graphile_worker._private_job_queues queue
  WHERE queue.queue_name LIKE 'partner-callbacks:player:%' AND queue.locked_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM graphile_worker._private_jobs job WHERE job.job_queue_id = queue.id);
END IF;
