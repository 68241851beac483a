-- Trigram indexes for the two substring filters of GET /emails (D28:
-- recipient over to/cc/bcc, subjectContains), so that their
-- LIKE '%term%' stops reading every email of the organization (issue 26).
-- pg_trgm is a trusted extension (PostgreSQL 13+): a role with CREATE on
-- the database may create it; where the service's role may not, an
-- administrator runs CREATE EXTENSION pg_trgm first and this skips it
-- (docs/operations.md). The extension may live in another schema than
-- the service's (one made before, in public, say), so its operator class
-- is named through the schema it is in.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

DO $$
DECLARE
    trgm TEXT;
BEGIN
    SELECT quote_ident(n.nspname) INTO trgm
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm';
    -- The expressions are the ones emaillist.go's conditions use, so that
    -- the planner matches them to the indexes.
    EXECUTE 'CREATE INDEX emails_search_recipients_trgm ON emails USING gin (search_recipients ' || trgm || '.gin_trgm_ops)';
    EXECUTE 'CREATE INDEX emails_subject_trgm ON emails USING gin (LOWER(subject) ' || trgm || '.gin_trgm_ops)';
END
$$;
