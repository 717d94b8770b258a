//! The tables a batch is written to, and what a row already kept becomes:
//! each engine writes `INSERT INTO {table} ({columns}) {its rows} {conflict}`,
//! its rows bound its own way (SQLite: chunks of `VALUES`; PostgreSQL: one
//! array per column), and these words for the rest. Columns of the row
//! already kept are named with their table, which both engines read.

use std::sync::LazyLock;

use activity::page_loads::STAY_GAP_MS;

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

/// Claims a batch's name (`$1`) at a time (`$2`, bound as an hour is) in
/// the batch's transaction: no row changed means the store has added this
/// batch already, and the transaction adds nothing.
pub const CLAIM_BATCH: &str =
    "INSERT INTO applied_batches (id, at) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING";

/// Requests per store, hour and path.
pub const HOURS: Upsert = Upsert {
    table: "hours",
    columns: "store, hour, path, requests, bots, self_reads",
    conflict: "ON CONFLICT (store, hour, path) DO UPDATE SET \
               requests = hours.requests + excluded.requests, \
               bots = hours.bots + excluded.bots, \
               self_reads = hours.self_reads + excluded.self_reads",
};

/// Requests per store, hour and goal.
pub const GOAL_HOURS: Upsert = Upsert {
    table: "hour_goals",
    columns: "store, hour, goal, requests, bots, self_reads",
    conflict: "ON CONFLICT (store, hour, goal) DO UPDATE SET \
               requests = hour_goals.requests + excluded.requests, \
               bots = hour_goals.bots + excluded.bots, \
               self_reads = hour_goals.self_reads + excluded.self_reads",
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
/// request, the first and last times, counts added, evidence and classes
/// joined, page loads added as `PageLoads::merge` adds them; each row's number back.
/// (The engine adds `id` to the columns if it hands out the numbers itself.)
pub static VISITOR_DAYS_CONFLICT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "ON CONFLICT (store, day, visitor) DO UPDATE SET {VISITOR_DAYS_SET}, {} \
         RETURNING day, visitor, id",
        page_loads_set()
    )
});

/// What a visitor-day already kept becomes, but its page loads.
const VISITOR_DAYS_SET: &str = "\
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
                    ELSE coalesce(visitor_days.country, excluded.country) END";

/// A visitor-day's columns, in the order its rows bind them.
pub const VISITOR_DAYS_COLUMNS: &str = "store, day, visitor, network, first_seen, last_seen, \
     requests, bots, self_reads, evidence, bot_classes, country, \
     page_loads, entry_at, entry_page, exit_at, exit_page, stay_ms, visits, \
     campaign_at, utm_source, utm_medium, utm_campaign";

/// The SQL twin of `PageLoads::merge` (whocomes-activity's
/// `port/page_loads.rs`), which the store contract checks it against: the
/// kept row `v` and the new part `e` add up to the same whichever came
/// first; the campaign is the earlier one's (ties: the smaller labels).
/// Times are Unix milliseconds; paths and labels compare byte by byte.
fn page_loads_set() -> String {
    let (v, e) = ("visitor_days", "excluded");
    let both = format!("{v}.entry_at IS NOT NULL AND {e}.entry_at IS NOT NULL");
    // The gap between the parts when one ends before the other starts
    // (NULL when they overlap), and whether it is short enough to join them.
    let gap = format!(
        "(CASE WHEN {v}.exit_at <= {e}.entry_at THEN {e}.entry_at - {v}.exit_at \
               WHEN {e}.exit_at <= {v}.entry_at THEN {v}.entry_at - {e}.exit_at END)"
    );
    let joined = format!("({both} AND {gap} < {STAY_GAP_MS})");
    let bridge = format!("(CASE WHEN {joined} THEN {gap} ELSE 0 END)");
    let span = format!(
        "((CASE WHEN {e}.exit_at > {v}.exit_at THEN {e}.exit_at ELSE {v}.exit_at END) - \
          (CASE WHEN {e}.entry_at < {v}.entry_at THEN {e}.entry_at ELSE {v}.entry_at END))"
    );
    let stays = format!("({v}.stay_ms + {e}.stay_ms + {bridge})");
    let earlier = format!(
        "({v}.entry_at IS NULL OR ({e}.entry_at IS NOT NULL AND \
          ({e}.entry_at, {e}.entry_page) < ({v}.entry_at, {v}.entry_page)))"
    );
    let later = format!(
        "({v}.exit_at IS NULL OR ({e}.exit_at IS NOT NULL AND \
          ({e}.exit_at, {e}.exit_page) > ({v}.exit_at, {v}.exit_page)))"
    );
    let campaign = |row: &str| {
        format!(
            "({row}.campaign_at, coalesce({row}.utm_source, ''), \
              coalesce({row}.utm_medium, ''), coalesce({row}.utm_campaign, ''))"
        )
    };
    let first_campaign = format!(
        "({v}.campaign_at IS NULL OR ({e}.campaign_at IS NOT NULL AND {} < {}))",
        campaign(e),
        campaign(v)
    );
    let campaign_set = ["campaign_at", "utm_source", "utm_medium", "utm_campaign"]
        .map(|column| {
            format!("{column} = CASE WHEN {first_campaign} THEN {e}.{column} ELSE {v}.{column} END")
        })
        .join(", ");
    format!(
        "{campaign_set}, \
         page_loads = {v}.page_loads + {e}.page_loads, \
         entry_at = CASE WHEN {earlier} THEN {e}.entry_at ELSE {v}.entry_at END, \
         entry_page = CASE WHEN {earlier} THEN {e}.entry_page ELSE {v}.entry_page END, \
         exit_at = CASE WHEN {later} THEN {e}.exit_at ELSE {v}.exit_at END, \
         exit_page = CASE WHEN {later} THEN {e}.exit_page ELSE {v}.exit_page END, \
         stay_ms = CASE WHEN NOT ({both}) THEN {v}.stay_ms + {e}.stay_ms \
                        WHEN {stays} > {span} THEN {span} ELSE {stays} END, \
         visits = {v}.visits + {e}.visits - (CASE WHEN {joined} THEN 1 ELSE 0 END)"
    )
}

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

/// A visitor-day's goals, under its number.
pub const GOALS: Upsert = Upsert {
    table: "visitor_goals",
    columns: "visitor_day, goal, requests",
    conflict: "ON CONFLICT (visitor_day, goal) DO UPDATE SET \
               requests = visitor_goals.requests + excluded.requests",
};
