-- Accepting a batch of 100 emails on PostgreSQL ran a foreign-key check per
-- row of emails (its organization), email_recipients, email_events and
-- email_tags (their email): one SPI query each, run by a trigger, and on
-- the organization a KEY SHARE lock taken by every concurrent accept. In
-- a profile of batch accepts these checks were 13 % of the machine
-- (docs/benchmarks.md). The store keeps what the keys gave: organizations
-- and emails are never deleted, an email's rows are written in the
-- transaction that writes the email, and later rows (events, outcomes)
-- are written for an email read in the same transaction or by the attempt
-- that holds it. SQLite's checks are cheap look-ups and stay (as in 0011).
ALTER TABLE emails DROP CONSTRAINT IF EXISTS emails_org_id_fkey;
ALTER TABLE email_recipients DROP CONSTRAINT IF EXISTS email_recipients_email_id_fkey;
ALTER TABLE email_events DROP CONSTRAINT IF EXISTS email_events_email_id_fkey;
ALTER TABLE email_tags DROP CONSTRAINT IF EXISTS email_tags_email_id_fkey;
