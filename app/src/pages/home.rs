//! The landing page (`/`): who this is and where to go next.

use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::components::A;

/// The landing page.
#[component]
pub fn HomePage() -> impl IntoView {
    view! {
        <Title text="Home" />
        <section class="hero">
            <p class="eyebrow">"Software engineer · Gothenburg"</p>
            <h1>"I build small, sturdy tools for people who keep things running."</h1>
            <p class="lede">
                "Harbour offices, co-operatives, allotment societies: places where software has to work on an old laptop, offline, for years. "
                "I design it, write it, and stay around to fix it."
            </p>
            <p class="actions">
                <A href="/inventory" attr:class="button">"See the inventory"</A>
                <A href="/resume" attr:class="button button-quiet">"Read my résumé"</A>
            </p>
        </section>
        <section class="cards" aria-label="What I do">
            <article class="card">
                <h2>"Tools"</h2>
                <p>"Command-line and desktop programs that do one job and print a clear error when they cannot."</p>
            </article>
            <article class="card">
                <h2>"Libraries"</h2>
                <p>"Rust crates with documented edge cases and tests that read like the specification."</p>
            </article>
            <article class="card">
                <h2>"Talks"</h2>
                <p>"On privacy that is built in rather than promised, and on software that outlives its funding."</p>
            </article>
        </section>
    }
}
