//! The résumé page (`/resume`), with the same résumé as a PDF (`/resume.pdf`).

use leptos::prelude::*;
use leptos_meta::Title;

/// The résumé, as a page and as a download.
#[component]
pub fn ResumePage() -> impl IntoView {
    view! {
        <Title text="Résumé" />
        <h1>"Résumé"</h1>
        <p class="lede">
            "Also as a one-page PDF: "
            // rel="external": the PDF is a file, not a route; the router must let
            // the browser fetch it.
            <a href="/resume.pdf" rel="external" class="download">"resume.pdf"</a>
        </p>
        <section class="resume">
            <h2>"Experience"</h2>
            <dl>
                <dt>"2021 – now · Independent"</dt>
                <dd>"Software for harbours, co-operatives and community groups: design, build, support."</dd>
                <dt>"2016 – 2021 · Västtrafik (contract)"</dt>
                <dd>"Timetable import and validation; cut a nightly job from four hours to nine minutes."</dd>
                <dt>"2013 – 2016 · Chalmers University"</dt>
                <dd>"Research engineer: data pipelines for coastal sensor networks."</dd>
            </dl>
            <h2>"Skills"</h2>
            <ul class="skills">
                <li>"Rust"</li>
                <li>"SQL (PostgreSQL, SQLite)"</li>
                <li>"Web (Leptos, axum, plain HTML and CSS)"</li>
                <li>"Privacy by design"</li>
            </ul>
            <h2>"Education"</h2>
            <p>"MSc Computer Science, Chalmers University of Technology, 2013."</p>
        </section>
    }
}
