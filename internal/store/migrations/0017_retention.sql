-- Retention (D77). content_purged_at is set when an email's html, text,
-- attachments and custom headers were deleted, by the retention purge or
-- by the erasure of a person (D78). The purge finds the emails that still
-- hold content through the partial index, so it never walks the months of
-- emails it has already emptied; an accept pays one entry of two columns.
ALTER TABLE emails ADD COLUMN content_purged_at BIGINT;
CREATE INDEX emails_with_content ON emails (created_at, id) WHERE content_purged_at IS NULL;
