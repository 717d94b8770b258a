-- The goals a visitor-day's requests reached (a label its site's handler
-- or operator gave, checked as a campaign's labels are), and how many of
-- its requests reached each: a visitor-day's part, numbered like its paths
-- and sources.
CREATE TABLE visitor_goals (
    visitor_day INTEGER NOT NULL, -- visitor_days.id
    goal        TEXT    NOT NULL,
    requests    INTEGER NOT NULL,
    PRIMARY KEY (visitor_day, goal)
) WITHOUT ROWID;

-- Requests that reached each goal per store and UTC hour, by kind: kept as
-- long as the hourly rows, after the visitor-days have expired.
CREATE TABLE hour_goals (
    store      TEXT    NOT NULL,
    hour       INTEGER NOT NULL, -- start of the UTC hour, Unix seconds
    goal       TEXT    NOT NULL,
    requests   INTEGER NOT NULL,
    bots       INTEGER NOT NULL,
    self_reads INTEGER NOT NULL,
    PRIMARY KEY (store, hour, goal)
) WITHOUT ROWID;
