-- Each visitor-day gets a number when it is first kept, and its paths and
-- sources are kept under that number instead of under (store, day, token).
-- Tokens are random, so rows keyed by them land at random places in a big
-- table, and a batch of them rewrites most of its pages; numbers are handed
-- out in order, so the paths and sources of new visitor-days are added at
-- the end of their tables. Every row and count is copied.
CREATE TABLE visitor_days_numbered (
    store       TEXT    NOT NULL,
    day         TEXT    NOT NULL, -- YYYY-MM-DD (UTC)
    visitor     TEXT    NOT NULL, -- 32 hex characters
    network     TEXT    NOT NULL, -- 203.0.113.x, 2001:db8:85a3:x or x
    first_seen  INTEGER NOT NULL, -- Unix milliseconds
    last_seen   INTEGER NOT NULL, -- Unix milliseconds
    requests    INTEGER NOT NULL,
    bots        INTEGER NOT NULL,
    self_reads  INTEGER NOT NULL,
    evidence    INTEGER NOT NULL,
    bot_classes INTEGER NOT NULL,
    id          INTEGER NOT NULL, -- 1, 2, 3, … in the order first kept
    PRIMARY KEY (store, day, visitor)
) WITHOUT ROWID;

INSERT INTO visitor_days_numbered
SELECT store, day, visitor, network, first_seen, last_seen, requests, bots, self_reads,
       evidence, bot_classes, row_number() OVER (ORDER BY day, store, visitor)
FROM visitor_days;

CREATE TABLE visitor_paths_numbered (
    visitor_day INTEGER NOT NULL, -- visitor_days.id
    path        TEXT    NOT NULL,
    requests    INTEGER NOT NULL,
    PRIMARY KEY (visitor_day, path)
) WITHOUT ROWID;

INSERT INTO visitor_paths_numbered
SELECT v.id, p.path, p.requests
FROM visitor_paths p JOIN visitor_days_numbered v USING (store, day, visitor);

CREATE TABLE visitor_sources_numbered (
    visitor_day INTEGER NOT NULL, -- visitor_days.id
    source      TEXT    NOT NULL,
    page_loads  INTEGER NOT NULL,
    PRIMARY KEY (visitor_day, source)
) WITHOUT ROWID;

INSERT INTO visitor_sources_numbered
SELECT v.id, s.source, s.page_loads
FROM visitor_sources s JOIN visitor_days_numbered v USING (store, day, visitor);

DROP TABLE visitor_paths;
DROP TABLE visitor_sources;
DROP TABLE visitor_days;
ALTER TABLE visitor_days_numbered RENAME TO visitor_days;
ALTER TABLE visitor_paths_numbered RENAME TO visitor_paths;
ALTER TABLE visitor_sources_numbered RENAME TO visitor_sources;
CREATE UNIQUE INDEX visitor_days_id ON visitor_days (id);
