-- Audiences and their contacts (issue: audiences, contacts and broadcasts).
-- Written ahead of the code that uses it so that the audience and the
-- broadcast work can proceed in parallel against one agreed schema.

CREATE TABLE audiences (
    id             TEXT NOT NULL PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES organizations (id),
    name           TEXT NOT NULL,
    description    TEXT,
    active         BOOLEAN NOT NULL,
    -- Kept exact by every insert and delete of a contact, in the same
    -- transaction (2.7).
    contacts_count BIGINT NOT NULL,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);

CREATE INDEX audiences_by_org ON audiences (org_id, created_at, id);

CREATE TABLE contacts (
    id          TEXT NOT NULL PRIMARY KEY,
    audience_id TEXT NOT NULL REFERENCES audiences (id) ON DELETE CASCADE,
    org_id      TEXT NOT NULL,
    -- email as given (after trimming); email_key is its lower-case form,
    -- which makes addresses unique per audience case-insensitively (D41).
    email       TEXT NOT NULL,
    email_key   TEXT NOT NULL,
    first_name  TEXT,
    last_name   TEXT,
    metadata    TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE UNIQUE INDEX contacts_email ON contacts (audience_id, email_key);
-- Listing and broadcast fan-out walk an audience in (created_at, id) order.
CREATE INDEX contacts_by_audience ON contacts (audience_id, created_at, id);
