-- Broadcasts (issue: audiences, contacts and broadcasts).

CREATE TABLE broadcasts (
    id                 TEXT NOT NULL PRIMARY KEY,
    org_id             TEXT NOT NULL REFERENCES organizations (id),
    -- D7: a broadcast made with a test key is a test-mode object.
    mode               TEXT NOT NULL,
    audience_id        TEXT NOT NULL,
    name               TEXT,
    template_id        TEXT,
    subject            TEXT NOT NULL,
    from_email         TEXT NOT NULL,
    reply_to           TEXT,
    html               TEXT,
    text_body          TEXT,
    -- JSON object: the broadcast's own variables (D42).
    variables          TEXT NOT NULL,
    status             TEXT NOT NULL,
    scheduled_at       BIGINT,
    sent_at            BIGINT,
    cancelled_at       BIGINT,
    recipients_total   BIGINT NOT NULL,
    recipients_queued  BIGINT NOT NULL,
    recipients_failed  BIGINT NOT NULL,
    -- Fan-out position: the last contact handed over, by (created_at, id).
    cursor_created_at  BIGINT NOT NULL,
    cursor_id          TEXT NOT NULL,
    created_at         BIGINT NOT NULL,
    updated_at         BIGINT NOT NULL
);

CREATE INDEX broadcasts_by_org ON broadcasts (org_id, mode, created_at, id);

-- The broadcast an email was sent for: marketing suppressions apply to it
-- (D45) and cancelling the broadcast cancels its queued emails (D43).
ALTER TABLE emails ADD COLUMN broadcast_id TEXT;
CREATE INDEX emails_by_broadcast ON emails (broadcast_id, status);
