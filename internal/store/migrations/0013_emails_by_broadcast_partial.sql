-- emails_by_broadcast (0007) indexed every email on (broadcast_id, status):
-- a transactional email, whose broadcast_id is NULL, paid an index entry at
-- its insert, and every status change of any email wrote a new entry (on
-- PostgreSQL it also ruled out heap-only updates). Only a broadcast's
-- cancel reads it, by broadcast_id, to cancel the emails still queued;
-- it now filters their status from the broadcast's rows.
DROP INDEX emails_by_broadcast;
CREATE INDEX emails_by_broadcast ON emails (broadcast_id) WHERE broadcast_id IS NOT NULL;
