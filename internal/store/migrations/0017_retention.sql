-- Retention (D77). content_purged_at is set when an email's html, text,
-- attachments and custom headers were deleted, by the retention purge or
-- by the erasure of a person (D78). The purge walks each organization's
-- emails through emails_by_time from a position it keeps in settings, so
-- it never walks again the months of emails it has already emptied; no
-- index of its own, since one more entry per accepted email cost SQLite
-- batches 5 to 10 % (docs/benchmarks.md).
ALTER TABLE emails ADD COLUMN content_purged_at BIGINT;
