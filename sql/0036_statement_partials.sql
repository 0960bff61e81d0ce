-- "Today's test statement so far" (issue 37): a partner's test environment may close the statement of the UTC day
-- under way up to a moment, so statements and reconciliation can be tried in the first hour instead of the day
-- after. Kept apart from wallet_statements, whose documents never change and whose first day says where the
-- fleet's daily close begins: a partial one is replaced each time it is closed again, is read only while the day
-- has no statement of its own, and is deleted when the day's statement is written. Never for live.
CREATE TABLE wallet_statement_partials (
  partner_id       bigint NOT NULL REFERENCES partners (id),
  environment      text NOT NULL CHECK (environment = 'test'),
  day              date NOT NULL,
  document         text NOT NULL,
  document_sha256  bytea NOT NULL CHECK (length(document_sha256) = 32),
  closed_up_to     timestamptz NOT NULL,
  computed_at      timestamptz NOT NULL,
  PRIMARY KEY (partner_id, environment, day)
);
