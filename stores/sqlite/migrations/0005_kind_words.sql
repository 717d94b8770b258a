-- One vocabulary for the three kinds (activity::report::KindCounts):
-- people, bots (scanners and crawlers), self_reads (the site's own reads).
-- The counts kept for days whose visitor rows expired keep their values.
ALTER TABLE day_kinds RENAME COLUMN scanners TO bots;
ALTER TABLE day_kinds RENAME COLUMN own_reads TO self_reads;
