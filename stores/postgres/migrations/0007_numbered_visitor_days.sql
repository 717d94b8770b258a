-- Each visitor-day gets a number when it is first kept, and its paths and
-- sources are kept under that number instead of under (store, day, token).
-- Tokens are random, so index entries keyed by them land at random places
-- in a big index, and a batch of them rewrites most of its pages; numbers
-- are handed out in order, so the paths and sources of new visitor-days are
-- added at the end of their indexes. Every row and count is copied.
ALTER TABLE visitor_days ADD COLUMN id BIGINT GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX visitor_days_id ON visitor_days (id);

CREATE TABLE visitor_paths_numbered (
    visitor_day BIGINT NOT NULL, -- visitor_days.id
    path        TEXT   NOT NULL,
    requests    BIGINT NOT NULL,
    CONSTRAINT visitor_paths_key PRIMARY KEY (visitor_day, path)
);

INSERT INTO visitor_paths_numbered
SELECT v.id, p.path, p.requests
FROM visitor_paths p JOIN visitor_days v USING (store, day, visitor);

CREATE TABLE visitor_sources_numbered (
    visitor_day BIGINT NOT NULL, -- visitor_days.id
    source      TEXT   NOT NULL,
    page_loads  BIGINT NOT NULL,
    CONSTRAINT visitor_sources_key PRIMARY KEY (visitor_day, source)
);

INSERT INTO visitor_sources_numbered
SELECT v.id, s.source, s.page_loads
FROM visitor_sources s JOIN visitor_days v USING (store, day, visitor);

DROP TABLE visitor_paths;
DROP TABLE visitor_sources;
ALTER TABLE visitor_paths_numbered RENAME TO visitor_paths;
ALTER TABLE visitor_sources_numbered RENAME TO visitor_sources;
