-- All requests per store and UTC day. A day's figure grows with every hit
-- it gets, so a reader that kept a day's summary knows when it changed.
CREATE TABLE day_totals (
    store    TEXT    NOT NULL,
    day      TEXT    NOT NULL, -- YYYY-MM-DD (UTC)
    requests INTEGER NOT NULL,
    PRIMARY KEY (store, day)
) WITHOUT ROWID;

INSERT INTO day_totals (store, day, requests)
SELECT store, date(hour, 'unixepoch'), SUM(requests)
FROM hours
GROUP BY store, date(hour, 'unixepoch');
