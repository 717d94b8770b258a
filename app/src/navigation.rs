//! Navigations inside the hydrated app never reach the server as page loads,
//! so the app reports each one, once, to [`NAVIGATION_REPORT`]; the counter
//! counts the report as a page load of the new path (SPEC §4). The first
//! page of a visit was a real page load and is not reported again.

use leptos::prelude::*;
use leptos_router::hooks::use_location;

/// Where navigations are reported: `POST NAVIGATION_REPORT?to=/new/path`.
pub const NAVIGATION_REPORT: &str = "/api/whocomes/navigation";

/// Reports every navigation after the first. Call inside the router.
pub fn report_navigations() {
    let location = use_location();
    Effect::new(move |previous: Option<String>| {
        let search = location.search.get();
        let query = if search.is_empty() {
            String::new()
        } else {
            format!("?{search}")
        };
        let target = format!("{}{query}", location.pathname.get());
        if previous
            .as_ref()
            .is_some_and(|previous| *previous != target)
        {
            send(&target);
        }
        target
    });
}

#[cfg(feature = "hydrate")]
fn send(target: &str) {
    let encoded: String = js_sys::encode_uri_component(target).into();
    let url = format!("{NAVIGATION_REPORT}?to={encoded}");
    if let Some(window) = web_sys::window() {
        // A beacon never holds the page up and survives the page closing.
        let _ = window.navigator().send_beacon(&url);
    }
}

#[cfg(not(feature = "hydrate"))]
fn send(_target: &str) {}
