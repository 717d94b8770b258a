-- The goals a visitor-day's requests reached (a label its site's handler
-- or operator gave, checked as a campaign's labels are), and how many of
-- its requests reached each: a visitor-day's part, numbered like its paths
-- and sources.
CREATE TABLE visitor_goals (
    visitor_day BIGINT NOT NULL, -- visitor_days.id
    goal        TEXT   NOT NULL,
    requests    BIGINT NOT NULL,
    CONSTRAINT visitor_goals_key PRIMARY KEY (visitor_day, goal)
);

-- Requests that reached each goal per store and UTC hour, by kind: kept as
-- long as the hourly rows, after the visitor-days have expired.
CREATE TABLE hour_goals (
    store      TEXT        NOT NULL,
    hour       TIMESTAMPTZ NOT NULL, -- start of the UTC hour
    goal       TEXT        NOT NULL,
    requests   BIGINT      NOT NULL,
    bots       BIGINT      NOT NULL,
    self_reads BIGINT      NOT NULL,
    PRIMARY KEY (store, hour, goal)
);
