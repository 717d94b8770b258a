-- A visitor-day's page loads read as visits (whocomes-activity's
-- port/page_loads.rs): how many; the first and the last, each when (Unix
-- milliseconds) and its cleaned path; time on site (the sum of the gaps
-- under 30 minutes between page loads, in milliseconds); and how many
-- visits (runs of page loads 30 minutes or more apart); and the campaign
-- of its first page load whose link carried one: when, and the labels of
-- utm_source, utm_medium and utm_campaign (each a label or '(dropped)',
-- NULL when the link had none). Visitor-days kept before this migration
-- have no page loads recorded: 0 and NULL.
ALTER TABLE visitor_days ADD COLUMN page_loads BIGINT NOT NULL DEFAULT 0;
ALTER TABLE visitor_days ADD COLUMN entry_at BIGINT;
ALTER TABLE visitor_days ADD COLUMN entry_page TEXT COLLATE "C";
ALTER TABLE visitor_days ADD COLUMN exit_at BIGINT;
ALTER TABLE visitor_days ADD COLUMN exit_page TEXT COLLATE "C";
ALTER TABLE visitor_days ADD COLUMN stay_ms BIGINT NOT NULL DEFAULT 0;
ALTER TABLE visitor_days ADD COLUMN visits BIGINT NOT NULL DEFAULT 0;
ALTER TABLE visitor_days ADD COLUMN campaign_at BIGINT;
ALTER TABLE visitor_days ADD COLUMN utm_source TEXT COLLATE "C";
ALTER TABLE visitor_days ADD COLUMN utm_medium TEXT COLLATE "C";
ALTER TABLE visitor_days ADD COLUMN utm_campaign TEXT COLLATE "C";
