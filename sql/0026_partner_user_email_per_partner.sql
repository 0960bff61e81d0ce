-- One account per e-mail across partners let one partner's owner learn, by a 409, that an e-mail had an account
-- at another partner, and claim another partner's staff e-mail first with an invitation never accepted. An e-mail
-- is now unique within a partner, and among accepted accounts (those with a password) across partners: the log-in
-- still finds one account, and a pending invitation claims nothing outside its partner.
DROP INDEX partner_users_email_key;
DROP INDEX partner_users_partner;
CREATE UNIQUE INDEX partner_users_partner_email_key ON partner_users (partner_id, email);
CREATE UNIQUE INDEX partner_users_account_email_key ON partner_users (email) WHERE password_hash IS NOT NULL;
