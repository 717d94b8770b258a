//! The Admin tab (`/admin`). For now it only proves that the page hydrates:
//! the charts and the visitor table arrive with the recording and Admin work.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::shell::Hydrated;

/// The ranges the Admin tab will offer, in days.
const RANGES: [u16; 4] = [7, 30, 90, 365];

/// The Admin tab's frame: a range picker that only works once the wasm has
/// taken over the page, and a line that says whether it has.
#[component]
pub fn AdminPage() -> impl IntoView {
    let Hydrated(hydrated) = expect_context::<Hydrated>();
    let range = RwSignal::new(30u16);

    view! {
        <Title text="Who comes" />
        <section class="admin">
            <h1>"Who comes"</h1>
            <p class="lede">
                "Visitors per day, where they came from and the path they took will be drawn here."
            </p>
            <div class="range-picker" role="group" aria-label="Range">
                {RANGES
                    .map(|days| {
                        view! {
                            <button
                                type="button"
                                aria-pressed=move || (range.get() == days).to_string()
                                on:click=move |_| range.set(days)
                            >
                                {days}
                                " days"
                            </button>
                        }
                    })
                    .collect_view()}
            </div>
            <p class="range-status" aria-live="polite">
                {move || format!("Showing the last {} days.", range.get())}
            </p>
            <p class="hydration-status">
                {move || {
                    if hydrated.get() {
                        "Interactive: this page is running in your browser."
                    } else {
                        "Static: the interactive page has not loaded yet."
                    }
                }}
            </p>
        </section>
    }
}
