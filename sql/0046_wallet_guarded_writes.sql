-- A credit or a rollback naming a debit is decided on what one statement read, and written by one statement that
-- compares what the decision was taken on (issue 38): no transaction holds the round and the player while the
-- service sends each next statement.
--
-- A round's version: every write of the round raises it, and a decision's write names the version it was decided
-- on; a round changed meanwhile is not written, and the decision is taken again.
ALTER TABLE wallet_rounds ADD COLUMN version bigint NOT NULL DEFAULT 0;

-- How many callbacks the ledger wrote for the player, kept on the player's row by the statement that writes them.
-- A shadow player's balance is asked of its partner before a decision; the decision holds only if no callback of
-- theirs was written since (that one may not be in the answer). Counting partner_callbacks would read the
-- statement's snapshot, taken before the write waits for the player's row; the row's own column is read as locked.
ALTER TABLE partner_players ADD COLUMN callbacks_written bigint NOT NULL DEFAULT 0;
UPDATE partner_players AS player SET callbacks_written = written.n
FROM (SELECT player_id, count(*) AS n FROM partner_callbacks GROUP BY player_id) AS written
WHERE written.player_id = player.id;
