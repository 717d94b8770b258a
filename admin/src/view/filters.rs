//! The filter on the view: the bar above the cards that says which
//! visitor-days they count (each condition removable, all at once too),
//! and the link a card's row is, which narrows the view to that row. Both
//! are links to another view (`address`), so they work without JavaScript,
//! can be shared, and Back undoes one.

use activity::filter::{Condition, Dimension, Op};
use leptos::prelude::*;

use super::toggles::{Toggles, toggle};

/// A row's label as a link that adds "`dimension` is `value`" to the view.
#[component]
pub(crate) fn FilterLink(
    toggles: Toggles,
    dimension: Dimension,
    #[prop(into)] value: String,
    children: Children,
) -> impl IntoView {
    let title = format!("Only visitor-days whose {} is {value}", dimension.label());
    let condition = Condition {
        dimension,
        op: Op::Is,
        values: vec![value],
    };
    view! {
        <a
            class="filter-link"
            href=move || {
                let condition = condition.clone();
                toggles.href(move |view| view.filter = view.filter.and(condition))
            }
            title=title
            data-noscroll="true"
            data-filter-link=dimension.word()
        >
            {children()}
        </a>
    }
}

/// What the cards are narrowed to, each condition with a link that removes
/// it; nothing when the view is not filtered.
#[component]
pub(crate) fn FilterBar(
    toggles: Toggles,
    /// The days a filter can count, when fewer than the range's: from the
    /// first whose visitor rows are kept to the range's last.
    covers: Option<(chrono::NaiveDate, chrono::NaiveDate)>,
) -> impl IntoView {
    move || {
        let filter = toggle(toggles.filter);
        (!filter.is_empty()).then(|| {
            let conditions = filter
                .conditions
                .iter()
                .enumerate()
                .map(|(at, condition)| {
                    let label = condition.dimension.label();
                    let removed = filter.without(at);
                    let remove = toggles.href(move |view| view.filter = removed);
                    view! {
                        <li data-filter=condition.dimension.word()>
                            {label} " " {condition.op.words()} " "
                            <strong>{condition.values.join(" or ")}</strong> " "
                            <a href=remove aria-label=format!("Remove the condition on the {label}")
                                data-noscroll="true" class="filter-remove">"✕"</a>
                        </li>
                    }
                })
                .collect_view();
            let everything = toggles.href(|view| view.filter = Default::default());
            view! {
                <nav class="card filter-bar" aria-label="Filter">
                    <p>"Only the visitor-days whose"</p>
                    <ul>{conditions}</ul>
                    <a href=everything data-noscroll="true" class="filter-clear">"Show every visitor-day"</a>
                    <p class="card-note">
                        "A filtered view is counted from the visitor-day rows, which expire before the hourly "
                        "totals: days whose visitor rows have expired show nothing, and requests are the "
                        "visitor-days' own."
                    </p>
                    {covers.map(|(from, last)| view! {
                        <p class="card-note filter-covers" data-filter-covers=from.to_string()>
                            "This filtered view counts " {from.format("%-d %B %Y").to_string()} " to "
                            {last.format("%-d %B %Y").to_string()}
                            ": the visitor rows of the days before are no longer kept."
                        </p>
                    })}
                </nav>
            }
        })
    }
}
