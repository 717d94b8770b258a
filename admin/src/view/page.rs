//! [`TabPage`]: the tab as a page of its own — what `Admin::router`
//! renders on the server and what `hydrate_tab` (feature `hydrate`)
//! takes over in the browser, the same tree on both sides.

use leptos::prelude::*;
use leptos_router::components::Router;

use super::AdminTab;

/// The tab inside a router of its own (its views are its page's query).
/// Its root says `data-hydrated="true"` once the browser has taken over.
#[component]
pub fn TabPage() -> impl IntoView {
    let (hydrated, set_hydrated) = signal(false);
    Effect::new(move |_| set_hydrated.set(true));
    view! {
        <Router>
            <div class="tab-page" data-hydrated=move || hydrated.get().to_string()>
                <AdminTab />
            </div>
        </Router>
    }
}
