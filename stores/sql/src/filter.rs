//! The SQL twin of `Filter::matches` (whocomes-activity's
//! `sums/filter.rs`): a filter as conditions on a visitor-day row `v`, its
//! values bound as parameters (never written into the statement). The
//! store contract checks each dimension and comparison against the rule.

use activity::bot_class::BotClass;
use activity::filter::{Condition, Dimension, Filter, Op, group_word};
use activity::kind_sql;
use activity::source::{SourceGroup, group_sql};

use crate::engine::{Engine, Query};

/// A filter as SQL: ` AND …` for each condition, and the values it binds,
/// in order, from the parameter it was made to start at.
#[derive(Clone, Debug, Default)]
pub(crate) struct FilterSql {
    /// ` AND (…) AND (…)`, or nothing for no condition.
    pub sql: String,
    /// The values, bound in this order.
    pub values: Vec<String>,
}

impl FilterSql {
    /// `filter` on visitor-day rows `v`, its first value bound as `$first`.
    pub(crate) fn of<E: Engine>(filter: &Filter, first: usize) -> Self {
        let mut made = Self::default();
        for condition in &filter.conditions {
            let found = made.found::<E>(condition, first);
            let holds = if condition.op.negated() {
                format!("NOT {found}")
            } else {
                found
            };
            made.sql.push_str(&format!(" AND ({holds})"));
        }
        made
    }

    /// Binds the values, after whatever `query` has bound before them.
    pub(crate) fn bind<'q, E: Engine>(&'q self, query: Query<'q, E>) -> Query<'q, E> {
        self.values
            .iter()
            .fold(query, |query, value| E::bind_text(query, value))
    }

    /// The parameter after the last value.
    pub(crate) fn next(&self, first: usize) -> usize {
        first + self.values.len()
    }

    /// Whether some held text matches some value: a boolean expression
    /// that is never NULL.
    fn found<E: Engine>(&mut self, condition: &Condition, first: usize) -> String {
        let v = "v.";
        match condition.dimension {
            Dimension::Page => {
                let matched = self.compare::<E>(condition, first, "fp.path");
                format!(
                    "EXISTS (SELECT 1 FROM visitor_paths fp \
                     WHERE fp.visitor_day = v.id AND {matched})"
                )
            }
            Dimension::Goal => {
                let matched = self.compare::<E>(condition, first, "fg.goal");
                format!(
                    "EXISTS (SELECT 1 FROM visitor_goals fg \
                     WHERE fg.visitor_day = v.id AND {matched})"
                )
            }
            Dimension::EntryPage => self.held::<E>(condition, first, &format!("{v}entry_page")),
            Dimension::ExitPage => self.held::<E>(condition, first, &format!("{v}exit_page")),
            Dimension::UtmSource => self.held::<E>(condition, first, &format!("{v}utm_source")),
            Dimension::UtmMedium => self.held::<E>(condition, first, &format!("{v}utm_medium")),
            Dimension::UtmCampaign => self.held::<E>(condition, first, &format!("{v}utm_campaign")),
            Dimension::Country => self.held::<E>(condition, first, &format!("{v}country")),
            Dimension::Store => self.held::<E>(condition, first, &format!("{v}store")),
            Dimension::Kind => {
                let kind = format!(
                    "(CASE WHEN {} THEN 'person' WHEN {} THEN 'bot' ELSE 'self-read' END)",
                    kind_sql::people(v),
                    kind_sql::bots(v)
                );
                self.held::<E>(condition, first, &kind)
            }
            Dimension::BotClass => {
                // The classes whose names match, as bits: our own words,
                // so nothing is bound.
                let mask = BotClass::ALL
                    .into_iter()
                    .filter(|class| matches_any(condition, class.as_str()))
                    .fold(0_u32, |mask, class| mask | u32::from(class.bit()));
                format!("(({} & {mask}) <> 0)", kind_sql::classes(v))
            }
            Dimension::Source => {
                let texts = self.compare::<E>(condition, first, "fs.source");
                let mut any = vec![texts];
                let groups: Vec<SourceGroup> = SourceGroup::ALL
                    .into_iter()
                    .filter(|group| matches_any(condition, group_word(*group)))
                    .collect();
                for group in &groups {
                    if *group != SourceGroup::Typed {
                        any.push(group_sql(*group, "fs.source"));
                    }
                }
                let mut found = format!(
                    "EXISTS (SELECT 1 FROM visitor_sources fs \
                     WHERE fs.visitor_day = v.id AND ({}))",
                    any.join(" OR ")
                );
                if groups.contains(&SourceGroup::Typed) {
                    found = format!(
                        "({found} OR NOT EXISTS (SELECT 1 FROM visitor_sources fs \
                         WHERE fs.visitor_day = v.id))"
                    );
                }
                found
            }
        }
    }

    /// `found` for a single text that may be NULL (NULL matches nothing).
    fn held<E: Engine>(&mut self, condition: &Condition, first: usize, held: &str) -> String {
        let compared = self.compare::<E>(condition, first, held);
        format!("coalesce({compared}, FALSE)")
    }

    /// Whether `held` equals (or holds) one of the values, each bound.
    fn compare<E: Engine>(&mut self, condition: &Condition, first: usize, held: &str) -> String {
        let mut parameters = Vec::with_capacity(condition.values.len());
        for value in &condition.values {
            parameters.push(format!("${}", first + self.values.len()));
            self.values.push(value.clone());
        }
        match condition.op {
            Op::Is | Op::IsNot => format!("({held} IN ({}))", parameters.join(", ")),
            Op::Contains | Op::ContainsNot => format!(
                "({})",
                parameters
                    .iter()
                    .map(|parameter| E::contains(held, parameter))
                    .collect::<Vec<_>>()
                    .join(" OR ")
            ),
        }
    }
}

/// Whether one of our own words (a class, a group) matches a value of
/// `condition`, as the rule compares it.
fn matches_any(condition: &Condition, word: &str) -> bool {
    condition.values.iter().any(|value| match condition.op {
        Op::Is | Op::IsNot => word == value,
        Op::Contains | Op::ContainsNot => word.contains(value.as_str()),
    })
}
