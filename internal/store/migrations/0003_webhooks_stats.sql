-- Webhooks, their deliveries, and statistics counters (issue: events out).

CREATE TABLE webhooks (
    id              TEXT NOT NULL PRIMARY KEY,
    org_id          TEXT NOT NULL REFERENCES organizations (id),
    url             TEXT NOT NULL,
    events          TEXT NOT NULL,
    status          TEXT NOT NULL,
    description     TEXT,
    secret          TEXT,
    secret_preview  TEXT,
    failing_since   BIGINT,
    failed_attempts INTEGER NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);

CREATE INDEX webhooks_by_org ON webhooks (org_id, created_at);

CREATE TABLE webhook_deliveries (
    id              TEXT NOT NULL PRIMARY KEY,
    webhook_id      TEXT NOT NULL REFERENCES webhooks (id),
    org_id          TEXT NOT NULL,
    email_event_id  TEXT,
    event_type      TEXT NOT NULL,
    payload         TEXT NOT NULL,
    response_status INTEGER,
    response_body   TEXT,
    attempts        INTEGER NOT NULL,
    last_error      TEXT,
    status          TEXT NOT NULL,
    next_run_at     BIGINT NOT NULL,
    created_at      BIGINT NOT NULL
);

CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at, id);
CREATE INDEX webhook_deliveries_by_status ON webhook_deliveries (webhook_id, status);

-- One row per organization, mode, domain, tag and UTC hour; tag '' is the
-- row for every email, domain '' the row for emails without a domain.
CREATE TABLE stats_counters (
    org_id     TEXT NOT NULL,
    mode       TEXT NOT NULL,
    domain_id  TEXT NOT NULL,
    tag        TEXT NOT NULL,
    hour       BIGINT NOT NULL,
    sent       BIGINT NOT NULL,
    delivered  BIGINT NOT NULL,
    failed     BIGINT NOT NULL,
    bounced    BIGINT NOT NULL,
    complained BIGINT NOT NULL,
    opened     BIGINT NOT NULL,
    clicked    BIGINT NOT NULL,
    PRIMARY KEY (org_id, mode, tag, domain_id, hour)
);
