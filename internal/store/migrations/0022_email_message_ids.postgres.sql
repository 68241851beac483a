-- The Message-IDs callers gave their emails (D74: a message submitted over
-- SMTP keeps its own), so that threading a received reply (D75) finds
-- the email by an index instead of reading the organization's emails.
-- A table of its own rather than an index on emails.message_id: that
-- column is written at every email's first attempt, and an index on it
-- would cost every email an index write (and, on PostgreSQL, its HOT
-- update). Ids the service writes (<email id@domain>) are found by the
-- email's id and are not kept here. Several emails may share one id.
CREATE TABLE email_message_ids (
    org_id     TEXT NOT NULL,
    message_id TEXT NOT NULL,
    email_id   TEXT NOT NULL,
    PRIMARY KEY (org_id, message_id, email_id)
);

INSERT INTO email_message_ids (org_id, message_id, email_id)
SELECT org_id, message_id, id FROM emails
WHERE message_id IS NOT NULL AND SUBSTR(message_id, 1, LENGTH(id) + 1) <> id || '@';
