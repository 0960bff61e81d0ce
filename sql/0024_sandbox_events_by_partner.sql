-- The sandbox partner wallet remembered each event by its id alone, across partners and environments: an event id
-- one partner's callbacks used was answered, for another partner or environment, with the first one's answer, and a
-- rollback of one partner's bet refused another's bet of the same id. Events are now keyed by partner, environment
-- and event id. Events recorded before carry no environment: they are taken as live ones.
ALTER TABLE sandbox_partner_events ADD COLUMN environment text NOT NULL DEFAULT 'live' CHECK (environment IN ('live', 'test'));
ALTER TABLE sandbox_partner_events ALTER COLUMN environment DROP DEFAULT;
ALTER TABLE sandbox_partner_events DROP CONSTRAINT sandbox_partner_events_pkey;
ALTER TABLE sandbox_partner_events ADD PRIMARY KEY (partner_id, environment, event_id);
DROP INDEX sandbox_partner_events_rolls_back;
CREATE INDEX sandbox_partner_events_rolls_back ON sandbox_partner_events (partner_id, environment, rolls_back)
  WHERE rolls_back IS NOT NULL;
