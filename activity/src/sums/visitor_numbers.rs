//! The numbers a store keeps visitor-days under: its paths and sources are
//! kept under the visitor-day's number rather than its (store, day, token)
//! key, so that rows of new visitor-days are added at the end of their
//! tables instead of at random places. A store's upsert of a batch's
//! visitor-days returns each one's number (in no set order); this finds
//! them again by day and token.

use chrono::NaiveDate;

use crate::port::rows::VisitorDay;
use crate::port::store::StoreError;

/// A batch's paths, sources and goals under their visitor-days' numbers.
#[derive(Debug, Default)]
pub struct Parts<'v> {
    /// (number, path, requests).
    pub paths: Vec<(i64, &'v str, u64)>,
    /// (number, source, page loads).
    pub sources: Vec<(i64, String, u64)>,
    /// (number, goal, requests).
    pub goals: Vec<(i64, &'v str, u64)>,
}

/// Each visitor-day's number, by day and token.
#[derive(Debug)]
pub struct VisitorNumbers<'r>(Vec<(NaiveDate, &'r str, i64)>);

impl<'r> VisitorNumbers<'r> {
    /// The numbers as returned: (day, token, number).
    pub fn new(mut numbers: Vec<(NaiveDate, &'r str, i64)>) -> Self {
        numbers.sort_unstable();
        Self(numbers)
    }

    /// The number `row`'s visitor-day is kept under; an error if the store
    /// did not return it (the batch's transaction is then given up and
    /// retried).
    pub fn of(&self, row: &VisitorDay) -> Result<i64, StoreError> {
        self.find(row.day, row.visitor.as_str())
    }

    /// The paths, sources and goals of `visitors`, each under its visitor-day's
    /// number, as (number, path or source, count).
    pub fn parts<'v>(&self, visitors: &'v [VisitorDay]) -> Result<Parts<'v>, StoreError> {
        let mut parts = Parts::default();
        for row in visitors {
            let id = self.of(row)?;
            parts.paths.extend(
                row.top_paths
                    .iter()
                    .map(|p| (id, p.path.as_str(), p.requests)),
            );
            parts.sources.extend(
                row.sources
                    .iter()
                    .map(|s| (id, s.source.to_string(), s.page_loads)),
            );
            parts
                .goals
                .extend(row.goals.iter().map(|g| (id, g.goal.name(), g.requests)));
        }
        Ok(parts)
    }

    fn find(&self, day: NaiveDate, visitor: &str) -> Result<i64, StoreError> {
        let key = (day, visitor);
        self.0
            .binary_search_by(|(day, visitor, _)| (*day, *visitor).cmp(&key))
            .map(|at| self.0[at].2)
            .map_err(|_| StoreError::Failed("a visitor-day's number was not returned".into()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_visitor_day_finds_its_own_number_and_a_missing_one_is_an_error() {
        let day = NaiveDate::from_ymd_opt(2026, 12, 1).expect("a day");
        let (a, b, c) = ("a".repeat(32), "b".repeat(32), "c".repeat(32));
        let numbers = VisitorNumbers::new(vec![(day, &b, 7), (day, &a, 3)]);
        assert_eq!(numbers.find(day, &a).ok(), Some(3));
        assert_eq!(numbers.find(day, &b).ok(), Some(7));
        assert!(numbers.find(day, &c).is_err());
        let next_day = day.succ_opt().expect("a day");
        assert!(
            numbers.find(next_day, &a).is_err(),
            "the day is part of the key"
        );
    }
}
