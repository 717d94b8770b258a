-- The names of the batches this store has added, with when: a writer sends
-- a batch again, unchanged and under its name, when it cannot know whether
-- a try was taken (a lost reply; its journal, after a restart), and a name
-- found here adds nothing. Written in the batch's own transaction; kept as
-- long as the visitor-days.
CREATE TABLE applied_batches (
    id TEXT    NOT NULL PRIMARY KEY, -- 32 hexadecimal digits
    at INTEGER NOT NULL              -- when it was added, Unix seconds
) WITHOUT ROWID;
CREATE INDEX applied_batches_at ON applied_batches (at);
