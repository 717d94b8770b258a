-- What a reader keeps so that it need not work it out again after a
-- restart (the Admin tab's day summaries, with the marks they were made
-- under): a name and a text, replaced whole. Never a visitor's row.
CREATE TABLE notes (
    store TEXT NOT NULL,
    name  TEXT NOT NULL,
    body  TEXT NOT NULL,
    PRIMARY KEY (store, name)
);
