//! The tables a batch is written to, and what a row already kept becomes:
//! each engine writes `INSERT INTO {table} ({columns}) {its rows} {conflict}`,
//! its rows bound its own way (SQLite: chunks of `VALUES`; PostgreSQL: one
//! array per column), and these words for the rest. Columns of the row
//! already kept are named with their table, which both engines read.

/// One table's upsert: its columns in the order the rows bind them, and
/// what a row already kept becomes.
#[derive(Clone, Copy, Debug)]
pub struct Upsert {
    /// The table.
    pub table: &'static str,
    /// Its columns, in the order each row binds them.
    pub columns: &'static str,
    /// `ON CONFLICT …`: how a new row adds to one already kept.
    pub conflict: &'static str,
}

impl Upsert {
    /// The statement, with `rows` where the rows come from (`SELECT …`).
    pub fn sql(&self, rows: &str) -> String {
        format!(
            "INSERT INTO {} ({}) {rows} {}",
            self.table, self.columns, self.conflict
        )
    }
}

/// Requests per store, hour and path.
pub const HOURS: Upsert = Upsert {
    table: "hours",
    columns: "store, hour, path, requests, bots, self_reads",
    conflict: "ON CONFLICT (store, hour, path) DO UPDATE SET \
               requests = hours.requests + excluded.requests, \
               bots = hours.bots + excluded.bots, \
               self_reads = hours.self_reads + excluded.self_reads",
};

/// A batch's requests per day.
pub const DAY_REQUESTS: Upsert = Upsert {
    table: "day_totals",
    columns: "store, day, requests",
    conflict: "ON CONFLICT (store, day) DO UPDATE SET \
               requests = day_totals.requests + excluded.requests",
};

/// A batch's marks per day (its rows bind store, day and marks; requests 0).
pub const DAY_MARKS: Upsert = Upsert {
    table: "day_totals",
    columns: "store, day, requests, marks",
    conflict: "ON CONFLICT (store, day) DO UPDATE SET \
               marks = day_totals.marks + excluded.marks",
};

/// The visitor-days: the network (and the country, when known) of the later
/// request, the first and last
/// times, counts added, evidence and classes joined; each row's number back.
/// (The engine adds `id` to the columns if it hands out the numbers itself.)
pub const VISITOR_DAYS_CONFLICT: &str = "ON CONFLICT (store, day, visitor) DO UPDATE SET \
     network = CASE WHEN excluded.last_seen >= visitor_days.last_seen \
                    THEN excluded.network ELSE visitor_days.network END, \
     first_seen = CASE WHEN excluded.first_seen < visitor_days.first_seen \
                       THEN excluded.first_seen ELSE visitor_days.first_seen END, \
     last_seen = CASE WHEN excluded.last_seen > visitor_days.last_seen \
                      THEN excluded.last_seen ELSE visitor_days.last_seen END, \
     requests = visitor_days.requests + excluded.requests, \
     bots = visitor_days.bots + excluded.bots, \
     self_reads = visitor_days.self_reads + excluded.self_reads, \
     evidence = visitor_days.evidence | excluded.evidence, \
     bot_classes = visitor_days.bot_classes | excluded.bot_classes, \
     country = CASE WHEN excluded.last_seen >= visitor_days.last_seen \
                    THEN coalesce(excluded.country, visitor_days.country) \
                    ELSE coalesce(visitor_days.country, excluded.country) END \
     RETURNING day, visitor, id";

/// A visitor-day's columns, in the order its rows bind them.
pub const VISITOR_DAYS_COLUMNS: &str = "store, day, visitor, network, first_seen, last_seen, \
     requests, bots, self_reads, evidence, bot_classes, country";

/// Bot requests per day and class (visitor-days per class are kept only
/// when a day's visitor rows expire).
pub const BOT_DAYS: Upsert = Upsert {
    table: "day_bots",
    columns: "store, day, class, requests, visitor_days",
    conflict: "ON CONFLICT (store, day, class) DO UPDATE SET \
               requests = day_bots.requests + excluded.requests",
};

/// A visitor-day's paths, under its number.
pub const PATHS: Upsert = Upsert {
    table: "visitor_paths",
    columns: "visitor_day, path, requests",
    conflict: "ON CONFLICT (visitor_day, path) DO UPDATE SET \
               requests = visitor_paths.requests + excluded.requests",
};

/// A visitor-day's sources, under its number.
pub const SOURCES: Upsert = Upsert {
    table: "visitor_sources",
    columns: "visitor_day, source, page_loads",
    conflict: "ON CONFLICT (visitor_day, source) DO UPDATE SET \
               page_loads = visitor_sources.page_loads + excluded.page_loads",
};
