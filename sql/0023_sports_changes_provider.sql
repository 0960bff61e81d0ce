-- The change log's key is the sports provider's name (`betsapi`, `sandbox`), and its column now says so: what
-- 0019 called a change's "world" is the provider whose data it is. Nothing else changes: the same values,
-- the same keys, the same streams. (0022, the aggregators' names, comes in the same release.)
ALTER TABLE sports_changes RENAME COLUMN world TO provider;
ALTER INDEX sports_changes_by_world RENAME TO sports_changes_by_provider;
ALTER TABLE sports_stream_events RENAME COLUMN world TO provider;
ALTER TABLE sports_stream_markets RENAME COLUMN world TO provider;
