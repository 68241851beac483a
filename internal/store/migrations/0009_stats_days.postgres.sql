-- Statistics counters get day buckets next to the hours (docs/architecture.md,
-- "Statistics counters"). GET /stats over a year of days read up to 8,784
-- hours a key and summed them; every count now also goes to its UTC day
-- (bucket_hours 24, bucket_start its midnight), in the same statement as
-- its hour (bucket_hours 1), and days, weeks and months read the days.
-- The key orders the bucket's start before the domain, so the usual query
-- (one tag, every domain, a range of time) is one range of the key.
-- (SQLite's spelling of this migration also makes the key the table.)
CREATE TABLE stats_counters_by_bucket (
    org_id       TEXT NOT NULL,
    mode         TEXT NOT NULL,
    domain_id    TEXT NOT NULL,
    tag          TEXT NOT NULL,
    bucket_hours BIGINT NOT NULL,
    bucket_start BIGINT NOT NULL,
    shard        BIGINT NOT NULL,
    sent         BIGINT NOT NULL,
    delivered    BIGINT NOT NULL,
    failed       BIGINT NOT NULL,
    bounced      BIGINT NOT NULL,
    complained   BIGINT NOT NULL,
    opened       BIGINT NOT NULL,
    clicked      BIGINT NOT NULL,
    PRIMARY KEY (org_id, mode, tag, bucket_hours, bucket_start, domain_id, shard)
);

INSERT INTO stats_counters_by_bucket (org_id, mode, domain_id, tag, bucket_hours, bucket_start, shard, sent, delivered, failed, bounced, complained, opened, clicked)
    SELECT org_id, mode, domain_id, tag, 1, hour, shard, sent, delivered, failed, bounced, complained, opened, clicked FROM stats_counters;

INSERT INTO stats_counters_by_bucket (org_id, mode, domain_id, tag, bucket_hours, bucket_start, shard, sent, delivered, failed, bounced, complained, opened, clicked)
    SELECT org_id, mode, domain_id, tag, 24, hour - hour % 86400000000, shard,
        SUM(sent), SUM(delivered), SUM(failed), SUM(bounced), SUM(complained), SUM(opened), SUM(clicked)
    FROM stats_counters GROUP BY org_id, mode, domain_id, tag, hour - hour % 86400000000, shard;

DROP TABLE stats_counters;

ALTER TABLE stats_counters_by_bucket RENAME TO stats_counters;
