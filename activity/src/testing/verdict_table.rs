//! The verdict's table, for checking an engine's SQL twin of the rule
//! ([`crate::verdict::sql`]) against the rule itself
//! ([`DayCounts::verdict`]): every evidence bit pattern under request counts
//! of every shape (people, bots, own reads, mixed, none), with and without
//! bot classes. An engine's test creates the table, fills it, runs
//! [`select_sql`] and hands each row to [`check`]; a SQL rule that drifts
//! from the reference fails on the first row it answers differently.
//! Numbers only: the statements hold no text from outside.

use crate::request::bot_class::{BotClass, ClassSet};
use crate::request::evidence::Evidence;
use crate::verdict::rule::{DayCounts, VisitorKind};
use crate::verdict::sql;

/// The table's name.
pub const TABLE: &str = "verdict_cases";

/// Creates the table, with the stores' own column types (in a throwaway
/// database: it is not one of the store's tables).
pub const CREATE: &str = "CREATE TABLE verdict_cases (\
     requests BIGINT NOT NULL, bots BIGINT NOT NULL, self_reads BIGINT NOT NULL, \
     evidence INTEGER NOT NULL, bot_classes INTEGER NOT NULL)";

/// Every case: (requests, bots, self_reads) shapes × all 512 evidence bit
/// patterns × no class or a crawler's.
pub fn cases() -> Vec<(DayCounts, ClassSet)> {
    const SHAPES: [(u64, u64, u64); 9] = [
        (0, 0, 0),
        (1, 0, 0),
        (1, 1, 0),
        (1, 0, 1),
        (2, 1, 0),
        (2, 0, 1),
        (3, 1, 1),
        (2, 1, 1),
        (5, 0, 5),
    ];
    let mut crawler = ClassSet::default();
    crawler.insert(BotClass::SearchEngine);
    let mut cases = Vec::new();
    for (requests, bots, self_reads) in SHAPES {
        for bits in 0..=Evidence::ALL.0 {
            for classes in [ClassSet::default(), crawler] {
                let counts = DayCounts {
                    requests,
                    bots,
                    self_reads,
                    evidence: Evidence(bits),
                };
                cases.push((counts, classes));
            }
        }
    }
    cases
}

/// The statements that fill the table, a few hundred rows each.
pub fn inserts() -> Vec<String> {
    cases()
        .chunks(300)
        .map(|chunk| {
            let rows: Vec<String> = chunk
                .iter()
                .map(|(counts, classes)| {
                    format!(
                        "({}, {}, {}, {}, {})",
                        counts.requests,
                        counts.bots,
                        counts.self_reads,
                        counts.evidence.0,
                        classes.0
                    )
                })
                .collect();
            format!(
                "INSERT INTO {TABLE} (requests, bots, self_reads, evidence, bot_classes) VALUES {}",
                rows.join(", ")
            )
        })
        .collect()
}

/// The columns [`select_sql`] answers, in [`check`]'s order: each row's
/// counts, then the engine's answers — people, bots, own reads, disguised
/// (each 1 or 0) and the classes it counts under, as bits.
pub const COLUMNS: [&str; 10] = [
    "requests",
    "bots",
    "self_reads",
    "evidence",
    "bot_classes",
    "is_people",
    "is_bots",
    "is_own",
    "is_disguised",
    "counted_classes",
];

/// The engine's answers for every row of the table ([`COLUMNS`]).
pub fn select_sql() -> String {
    let flag = |expression: String| format!("CASE WHEN {expression} THEN 1 ELSE 0 END");
    format!(
        "SELECT CAST(requests AS BIGINT) AS requests, CAST(bots AS BIGINT) AS bots, \
         CAST(self_reads AS BIGINT) AS self_reads, CAST(evidence AS BIGINT) AS evidence, \
         CAST(bot_classes AS BIGINT) AS bot_classes, \
         CAST({} AS BIGINT) AS is_people, CAST({} AS BIGINT) AS is_bots, \
         CAST({} AS BIGINT) AS is_own, CAST({} AS BIGINT) AS is_disguised, \
         CAST(CASE WHEN {} THEN {} ELSE 0 END AS BIGINT) AS counted_classes FROM {TABLE}",
        flag(sql::people("")),
        flag(sql::bots("")),
        flag(sql::self_reads("")),
        flag(sql::disguised("")),
        sql::bots(""),
        sql::classes(""),
    )
}

/// Checks one row of [`select_sql`] against the rule: `Err` names the case
/// and both answers.
pub fn check(row: [i64; 10]) -> Result<(), String> {
    let number = |index: usize| u64::try_from(row[index]).unwrap_or(u64::MAX);
    let counts = DayCounts {
        requests: number(0),
        bots: number(1),
        self_reads: number(2),
        evidence: Evidence(u16::try_from(row[3]).unwrap_or(u16::MAX)),
    };
    let shown = ClassSet(u16::try_from(row[4]).unwrap_or(u16::MAX));
    let verdict = counts.verdict();
    let expected = [
        i64::from(verdict.kind == VisitorKind::Person),
        i64::from(verdict.kind == VisitorKind::Bot),
        i64::from(verdict.kind == VisitorKind::SelfRead),
        i64::from(verdict.disguised()),
        i64::from(verdict.classes(shown).0),
    ];
    if row[5..] == expected {
        Ok(())
    } else {
        Err(format!(
            "{counts:?} with classes {}: the SQL says (people, bots, own, disguised, classes) = {:?}, the rule {expected:?}",
            shown.0,
            &row[5..]
        ))
    }
}

/// Whether an engine's migration gives the rows kept before the evidence
/// rule "files not asked for" ([`Evidence::WAIVED`]) by that bit's own
/// number, so that the kind of a day already counted does not change.
pub fn waives_files(migration: &str) -> bool {
    migration.contains(&format!(
        "evidence INTEGER NOT NULL DEFAULT {}",
        Evidence::WAIVED.0
    ))
}
