//! The range picker, the custom from–to and the toggles. Each control is a
//! link to the view it makes (`role="button"`, `aria-pressed` for what it
//! shows now): without JavaScript it loads that view from the server; in
//! the hydrated tab the router follows it without a page load, and Space
//! presses it as it would a button. The from–to is a GET form: submitted
//! by the browser without JavaScript, followed by the router with it.

use leptos::prelude::*;
use leptos::web_sys::{FormData, HtmlFormElement, UrlSearchParams};
use leptos_router::NavigateOptions;
use leptos_router::hooks::use_navigate;

use super::address::{Address, ChartChoice};
use super::toggles::Toggles;
use crate::model::RANGES;
use crate::span::Span;

/// Space on a link that acts as a button presses it (Enter already does).
fn space_presses(event: leptos::ev::KeyboardEvent) {
    if event.key() == " " {
        event.prevent_default();
        event_target::<leptos::web_sys::HtmlElement>(&event).click();
    }
}

/// A link to the view `change` makes of this one, pressed while `pressed`.
#[component]
fn ViewLink(
    toggles: Toggles,
    pressed: Signal<bool>,
    change: fn(&mut Address),
    #[prop(into)] label: String,
) -> impl IntoView {
    view! {
        <a
            href=move || toggles.href(change)
            role="button"
            class="toggle"
            aria-pressed=move || pressed.try_get().unwrap_or_default().to_string()
            data-noscroll="true"
            on:keydown=space_presses
        >
            {label}
        </a>
    }
}

/// A range button: the link to the same view over the last `days` days.
#[component]
fn RangeLink(toggles: Toggles, days: u16) -> impl IntoView {
    let pressed = Signal::derive(move || toggles.span.try_get() == Some(Span::Last(days)));
    view! {
        <a
            href=move || toggles.href(|view| view.span = Span::Last(days))
            role="button"
            aria-pressed=move || pressed.get().to_string()
            data-noscroll="true"
            on:keydown=space_presses
        >
            {format!("{days} days")}
        </a>
    }
}

/// From one date to another: a GET form that keeps the toggles.
#[component]
fn Between(toggles: Toggles) -> impl IntoView {
    let dates = move || match toggles.span.try_get() {
        Some(Span::Between { from, to }) => (from.to_string(), to.to_string()),
        _ => (String::new(), String::new()),
    };
    let switches = move || {
        toggles
            .read
            .try_with(|read| {
                // The switches and the filter's conditions (the form
                // encodes their values itself).
                let switches = read
                    .address
                    .switches()
                    .into_iter()
                    .map(|(name, value)| (name, value.to_owned()));
                switches
                    .chain(read.address.filter.pairs())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default()
            .into_iter()
            .map(|(name, value)| view! { <input type="hidden" name=name value=value /> })
            .collect_view()
    };
    let custom = move || matches!(toggles.span.try_get(), Some(Span::Between { .. }));
    let path = move || toggles.path.try_get().unwrap_or_default();
    let navigate = use_navigate();
    // The query the browser itself would submit (the button has no name),
    // followed in place; the page reads it, and says what is wrong with it.
    let submit = move |event: leptos::ev::SubmitEvent| {
        let form = event_target::<HtmlFormElement>(&event);
        let Some(query) = FormData::new_with_form(&form)
            .and_then(|data| UrlSearchParams::new_with_str_sequence_sequence(&data))
            .ok()
            .map(|query| String::from(query.to_string()))
        else {
            return;
        };
        event.prevent_default();
        let options = NavigateOptions {
            scroll: false,
            ..Default::default()
        };
        navigate(&format!("{}?{query}", path()), options);
    };
    view! {
        <form method="get" action=path class="range-between" aria-label="From one date to another" on:submit=submit>
            <label>
                "From "
                <input type="date" name="from" required prop:value=move || dates().0 value=move || dates().0 />
            </label>
            <label>
                "To "
                <input type="date" name="to" required prop:value=move || dates().1 value=move || dates().1 />
            </label>
            {switches}
            <button type="submit" class:current=custom>"Show these days"</button>
        </form>
    }
    .into_any()
}

/// The range picker, the chart choice and the card toggles.
#[component]
pub(crate) fn Controls(toggles: Toggles) -> impl IntoView {
    let by_store = Signal::derive(move || toggles.chart.try_get() == Some(ChartChoice::Stores));
    view! {
        <div class="admin-controls">
            <div class="range-picker" role="group" aria-label="Range">
                {RANGES.map(|days| view! { <RangeLink toggles days /> }).collect_view()}
            </div>
            <Between toggles />
            <div class="toggles" role="group" aria-label="Show">
                <ViewLink toggles pressed=by_store label="Lines by store" change=|view| {
                    view.chart = match view.chart {
                        ChartChoice::Stores => ChartChoice::Kinds,
                        ChartChoice::Kinds => ChartChoice::Stores,
                    }
                } />
                <ViewLink toggles pressed=toggles.sources label="Where they came from"
                    change=|view| view.sources = !view.sources />
                <ViewLink toggles pressed=toggles.funnel label="The path through"
                    change=|view| view.funnel = !view.funnel />
                <ViewLink toggles pressed=toggles.table label="Show as table"
                    change=|view| view.table = !view.table />
            </div>
        </div>
    }
    // Erased: the tab's view type would be too deep for a release build.
    .into_any()
}
