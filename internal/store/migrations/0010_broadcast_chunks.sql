-- A broadcast's fan-out runs as chunks in parallel (docs/architecture.md,
-- "Broadcast fan-out"). When sending starts, one job splits the contacts
-- not yet handed over into ranges of about a thousand, a row here and a job
-- each; a chunk's job hands its range over and deletes its row in one
-- transaction, so a job that runs again finds nothing left to do.
CREATE TABLE broadcast_chunks (
    broadcast_id      TEXT NOT NULL REFERENCES broadcasts (id) ON DELETE CASCADE,
    seq               BIGINT NOT NULL,
    -- The range: contacts after (after_created_at, after_id) up to and
    -- including (upto_created_at, upto_id), in the order of
    -- contacts_by_audience. A chunk paused at the warmup quota moves its
    -- "after" to the last contact it handed over.
    after_created_at  BIGINT NOT NULL,
    after_id          TEXT NOT NULL,
    upto_created_at   BIGINT NOT NULL,
    upto_id           TEXT NOT NULL,
    PRIMARY KEY (broadcast_id, seq)
);

-- How many chunks are still to be handed over; the chunk that brings it to
-- zero marks the broadcast sent (D43).
ALTER TABLE broadcasts ADD COLUMN chunks_pending BIGINT NOT NULL DEFAULT 0;
