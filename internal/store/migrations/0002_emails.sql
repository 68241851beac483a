-- Emails, their recipients, timelines, tags; idempotency keys; senders;
-- warmup counters (issue: sending).

CREATE TABLE emails (
    id                TEXT NOT NULL PRIMARY KEY,
    org_id            TEXT NOT NULL REFERENCES organizations (id),
    mode              TEXT NOT NULL,
    sandbox           BOOLEAN NOT NULL,
    api_key_id        TEXT,
    api_key_name      TEXT,
    domain_id         TEXT,
    from_addr         TEXT NOT NULL,
    from_email        TEXT NOT NULL,
    to_addrs          TEXT NOT NULL,
    cc_addrs          TEXT,
    bcc_addrs         TEXT,
    reply_to          TEXT,
    subject           TEXT,
    html              TEXT,
    text_body         TEXT,
    headers           TEXT,
    attachments       TEXT,
    tags              TEXT,
    search_recipients TEXT NOT NULL,
    status            TEXT NOT NULL,
    attempts          INTEGER NOT NULL,
    last_error        TEXT,
    message_id        TEXT,
    idempotency_key   TEXT,
    created_at        BIGINT NOT NULL,
    scheduled_at      BIGINT,
    sent_at           BIGINT,
    delivered_at      BIGINT,
    bounced_at        BIGINT,
    failed_at         BIGINT,
    complained_at     BIGINT,
    suppressed_at     BIGINT,
    opened_at         BIGINT,
    first_clicked_at  BIGINT,
    open_count        INTEGER NOT NULL,
    click_count       INTEGER NOT NULL,
    first_attempt_at  BIGINT
);

CREATE INDEX emails_by_time ON emails (org_id, mode, created_at, id);

CREATE TABLE email_recipients (
    email_id      TEXT NOT NULL REFERENCES emails (id),
    position      INTEGER NOT NULL,
    address       TEXT NOT NULL,
    status        TEXT NOT NULL,
    last_code     INTEGER,
    last_enhanced TEXT,
    last_message  TEXT,
    updated_at    BIGINT NOT NULL,
    PRIMARY KEY (email_id, position)
);

CREATE TABLE email_events (
    id         TEXT NOT NULL PRIMARY KEY,
    email_id   TEXT NOT NULL REFERENCES emails (id),
    type       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    metadata   TEXT
);

CREATE INDEX email_events_by_email ON email_events (email_id, created_at, id);

CREATE TABLE email_tags (
    email_id TEXT NOT NULL REFERENCES emails (id),
    org_id   TEXT NOT NULL,
    mode     TEXT NOT NULL,
    name     TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (email_id, name)
);

CREATE INDEX email_tags_by_org ON email_tags (org_id, mode, name, value);

CREATE TABLE idempotency_keys (
    org_id          TEXT NOT NULL,
    endpoint        TEXT NOT NULL,
    idem_key        TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    response_status INTEGER NOT NULL,
    response_body   TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (org_id, endpoint, idem_key)
);

CREATE TABLE senders (
    id               TEXT NOT NULL PRIMARY KEY,
    org_id           TEXT NOT NULL REFERENCES organizations (id),
    email            TEXT NOT NULL,
    display_name     TEXT,
    token_hash       TEXT NOT NULL,
    token_expires_at BIGINT NOT NULL,
    token_used_at    BIGINT,
    verified_at      BIGINT,
    active           BOOLEAN NOT NULL,
    created_at       BIGINT NOT NULL
);

CREATE UNIQUE INDEX senders_org_email ON senders (org_id, email);
CREATE UNIQUE INDEX senders_token ON senders (token_hash);

CREATE TABLE warmup_counts (
    domain_id TEXT NOT NULL,
    day       TEXT NOT NULL,
    sent      INTEGER NOT NULL,
    PRIMARY KEY (domain_id, day)
);

ALTER TABLE domains ADD COLUMN warmup_started_at BIGINT;
