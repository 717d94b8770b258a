-- Each visitor-day is kept under its number as the table's own row number,
-- with its token as 16 bytes instead of 32 hex characters, and found by
-- (store, day, token) through an index of its own. A token is random, so a
-- batch of new visitor-days lands at random places in whatever is keyed by
-- it: now that is only the narrow index (about 40 bytes an entry), while
-- the rows themselves are added at the end of the table in number order.
-- Every row and count is copied; the numbers stay as they were, so the
-- paths and sources kept under them need no change.
CREATE TABLE visitor_days_by_number (
    id          INTEGER PRIMARY KEY, -- 1, 2, 3, … in the order first kept
    store       TEXT    NOT NULL,
    day         TEXT    NOT NULL, -- YYYY-MM-DD (UTC)
    visitor     BLOB    NOT NULL, -- 16 bytes
    network     TEXT    NOT NULL, -- 203.0.113.x, 2001:db8:85a3:x or x
    first_seen  INTEGER NOT NULL, -- Unix milliseconds
    last_seen   INTEGER NOT NULL, -- Unix milliseconds
    requests    INTEGER NOT NULL,
    bots        INTEGER NOT NULL,
    self_reads  INTEGER NOT NULL,
    evidence    INTEGER NOT NULL,
    bot_classes INTEGER NOT NULL
);

INSERT INTO visitor_days_by_number
SELECT id, store, day, unhex(visitor), network, first_seen, last_seen, requests, bots,
       self_reads, evidence, bot_classes
FROM visitor_days ORDER BY id;

DROP TABLE visitor_days;
ALTER TABLE visitor_days_by_number RENAME TO visitor_days;
CREATE UNIQUE INDEX visitor_days_key ON visitor_days (store, day, visitor);
