//! The visitor-day verdict of SPEC §3 as one SQL expression each, in words
//! SQLite and PostgreSQL both read the same way, over a `visitor_days` row
//! whose columns are prefixed with `p` (`""` or `"v."`), made from the
//! [`Evidence`] bits themselves. It sits beside [`crate::verdict::rule`],
//! the reference, so that the rule has one home: the SQL stores' tests run
//! these over the verdict's whole table (`testing::verdict_table`: every
//! combination of signs) and compare each answer with
//! [`DayCounts::verdict`](crate::verdict::rule::DayCounts::verdict); the
//! store contract checks every engine's sums against the reference.
//! Text only: this crate runs no SQL.

use crate::request::bot_class::BotClass;
use crate::request::evidence::Evidence;

/// A browser's evidence and no impostor's sign.
fn passes(p: &str) -> String {
    format!(
        "(({p}evidence & {}) <> 0 AND ({p}evidence & {}) = 0)",
        Evidence::BROWSER.0,
        Evidence::IMPOSTOR.0
    )
}

/// People: a person request, a browser's evidence and no impostor's sign.
pub fn people(p: &str) -> String {
    format!("({p}requests > {p}bots + {p}self_reads AND {})", passes(p))
}

/// Scanners and crawlers: not people, and not only the site's own reads.
pub fn bots(p: &str) -> String {
    format!("({p}requests > {p}self_reads AND NOT {})", people(p))
}

/// The site's own reads: nothing but.
pub fn self_reads(p: &str) -> String {
    format!("({p}requests <= {p}self_reads)")
}

/// A row's evidence with a file's mark added ([`Evidence::FILES`]): what a
/// store sets when one of the page's files was fetched after the row was
/// written.
pub fn with_files(p: &str) -> String {
    format!("({p}evidence | {})", Evidence::FILES.0)
}

/// Person-looking requests without a browser's evidence (a disguised agent).
pub fn disguised(p: &str) -> String {
    format!(
        "({p}requests > {p}bots + {p}self_reads AND NOT {})",
        passes(p)
    )
}

/// The bot classes a scanners-and-crawlers row counts under, as bits:
/// its own, and scanner's when it was disguised.
pub fn classes(p: &str) -> String {
    format!(
        "({p}bot_classes | CASE WHEN {} THEN {} ELSE 0 END)",
        disguised(p),
        BotClass::Scanner.bit()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_names_the_bits_of_activity() {
        let (browser, impostor) = (Evidence::BROWSER.0, Evidence::IMPOSTOR.0);
        assert_eq!(
            people("v."),
            format!(
                "(v.requests > v.bots + v.self_reads AND ((v.evidence & {browser}) <> 0 AND (v.evidence & {impostor}) = 0))"
            )
        );
        let scanner = BotClass::Scanner.bit();
        assert!(classes("").contains(&format!("THEN {scanner} ELSE 0")));
        assert_eq!(
            with_files("v."),
            format!("(v.evidence | {})", Evidence::FILES.0)
        );
    }
}
