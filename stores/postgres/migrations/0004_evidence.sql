-- A browser's evidence and the bot classes of each visitor-day, as bits
-- (activity::evidence::Evidence, activity::bot_class::ClassSet). Rows kept
-- before this migration are marked "files not asked for" (2), so the kind
-- of a day already counted does not change.
ALTER TABLE visitor_days ADD COLUMN evidence INTEGER NOT NULL DEFAULT 2;
ALTER TABLE visitor_days ADD COLUMN bot_classes INTEGER NOT NULL DEFAULT 0;

-- Bot requests per store, day and class; and, once a day's visitor rows
-- expire, its visitor-days per class.
CREATE TABLE day_bots (
    store        TEXT   NOT NULL,
    day          DATE   NOT NULL,
    class        TEXT   NOT NULL, -- activity::bot_class::BotClass
    requests     BIGINT NOT NULL,
    visitor_days BIGINT NOT NULL,
    PRIMARY KEY (store, day, class)
);

-- Marks of a browser's evidence per day: a reader that kept a day's
-- summary knows it changed even when no request was added.
ALTER TABLE day_totals ADD COLUMN marks BIGINT NOT NULL DEFAULT 0;
