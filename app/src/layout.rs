//! The frame every page shares: the header with its navigation, and the footer.

use leptos::prelude::*;
use leptos_router::components::A;

/// Site name and the main navigation. The links go through the router, so
/// moving between pages in the browser does not reload the document.
#[component]
pub fn SiteHeader() -> impl IntoView {
    view! {
        <header class="site-header">
            <a class="skip-link" href="#content">"Skip to content"</a>
            <A href="/" attr:class="site-name">"Mara Lindqvist"</A>
            <nav aria-label="Main">
                <ul>
                    <li><A href="/inventory">"Inventory"</A></li>
                    <li><A href="/about">"About"</A></li>
                    <li><A href="/resume">"Résumé"</A></li>
                </ul>
            </nav>
        </header>
    }
}

/// Footer: where the Admin tab lives, and a word on what is counted.
#[component]
pub fn SiteFooter() -> impl IntoView {
    view! {
        <footer class="site-footer">
            <p>
                "Visits to this site are counted by whocomes, which never stores an address, a cookie or a browser name. "
                <A href="/admin">"Who comes?"</A>
            </p>
        </footer>
    }
}
