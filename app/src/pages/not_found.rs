//! The 404 page: what any path without a page of its own shows.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::A;

/// Shown for every path the router does not know. On the server it also sets
/// the response status to 404, so the page is an honest "not found".
#[component]
pub fn NotFoundPage() -> impl IntoView {
    #[cfg(feature = "ssr")]
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(http::StatusCode::NOT_FOUND);
    }

    view! {
        <Title text="Not found" />
        <section class="not-found">
            <h1>"Nothing here"</h1>
            <p class="lede">"There is no page at this address. It may have moved, or the link may be mistyped."</p>
            <p><A href="/" attr:class="button">"Back to the start"</A></p>
        </section>
    }
}
