-- PostgreSQL checks a foreign key with a trigger per inserted row: on a bulk
-- import of 10,000 contacts that check was 40 ms of a 120 ms INSERT, and
-- without it the whole call's p50 went from 214-233 to 129-164 ms
-- (docs/benchmarks-campaigns.md). The store keeps what the key gave:
-- deleting an audience deletes its contacts in the same transaction
-- (Store.DeleteAudience), and a contact written into an audience deleted
-- meanwhile finds no audience row to count it in, so its transaction rolls
-- back (addContactsCount). SQLite's check is a cheap look-up and stays.
ALTER TABLE contacts DROP CONSTRAINT IF EXISTS contacts_audience_id_fkey;
