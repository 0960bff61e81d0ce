-- The partner portal (/portal): the partner's own users, their sessions and log-in throttling, and tokens that a
-- partner rolls with an overlap (the old one kept valid until an expiry), with when each was last used.

-- Tokens: a rolled token may stay valid beside its successor until `expires_at`; the current token of an
-- environment has none. Only the SHA-256 is kept, and the first characters (`token_prefix`) so a person can tell
-- tokens apart; tokens issued before this release have no prefix. `last_used_at` is written off the request
-- path, at most once a minute per token and instance (TOKEN_LAST_USED_INTERVAL).
ALTER TABLE partner_tokens
  ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY,
  ADD COLUMN token_prefix text CHECK (token_prefix IS NULL OR length(token_prefix) BETWEEN 4 AND 20),
  ADD COLUMN expires_at timestamptz,
  ADD COLUMN last_used_at timestamptz;
ALTER TABLE partner_tokens DROP CONSTRAINT partner_tokens_pkey;
ALTER TABLE partner_tokens ADD PRIMARY KEY (id);
-- One current token per environment; any number of rolled ones until they expire.
CREATE UNIQUE INDEX partner_tokens_current ON partner_tokens (partner_id, environment) WHERE expires_at IS NULL;

-- A partner's users: invited by an operator (console, CLI) or by the partner's owner, with a one-time invitation
-- link (only its SHA-256 is kept) that expires; the password (scrypt) is set when the invitation is accepted.
-- One account per e-mail across partners: the e-mail is the log-in.
CREATE TABLE partner_users (
  id                    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  partner_id            bigint NOT NULL REFERENCES partners (id) ON DELETE CASCADE,
  email                 text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  role                  text NOT NULL CHECK (role IN ('owner', 'developer', 'viewer')),
  password_hash         text,
  password_set_at       timestamptz,
  invitation_hash       bytea CHECK (invitation_hash IS NULL OR length(invitation_hash) = 32),
  invitation_expires_at timestamptz,
  CHECK ((invitation_hash IS NULL) = (invitation_expires_at IS NULL)),
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX partner_users_email_key ON partner_users (email);
CREATE UNIQUE INDEX partner_users_invitation_key ON partner_users (invitation_hash) WHERE invitation_hash IS NOT NULL;
CREATE INDEX partner_users_partner ON partner_users (partner_id, email);

-- Portal sessions, as the console's (only the SHA-256 of the cookie is kept, with its CSRF token and end), each a
-- partner user's. LIKE copies the columns, checks and indexes; the foreign key is the portal's own.
CREATE TABLE partner_user_sessions (LIKE admin_sessions INCLUDING ALL);
ALTER TABLE partner_user_sessions RENAME COLUMN account_id TO user_id;
ALTER TABLE partner_user_sessions ADD FOREIGN KEY (user_id) REFERENCES partner_users (id) ON DELETE CASCADE;

-- Portal log-ins are throttled as the console's are (the same statements, counted apart).
CREATE TABLE portal_login_attempts (LIKE admin_login_attempts INCLUDING ALL);

-- The audit trail also records what partner users change in the portal (via 'portal', the actor their e-mail).
ALTER TABLE admin_audit DROP CONSTRAINT admin_audit_via_check;
ALTER TABLE admin_audit ADD CONSTRAINT admin_audit_via_check CHECK (via IN ('console', 'cli', 'portal'));
