-- Templates (issue: templates). Shared by live and test mode (D7).

CREATE TABLE templates (
    id            TEXT NOT NULL PRIMARY KEY,
    org_id        TEXT NOT NULL REFERENCES organizations (id),
    name          TEXT NOT NULL,
    subject       TEXT,
    -- The source: Handlebars HTML or React Email JSX/TSX, as given.
    html          TEXT NOT NULL,
    -- The customer's plain text; NULL means generated at render time (D38).
    text_payload  TEXT,
    -- JSON array of {name, description?, defaultValue?}.
    variables     TEXT NOT NULL,
    is_active     BOOLEAN NOT NULL,
    format        TEXT NOT NULL,
    source_locale TEXT NOT NULL,
    starter_slug  TEXT,
    created_at    BIGINT NOT NULL,
    updated_at    BIGINT NOT NULL
);

-- D38: names are unique per organization.
CREATE UNIQUE INDEX templates_name ON templates (org_id, name);
CREATE INDEX templates_by_org ON templates (org_id, created_at, id);
