-- Log-in throttling recorded before a password is checked, so concurrent log-ins cannot all pass a count
-- made before any of them failed. One row per (e-mail, client address) with its lock-out, which grows with
-- each failure, and one per client address (kind 'address', email '') counting its failures in a window.
-- admin_login_failures is no longer written. It is kept, not dropped, so instances of the previous release
-- still log admins in during a rolling deploy; a later migration drops it.
CREATE TABLE admin_login_attempts (
  kind          text NOT NULL CHECK (kind IN ('email', 'address')),
  email         text NOT NULL,
  address       text NOT NULL,
  attempts      integer NOT NULL,
  window_start  timestamptz NOT NULL DEFAULT now(),
  blocked_until timestamptz,
  last_attempt  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (kind, email, address)
);
CREATE INDEX admin_login_attempts_last ON admin_login_attempts (last_attempt);
CREATE INDEX admin_login_attempts_email ON admin_login_attempts (email);

-- When the account's password was set: a one-time password (must_change_password) expires after
-- ADMIN_ONE_TIME_PASSWORD_TTL. Existing accounts count from their last change.
ALTER TABLE admin_accounts ADD COLUMN password_set_at timestamptz;
UPDATE admin_accounts SET password_set_at = updated_at;
ALTER TABLE admin_accounts ALTER COLUMN password_set_at SET NOT NULL, ALTER COLUMN password_set_at SET DEFAULT now();
