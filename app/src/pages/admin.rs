//! The Admin tab's page (`/admin`): whocomes' `AdminTab`, embedded the way
//! any Leptos app would embed it, in a wrapper that says whether the page
//! has hydrated (for the end-to-end tests; nothing an admin reads).

use leptos::prelude::*;
use leptos_meta::Title;

/// The Admin tab, in a wrapper that says (as `data-interactive`) whether
/// the page has hydrated.
#[component]
pub fn AdminPage() -> impl IntoView {
    // Its own signal rather than the app's `Hydrated`: this route's code is
    // loaded lazily, so it hydrates after the app's effect has run, and a
    // value that had already changed would never reach the page.
    let (hydrated, set_hydrated) = signal(false);
    Effect::new(move |_| set_hydrated.set(true));
    view! {
        <Title text="Who comes" />
        <div class="admin-page" data-interactive=move || hydrated.get().to_string()>
            <admin::AdminTab />
        </div>
    }
}
