-- Carteiro schema, written once for both stores. Portable SQL only:
-- timestamps are BIGINT microseconds since the Unix epoch (UTC), ids are
-- uuid strings, JSON is TEXT, booleans are BOOLEAN.

CREATE TABLE settings (
    key   TEXT NOT NULL PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE organizations (
    id            TEXT NOT NULL PRIMARY KEY,
    name          TEXT NOT NULL,
    password_hash TEXT NOT NULL DEFAULT '',
    totp_secret   TEXT NOT NULL DEFAULT '',
    created_at    BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id         TEXT NOT NULL PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    name       TEXT NOT NULL,
    mode       TEXT NOT NULL,
    permission TEXT NOT NULL,
    domain     TEXT NOT NULL DEFAULT '',
    key_hash   TEXT NOT NULL UNIQUE,
    prefix     TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    revoked_at BIGINT
);

CREATE INDEX api_keys_by_org ON api_keys (org_id, created_at);

CREATE TABLE domains (
    id               TEXT NOT NULL PRIMARY KEY,
    org_id           TEXT NOT NULL REFERENCES organizations (id),
    name             TEXT NOT NULL,
    status           TEXT NOT NULL,
    dkim_selector    TEXT NOT NULL,
    dkim_public_key  TEXT NOT NULL,
    dkim_private_key TEXT NOT NULL,
    ownership_token  TEXT NOT NULL,
    verified_at      BIGINT,
    last_check_at    BIGINT,
    created_at       BIGINT NOT NULL,
    deleted_at       BIGINT
);

-- D35: a deleted domain's name can be added again.
CREATE UNIQUE INDEX domains_live_name ON domains (org_id, name) WHERE deleted_at IS NULL;
CREATE INDEX domains_by_org ON domains (org_id, created_at);
CREATE INDEX domains_by_status ON domains (status, last_check_at) WHERE deleted_at IS NULL;
