//! The range picker and the toggles: each a button with `aria-pressed`.

use leptos::prelude::*;

use super::Toggles;
use crate::model::RANGES;

/// Which chart is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChartChoice {
    /// Visitors per day, stacked by kind (the default).
    #[default]
    Kinds,
    /// Requests per day, one line per store.
    Stores,
}

/// A toggle button bound to a boolean signal.
#[component]
fn Toggle(label: &'static str, on: RwSignal<bool>) -> impl IntoView {
    view! {
        <button
            type="button"
            class="toggle"
            aria-pressed=move || on.get().to_string()
            on:click=move |_| on.update(|value| *value = !*value)
        >
            {label}
        </button>
    }
}

/// The range picker, the chart choice and the card toggles.
#[component]
pub(crate) fn Controls(toggles: Toggles) -> impl IntoView {
    let chart = toggles.chart;
    let by_store = move || chart.get() == ChartChoice::Stores;
    view! {
        <div class="admin-controls">
            <div class="range-picker" role="group" aria-label="Range">
                {RANGES
                    .map(|days| {
                        view! {
                            <button
                                type="button"
                                aria-pressed=move || (toggles.range.get() == days).to_string()
                                on:click=move |_| toggles.range.set(days)
                            >
                                {days}
                                " days"
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <div class="toggles" role="group" aria-label="Show">
                <button
                    type="button"
                    class="toggle"
                    aria-pressed=move || by_store().to_string()
                    on:click=move |_| {
                        chart.set(if by_store() { ChartChoice::Kinds } else { ChartChoice::Stores })
                    }
                >
                    "Lines by store"
                </button>
                <Toggle label="Where they came from" on=toggles.sources />
                <Toggle label="The path through" on=toggles.funnel />
                <Toggle label="Show as table" on=toggles.table />
            </div>
        </div>
    }
}
