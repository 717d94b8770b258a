-- The country a visitor-day's address was in, looked up before the address
-- was cut: a two-letter ISO 3166-1 code, nothing finer; NULL when no
-- country's block holds the address (and for every visitor-day kept before
-- this migration). The check keeps anything longer out of the column.
ALTER TABLE visitor_days ADD COLUMN country text
    CHECK (country IS NULL OR country ~ '^[A-Z]{2}$');
