-- whocomes activity, SQLite. No table holds one row per request.

-- Requests per store, hour and path.
CREATE TABLE hours (
    store      TEXT    NOT NULL,
    hour       INTEGER NOT NULL, -- start of the UTC hour, Unix seconds
    path       TEXT    NOT NULL,
    requests   INTEGER NOT NULL,
    bots       INTEGER NOT NULL,
    self_reads INTEGER NOT NULL,
    PRIMARY KEY (store, hour, path)
) WITHOUT ROWID;

-- One visitor token on one UTC day: a token and a network, never an address.
CREATE TABLE visitor_days (
    store      TEXT    NOT NULL,
    day        TEXT    NOT NULL, -- YYYY-MM-DD (UTC)
    visitor    TEXT    NOT NULL, -- 32 hex characters
    network    TEXT    NOT NULL, -- 203.0.113.x, 2001:db8:85a3:x or x
    first_seen INTEGER NOT NULL, -- Unix milliseconds
    last_seen  INTEGER NOT NULL, -- Unix milliseconds
    requests   INTEGER NOT NULL,
    bots       INTEGER NOT NULL,
    self_reads INTEGER NOT NULL,
    PRIMARY KEY (store, day, visitor)
) WITHOUT ROWID;

-- The paths of a visitor-day, with a count each (the top ones are read).
CREATE TABLE visitor_paths (
    store    TEXT    NOT NULL,
    day      TEXT    NOT NULL,
    visitor  TEXT    NOT NULL,
    path     TEXT    NOT NULL,
    requests INTEGER NOT NULL,
    PRIMARY KEY (store, day, visitor, path)
) WITHOUT ROWID;

-- The sources of a visitor-day's page loads, with a count each.
CREATE TABLE visitor_sources (
    store      TEXT    NOT NULL,
    day        TEXT    NOT NULL,
    visitor    TEXT    NOT NULL,
    source     TEXT    NOT NULL,
    page_loads INTEGER NOT NULL,
    PRIMARY KEY (store, day, visitor, source)
) WITHOUT ROWID;

-- A day's visitor-days by kind, kept when its visitor rows expire.
CREATE TABLE day_kinds (
    store     TEXT    NOT NULL,
    day       TEXT    NOT NULL,
    people    INTEGER NOT NULL,
    scanners  INTEGER NOT NULL,
    own_reads INTEGER NOT NULL,
    PRIMARY KEY (store, day)
) WITHOUT ROWID;
