-- All requests per store and UTC day. A day's figure grows with every hit
-- it gets, so a reader that kept a day's summary knows when it changed.
CREATE TABLE day_totals (
    store    TEXT   NOT NULL,
    day      DATE   NOT NULL,
    requests BIGINT NOT NULL,
    PRIMARY KEY (store, day)
);

INSERT INTO day_totals (store, day, requests)
SELECT store, (hour AT TIME ZONE 'UTC')::date, SUM(requests)
FROM hours
GROUP BY 1, 2;
