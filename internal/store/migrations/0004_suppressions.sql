-- The suppression list (issue: bounces, complaints, suppressions).

CREATE TABLE suppressions (
    id         TEXT NOT NULL PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    email      TEXT NOT NULL,
    reason     TEXT NOT NULL,
    source     TEXT NOT NULL,
    category   TEXT NOT NULL,
    status     TEXT NOT NULL,
    expires_at BIGINT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

-- D46: one active suppression per email and category.
CREATE UNIQUE INDEX suppressions_active ON suppressions (org_id, email, category) WHERE status = 'active';
CREATE INDEX suppressions_by_org ON suppressions (org_id, created_at, id);
