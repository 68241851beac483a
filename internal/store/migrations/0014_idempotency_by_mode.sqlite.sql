-- D62: an idempotency key is scoped by organization, mode, endpoint and key,
-- so a live request never replays a test request's answer or the reverse.
-- SQLite cannot change a primary key in place: the table is copied. A row
-- written before this migration takes the mode of the email its answer
-- names (the only endpoint with keys is POST /emails), live when that
-- email is gone.
CREATE TABLE idempotency_keys_by_mode (
    org_id          TEXT NOT NULL,
    mode            TEXT NOT NULL,
    endpoint        TEXT NOT NULL,
    idem_key        TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    response_status INTEGER NOT NULL,
    response_body   TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (org_id, mode, endpoint, idem_key)
);

INSERT INTO idempotency_keys_by_mode (org_id, mode, endpoint, idem_key, request_hash, response_status, response_body, created_at)
SELECT k.org_id,
       COALESCE((SELECT e.mode FROM emails e WHERE e.id = json_extract(k.response_body, '$.id')), 'live'),
       k.endpoint, k.idem_key, k.request_hash, k.response_status, k.response_body, k.created_at
FROM idempotency_keys k
WHERE json_valid(k.response_body);

DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_by_mode RENAME TO idempotency_keys;
