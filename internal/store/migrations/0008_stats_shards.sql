-- Statistics counters get a shard (docs/architecture.md, "Statistics
-- counters"). On PostgreSQL every event of an organization in one UTC hour
-- upserted the same row, and that row's lock, held until each commit,
-- made the recording transactions of all its deliveries take turns. Each
-- email now counts into one of a few rows of its hour, chosen by its id;
-- reads sum them. SQLite writes one transaction at a time anyway and keeps
-- everything in shard 0.
CREATE TABLE stats_counters_by_shard (
    org_id     TEXT NOT NULL,
    mode       TEXT NOT NULL,
    domain_id  TEXT NOT NULL,
    tag        TEXT NOT NULL,
    hour       BIGINT NOT NULL,
    shard      BIGINT NOT NULL,
    sent       BIGINT NOT NULL,
    delivered  BIGINT NOT NULL,
    failed     BIGINT NOT NULL,
    bounced    BIGINT NOT NULL,
    complained BIGINT NOT NULL,
    opened     BIGINT NOT NULL,
    clicked    BIGINT NOT NULL,
    PRIMARY KEY (org_id, mode, tag, domain_id, hour, shard)
);

INSERT INTO stats_counters_by_shard (org_id, mode, domain_id, tag, hour, shard, sent, delivered, failed, bounced, complained, opened, clicked)
    SELECT org_id, mode, domain_id, tag, hour, 0, sent, delivered, failed, bounced, complained, opened, clicked FROM stats_counters;

DROP TABLE stats_counters;

ALTER TABLE stats_counters_by_shard RENAME TO stats_counters;
