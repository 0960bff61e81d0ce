-- The operator console: admin accounts, their sessions, failed log-ins (for throttling) and the audit trail.
-- Passwords are stored as scrypt hashes with a salt of their own; sessions as the SHA-256 of their cookie.
CREATE TABLE admin_accounts (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email         text NOT NULL CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
  role          text NOT NULL CHECK (role IN ('viewer', 'operator')),
  password_hash text NOT NULL,
  disabled      boolean NOT NULL DEFAULT false,
  -- Set for a password the CLI generated: the console asks for a new one before anything else.
  must_change_password boolean NOT NULL DEFAULT true,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX admin_accounts_email_key ON admin_accounts (email);

CREATE TABLE admin_sessions (
  id_hash      bytea PRIMARY KEY CHECK (length(id_hash) = 32),
  account_id   bigint NOT NULL REFERENCES admin_accounts (id) ON DELETE CASCADE,
  csrf_token   text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
CREATE INDEX admin_sessions_account ON admin_sessions (account_id);
CREATE INDEX admin_sessions_expires ON admin_sessions (expires_at);

-- One row per failed log-in, keyed by what it is counted against (`email:…`, `address:…`).
CREATE TABLE admin_login_failures (
  key       text NOT NULL,
  failed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX admin_login_failures_key ON admin_login_failures (key, failed_at);

-- Every change made through the console or the admin CLI: who, what, when, before and after (never a secret).
CREATE TABLE admin_audit (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at         timestamptz NOT NULL DEFAULT now(),
  actor      text NOT NULL,
  via        text NOT NULL CHECK (via IN ('console', 'cli')),
  action     text NOT NULL,
  target     text NOT NULL,
  before     jsonb,
  after      jsonb
);
CREATE INDEX admin_audit_at ON admin_audit (at DESC, id DESC);
