-- D59 asks, for every single sender registered or sending, whether another
-- organization has registered its domain: a look-up by name across
-- organizations, which domains_live_name (org_id, name) cannot serve.
CREATE INDEX domains_by_name ON domains (name) WHERE deleted_at IS NULL;
