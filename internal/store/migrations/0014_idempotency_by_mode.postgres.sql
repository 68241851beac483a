-- D62: an idempotency key is scoped by organization, mode, endpoint and key,
-- so a live request never replays a test request's answer or the reverse.
-- A row written before this migration takes the mode of the email its
-- answer names (the only endpoint with keys is POST /emails), live when
-- that email is gone.
ALTER TABLE idempotency_keys ADD COLUMN mode TEXT;
UPDATE idempotency_keys k SET mode = COALESCE(
    (SELECT e.mode FROM emails e WHERE e.id = (k.response_body::jsonb ->> 'id')), 'live');
ALTER TABLE idempotency_keys ALTER COLUMN mode SET NOT NULL;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (org_id, mode, endpoint, idem_key);
