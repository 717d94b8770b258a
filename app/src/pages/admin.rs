//! The Admin tab's page (`/admin`): whocomes' `AdminTab`, embedded the way
//! any Leptos app would embed it, plus a line that says whether the page
//! has hydrated.

use leptos::prelude::*;
use leptos_meta::Title;

/// The Admin tab, with the hydration status under it.
#[component]
pub fn AdminPage() -> impl IntoView {
    // Its own signal rather than the app's `Hydrated`: this route's code is
    // loaded lazily, so it hydrates after the app's effect has run, and a
    // value that had already changed would never reach the page.
    let (hydrated, set_hydrated) = signal(false);
    Effect::new(move |_| set_hydrated.set(true));
    view! {
        <Title text="Who comes" />
        <admin::AdminTab />
        <p class="hydration-status">
            {move || {
                if hydrated.get() {
                    "Interactive: this page is running in your browser."
                } else {
                    "Static: the interactive page has not loaded yet."
                }
            }}
        </p>
    }
}
