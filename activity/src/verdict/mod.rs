//! A visitor-day's verdict (SPEC §3), the one home of the rule that turns
//! a day's requests and signs into people, scanners and crawlers, or the
//! site's own reads:
//!
//! - [`rule`] — the verdict: kind, whether disguised, the classes it counts
//!   under, and why, in words. The dashboard, the export, retention,
//!   `explain` and `import` all ask it.
//! - [`watch`] — the writer's short memory for the signs that need time
//!   (a quick form post, a rate no reader keeps, a file before its page),
//!   driven by one call, [`watch::Watch::see`], wherever requests are
//!   replayed in order: the live writer, `explain`, `import`.
//! - [`sql`] — the same rule as SQL text for the SQL stores; their tests
//!   check it against [`rule`] over every combination of signs.

pub mod rule;
pub mod sql;
pub mod watch;

pub use rule::{DayCounts, Verdict, VisitorKind};
