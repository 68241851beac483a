-- An email's page lists the webhook deliveries of its events (D73). They
-- were looked for through (webhook_id, created_at) within minutes of the
-- events, which missed a delivery made later and read every delivery of
-- that window; this index finds them by event, whenever they were made.
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (email_event_id);
