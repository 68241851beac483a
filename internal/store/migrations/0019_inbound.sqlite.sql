-- Inbound email (D75). A domain receives mail while inbound_enabled_at is
-- set. Each received message is one inbound_emails row (envelope, parsed
-- headers and bodies, SPF/DKIM/DMARC results) and its raw bytes, exactly
-- as received, in inbound_raw: a table of its own so that listing and
-- filtering never read the megabytes of the message, and attachments are
-- served by parsing the raw message again rather than stored twice.
ALTER TABLE domains ADD COLUMN inbound_enabled_at BIGINT;
CREATE INDEX domains_inbound ON domains (name) WHERE inbound_enabled_at IS NOT NULL AND deleted_at IS NULL;

CREATE TABLE inbound_emails (
    id                   TEXT NOT NULL PRIMARY KEY,
    org_id               TEXT NOT NULL,
    domain_id            TEXT NOT NULL,
    mail_from            TEXT NOT NULL,
    rcpt_to              TEXT NOT NULL,
    from_address         TEXT NOT NULL,
    search_to            TEXT NOT NULL,
    subject              TEXT NOT NULL,
    message_id           TEXT NOT NULL,
    in_reply_to_email_id TEXT,
    spf                  TEXT NOT NULL,
    dkim                 TEXT NOT NULL,
    dmarc                TEXT NOT NULL,
    auth_results         TEXT NOT NULL,
    parsed               TEXT NOT NULL,
    size                 BIGINT NOT NULL,
    received_at          BIGINT NOT NULL
);
CREATE INDEX inbound_emails_by_time ON inbound_emails (org_id, received_at);
CREATE INDEX inbound_emails_by_sender ON inbound_emails (org_id, from_address);
CREATE INDEX inbound_emails_by_age ON inbound_emails (received_at);

CREATE TABLE inbound_raw (
    id  TEXT NOT NULL PRIMARY KEY,
    raw BLOB NOT NULL
);
