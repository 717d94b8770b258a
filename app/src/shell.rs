//! The HTML document and the router: which path shows which page.

use leptos::prelude::*;
use leptos_meta::{MetaTags, Stylesheet, Title, provide_meta_context};
use leptos_router::{
    SsrMode, StaticSegment,
    components::{Route, Router, Routes},
};

use crate::admin_route;
use crate::layout::{SiteFooter, SiteHeader};
use crate::pages::{AboutPage, HomePage, InventoryPage, NotFoundPage, ResumePage};

/// The whole HTML document the server sends: head, hydration scripts, and the
/// app in the body. Only the server calls this; the browser hydrates [`App`].
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8" />
                <meta name="viewport" content="width=device-width, initial-scale=1" />
                <meta name="color-scheme" content="light" />
                <link rel="icon" href="/favicon.ico" sizes="32x32" />
                <AutoReload options=options.clone() />
                <HydrationScripts options />
                <MetaTags />
            </head>
            <body>
                <App />
            </body>
        </html>
    }
}

/// Whether the wasm has taken over the page, for any component that shows it.
///
/// It turns `true` in an effect, and effects never run during server
/// rendering: so it is `true` only in a browser, after hydration. A lazily
/// loaded route hydrates after that effect has run, so it keeps a signal of
/// its own instead (see the Admin page).
#[derive(Clone, Copy)]
pub struct Hydrated(pub ReadSignal<bool>);

/// Reports navigations inside the app (it needs the router's location).
#[component]
fn NavigationReports() -> impl IntoView {
    crate::navigation::report_navigations();
}

/// The app: stylesheet, default title, the page frame and the routes.
///
/// The root element carries `data-hydrated="true"` once the page is
/// interactive; the browser tests wait for it before they click.
#[component]
pub fn App() -> impl IntoView {
    provide_meta_context();
    let (hydrated, set_hydrated) = signal(false);
    Effect::new(move |_| set_hydrated.set(true));
    provide_context(Hydrated(hydrated));

    view! {
        <Stylesheet id="leptos" href="/pkg/whocomes.css" />
        <Title formatter=|page: String| format!("{page} · Mara Lindqvist") />
        <Router>
            <NavigationReports />
            <div id="app" data-hydrated=move || if hydrated.get() { "true" } else { "false" }>
            <SiteHeader />
            <main id="content">
                <Routes fallback=NotFoundPage>
                    <Route path=StaticSegment("") view=HomePage />
                    <Route path=StaticSegment("inventory") view=InventoryPage />
                    <Route path=StaticSegment("about") view=AboutPage />
                    <Route path=StaticSegment("resume") view=ResumePage />
                    // Rendered whole before it is sent, so the charts read without JavaScript.
                    // With `--split`, the tab's code is a wasm file of its own (admin_route).
                    <Route path=StaticSegment("admin") view=admin_route::view() ssr=SsrMode::Async />
                </Routes>
            </main>
            <SiteFooter />
            </div>
        </Router>
    }
}
