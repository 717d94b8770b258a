//! The Admin tab's page (`/admin`): whocomes' `AdminTab`, embedded the way
//! any Leptos app would embed it, plus a line that says whether the page
//! has hydrated.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::shell::Hydrated;

/// The Admin tab, with the hydration status under it.
#[component]
pub fn AdminPage() -> impl IntoView {
    let Hydrated(hydrated) = expect_context::<Hydrated>();
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
