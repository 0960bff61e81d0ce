-- The sandbox partner wallet keeps the rule it asks of every partner: a
-- rollback of a bet it never saw is remembered, and that bet is refused if
-- it arrives later (the service gave up on it before it got there).
ALTER TABLE sandbox_partner_events ADD COLUMN rolls_back text;
UPDATE sandbox_partner_events SET rolls_back = body::jsonb ->> 'rolls_back' WHERE body::jsonb ->> 'kind' = 'rollback';
CREATE INDEX sandbox_partner_events_rolls_back ON sandbox_partner_events (rolls_back) WHERE rolls_back IS NOT NULL;
