-- A webhook delivery's payload in a table of its own, written once when
-- the delivery is made: every attempt rewrites the delivery's row
-- (status, response, next run), and with the payload in it SQLite wrote
-- the payload's overflow pages again each time (an email.received
-- payload carries the message's text and html, up to 2 x 256 KB).
CREATE TABLE webhook_payloads (
    delivery_id TEXT NOT NULL PRIMARY KEY,
    payload     TEXT NOT NULL
);

INSERT INTO webhook_payloads (delivery_id, payload) SELECT id, payload FROM webhook_deliveries;

ALTER TABLE webhook_deliveries DROP COLUMN payload;
