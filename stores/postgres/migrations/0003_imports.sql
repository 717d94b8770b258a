-- The import ledger: what `whocomes import` took from each access log, so
-- that importing a log again adds only what it did not take before.
CREATE TABLE imports (
    store  TEXT   NOT NULL,
    log    TEXT   NOT NULL, -- SHA-256 of the log's first 4 KiB, hex
    bytes  BIGINT NOT NULL, -- how many of its bytes were imported
    digest TEXT   NOT NULL, -- SHA-256 of those bytes, hex
    PRIMARY KEY (store, log)
);
