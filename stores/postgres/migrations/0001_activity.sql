-- whocomes activity, PostgreSQL. No table holds one row per request.

-- Requests per store, hour and path.
CREATE TABLE hours (
    store      TEXT        NOT NULL,
    hour       TIMESTAMPTZ NOT NULL, -- start of the UTC hour
    path       TEXT        NOT NULL,
    requests   BIGINT      NOT NULL,
    bots       BIGINT      NOT NULL,
    self_reads BIGINT      NOT NULL,
    PRIMARY KEY (store, hour, path)
);

-- One visitor token on one UTC day: a token and a network, never an address.
CREATE TABLE visitor_days (
    store      TEXT        NOT NULL,
    day        DATE        NOT NULL,
    visitor    TEXT        NOT NULL, -- 32 hex characters
    network    TEXT        NOT NULL, -- 203.0.113.x, 2001:db8:85a3:x or x
    first_seen TIMESTAMPTZ NOT NULL,
    last_seen  TIMESTAMPTZ NOT NULL,
    requests   BIGINT      NOT NULL,
    bots       BIGINT      NOT NULL,
    self_reads BIGINT      NOT NULL,
    PRIMARY KEY (store, day, visitor)
);

-- The paths of a visitor-day, with a count each (the top ones are read).
CREATE TABLE visitor_paths (
    store    TEXT   NOT NULL,
    day      DATE   NOT NULL,
    visitor  TEXT   NOT NULL,
    path     TEXT   NOT NULL,
    requests BIGINT NOT NULL,
    PRIMARY KEY (store, day, visitor, path)
);

-- The sources of a visitor-day's page loads, with a count each.
CREATE TABLE visitor_sources (
    store      TEXT   NOT NULL,
    day        DATE   NOT NULL,
    visitor    TEXT   NOT NULL,
    source     TEXT   NOT NULL,
    page_loads BIGINT NOT NULL,
    PRIMARY KEY (store, day, visitor, source)
);

-- A day's visitor-days by kind, kept when its visitor rows expire.
CREATE TABLE day_kinds (
    store     TEXT   NOT NULL,
    day       DATE   NOT NULL,
    people    BIGINT NOT NULL,
    scanners  BIGINT NOT NULL,
    own_reads BIGINT NOT NULL,
    PRIMARY KEY (store, day)
);
