//! The about page (`/about`).

use leptos::prelude::*;
use leptos_meta::Title;

/// Who runs this site, and how it treats its readers.
#[component]
pub fn AboutPage() -> impl IntoView {
    view! {
        <Title text="About" />
        <h1>"About"</h1>
        <div class="prose">
            <p>
                "I am Mara Lindqvist, a software engineer in Gothenburg. For twelve years I have written software for organisations that cannot afford for it to break: "
                "a harbour office, two housing co-operatives, a regional bus company, and one very large community garden."
            </p>
            <p>
                "I like plain tools, written-down decisions and tests that a newcomer can read. "
                "I work in Rust, SQL and a little TypeScript, and I teach an evening course on building for the web without tracking its readers."
            </p>
            <h2>"About this site"</h2>
            <p>
                "This site counts its visits with whocomes. It keeps how many people came and which pages they read; "
                "it never keeps an address, a cookie, or the name of your browser."
            </p>
        </div>
    }
}
