-- A trigram index over the two substring filters of GET /emails (D28:
-- recipient over to/cc/bcc, subjectContains), so that they stop reading
-- every email of the organization (issue 26). External content: the text
-- stays in emails and the index holds only its trigrams, addressed by the
-- email's rowid. The triggers keep it true on every write to emails, so
-- accept, the retention purge (D77), erasure (D78) and deletes need no
-- code path of their own. The update trigger fires only when one of the
-- two columns is set: status changes, the common update, cost nothing.
-- The index only narrows the candidates; the LIKE of emaillist.go still
-- decides, so its results stay those of a scan.
CREATE VIRTUAL TABLE email_search USING fts5(
    search_recipients, subject,
    content = 'emails', content_rowid = 'rowid', tokenize = 'trigram'
);

CREATE TRIGGER email_search_insert AFTER INSERT ON emails BEGIN
    INSERT INTO email_search (rowid, search_recipients, subject)
    VALUES (new.rowid, new.search_recipients, new.subject);
END;

CREATE TRIGGER email_search_delete AFTER DELETE ON emails BEGIN
    INSERT INTO email_search (email_search, rowid, search_recipients, subject)
    VALUES ('delete', old.rowid, old.search_recipients, old.subject);
END;

CREATE TRIGGER email_search_update AFTER UPDATE OF search_recipients, subject ON emails BEGIN
    INSERT INTO email_search (email_search, rowid, search_recipients, subject)
    VALUES ('delete', old.rowid, old.search_recipients, old.subject);
    INSERT INTO email_search (rowid, search_recipients, subject)
    VALUES (new.rowid, new.search_recipients, new.subject);
END;

INSERT INTO email_search (email_search) VALUES ('rebuild');
