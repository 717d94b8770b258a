//! The store contract's part on filters: every dimension and comparison,
//! alone and together, summed by the store as the reference sums the rows
//! it lets through (`summary::summarize_filtered`, `Filter::matches`) —
//! the check of each store's twin of the rule (for SQL,
//! `stores/sql/src/filter.rs` and its summary).

use chrono::NaiveDate;

use crate::port::store::{ActivityStore, read_and_summarize};
use crate::sums::filter::Filter;
use crate::sums::report::FunnelStep;

/// Filters in an address's words: each dimension, each comparison, and
/// conditions together.
const FILTERS: &[&[(&str, &str)]] = &[
    &[("page", "/")],
    &[("page", "!/")],
    &[("page", "~notes")],
    &[("page", "!~notes|about")],
    &[("entry_page", "/inventory|/about")],
    &[("exit_page", "~/notes/1")],
    &[("exit_page", "!/")],
    &[("source", "linkedin")],
    &[("source", "github|search")],
    &[("source", "typed")],
    &[("source", "!typed")],
    &[("source", "other-site")],
    &[("source", "tagged")],
    &[("source", "~link")],
    &[("source", "www.google.com")],
    &[("utm_campaign", "issue 1")],
    &[("utm_medium", "!email")],
    &[("utm_source", "~news")],
    &[("goal", "signup")],
    &[("goal", "!signup")],
    &[("goal", "~load|sign")],
    &[("country", "FR|DE")],
    &[("country", "!FR")],
    &[("kind", "bot")],
    &[("kind", "person")],
    &[("kind", "~self")],
    &[("bot_class", "scanner")],
    &[("bot_class", "~crawler")],
    &[("bot_class", "!scanner")],
    &[("source", "linkedin"), ("page", "/")],
    &[
        ("country", "US"),
        ("kind", "person"),
        ("entry_page", "!/about"),
    ],
];

/// Each filter over `first` to `last`: the store's sums equal the
/// reference's, and some filters let through some visitor-days but not all.
pub(super) async fn filter_contract(
    store: &dyn ActivityStore,
    (first, last): (NaiveDate, NaiveDate),
    steps: &[FunnelStep],
) {
    let mut filters: Vec<Filter> = FILTERS
        .iter()
        .map(|pairs| {
            pairs.iter().fold(Filter::none(), |filter, (name, value)| {
                let condition = Filter::parse_pair(name, value)
                    .unwrap_or_else(|e| panic!("a test filter: {e}"));
                filter
                    .with(condition)
                    .unwrap_or_else(|e| panic!("a test filter: {e}"))
            })
        })
        .collect();
    let store_name = store.name().as_str().to_owned();
    filters.push(
        Filter::none()
            .with(
                Filter::parse_pair("store", &store_name)
                    .unwrap_or_else(|e| panic!("a store filter: {e}")),
            )
            .unwrap_or_else(|e| panic!("a store filter: {e}")),
    );
    let people = |summaries: &[crate::sums::summary::DaySummary]| -> u64 {
        summaries.iter().map(|s| s.kinds.total()).sum()
    };
    let all = people(
        &read_and_summarize(store, first, last, steps, &Filter::none())
            .await
            .unwrap_or_else(|e| panic!("reads rows: {e}")),
    );
    let mut narrowed = 0;
    for filter in &filters {
        let reference = read_and_summarize(store, first, last, steps, filter)
            .await
            .unwrap_or_else(|e| panic!("reads rows under {filter:?}: {e}"));
        let summaries = store
            .day_summaries(first, last, steps, filter)
            .await
            .unwrap_or_else(|e| panic!("summarizes under {:?}: {e}", filter.pairs()));
        assert_eq!(
            summaries,
            reference,
            "the store's sums under {:?} are the rule's",
            filter.pairs()
        );
        let kept = people(&summaries);
        if 0 < kept && kept < all {
            narrowed += 1;
        }
    }
    assert!(
        narrowed * 2 > filters.len(),
        "most test filters let some visitor-days through, not all: {narrowed} of {}",
        filters.len()
    );
}
