-- Dashboard users, sessions, the first start's setup link and the audit
-- log (D73). Only hashes of session ids and setup tokens are stored.

CREATE TABLE users (
    id             TEXT NOT NULL PRIMARY KEY,
    org_id         TEXT NOT NULL REFERENCES organizations (id),
    email          TEXT NOT NULL,
    role           TEXT NOT NULL,
    password_hash  TEXT NOT NULL,
    totp_secret    TEXT NOT NULL DEFAULT '',
    totp_pending   TEXT NOT NULL DEFAULT '',
    totp_last_step BIGINT,
    language       TEXT NOT NULL DEFAULT '',
    created_at     BIGINT NOT NULL
);

-- Login names no organization: an email signs in to one account.
CREATE UNIQUE INDEX users_by_email ON users (email);
CREATE INDEX users_by_org ON users (org_id, created_at);

CREATE TABLE sessions (
    id_hash      TEXT NOT NULL PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    org_id       TEXT NOT NULL,
    csrf_token   TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL
);

CREATE INDEX sessions_by_user ON sessions (user_id);

CREATE TABLE setup_tokens (
    token_hash TEXT NOT NULL PRIMARY KEY,
    org_id     TEXT NOT NULL REFERENCES organizations (id),
    expires_at BIGINT NOT NULL,
    used_at    BIGINT
);

CREATE TABLE audit_log (
    id     TEXT NOT NULL PRIMARY KEY,
    org_id TEXT NOT NULL,
    at     BIGINT NOT NULL,
    actor  TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL
);

CREATE INDEX audit_by_org ON audit_log (org_id, at);

-- Who made a key, and when it was last used (written at most once a
-- minute per key and process, so the accept path gains no write).
ALTER TABLE api_keys ADD COLUMN created_by TEXT NOT NULL DEFAULT '';
ALTER TABLE api_keys ADD COLUMN last_used_at BIGINT;
