//! Navigations inside the hydrated app never reach the server as page loads,
//! so the app reports each one, once, to [`NAVIGATION_REPORT`]; the counter
//! counts the report as a page load of the new path (SPEC §4). The first
//! page of a visit was a real page load and is not reported again — unless
//! the browser fetched it ahead (a link prefetch, or a prerender): the
//! counter does not count a prefetch (`Sec-Purpose: prefetch`), since most
//! are never opened, so the page reports itself once it is really shown.

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
        match &previous {
            Some(previous) if *previous != target => send(&target),
            Some(_) => {}
            None => {
                report_if_fetched_ahead(target.clone());
                report_if_drawn_from_cache();
            }
        }
        target
    });
}

/// Reports the first page when the browser had fetched it ahead: served
/// from a prefetch (`deliveryType` "navigational-prefetch"), activated
/// from a prerender (`activationStart` > 0), or still being prerendered
/// (reported when `document.prerendering` turns false; checked twice a
/// second, for at most ten minutes).
#[cfg(feature = "hydrate")]
fn report_if_fetched_ahead(target: String) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let document = get(&window, "document");
    let prerendering = move || get(&document, "prerendering").as_bool() == Some(true);
    if prerendering() {
        let checks = std::cell::Cell::new(0u32);
        let handle = std::rc::Rc::new(std::cell::Cell::new(None::<IntervalHandle>));
        let kept = handle.clone();
        let interval = set_interval_with_handle(
            move || {
                checks.set(checks.get() + 1);
                let shown = !prerendering();
                if shown || checks.get() > 1_200 {
                    if shown {
                        send(&target);
                    }
                    if let Some(handle) = kept.take() {
                        handle.clear();
                    }
                }
            },
            std::time::Duration::from_millis(500),
        );
        handle.set(interval.ok());
        return;
    }
    let Some(entry) = performance_entries(&window, "navigation")
        .and_then(|entries| entries.get(0).is_object().then(|| entries.get(0)))
    else {
        return;
    };
    let prefetched =
        get(&entry, "deliveryType").as_string().as_deref() == Some("navigational-prefetch");
    let prerendered = get(&entry, "activationStart")
        .as_f64()
        .is_some_and(|start| start > 0.0);
    if prefetched || prerendered {
        send(&target);
    }
}

#[cfg(not(feature = "hydrate"))]
fn report_if_fetched_ahead(_target: String) {}

/// Reports, once, a page load whose files the browser took from its cache
/// without asking the server (`transferSize` 0 for a file under `/pkg/`):
/// the server saw the page alone, and this report is the browser's sign a
/// file request would have been (SPEC §3), so long-lived caching does not
/// move a returning reader to scanners and crawlers. A revalidated file
/// (304) reached the server and is not reported.
#[cfg(feature = "hydrate")]
fn report_if_drawn_from_cache() {
    let Some(window) = web_sys::window() else {
        return;
    };
    let cached = performance_entries(&window, "resource").is_some_and(|entries| {
        entries.iter().any(|entry| {
            let own = get(&entry, "name")
                .as_string()
                .is_some_and(|name| name.contains("/pkg/"));
            let transfer = get(&entry, "transferSize").as_f64();
            let body = get(&entry, "decodedBodySize").as_f64();
            own && transfer == Some(0.0) && body.is_some_and(|size| size > 0.0)
        })
    });
    if cached {
        beacon(&format!("{NAVIGATION_REPORT}?drawn"));
    }
}

#[cfg(not(feature = "hydrate"))]
fn report_if_drawn_from_cache() {}

/// A property of a JavaScript object, `undefined` when it has none (read
/// by name, so that browsers without it are not a link error).
#[cfg(feature = "hydrate")]
fn get(object: &js_sys::wasm_bindgen::JsValue, key: &str) -> js_sys::wasm_bindgen::JsValue {
    js_sys::Reflect::get(object, &key.into()).unwrap_or(js_sys::wasm_bindgen::JsValue::UNDEFINED)
}

/// `performance.getEntriesByType(kind)`, where the browser has it.
#[cfg(feature = "hydrate")]
fn performance_entries(window: &web_sys::Window, kind: &str) -> Option<js_sys::Array> {
    let performance = get(window, "performance");
    get(&performance, "getEntriesByType")
        .dyn_into::<js_sys::Function>()
        .ok()
        .and_then(|by_type| by_type.call1(&performance, &kind.into()).ok())
        .map(|value| js_sys::Array::from(&value))
}

#[cfg(feature = "hydrate")]
use js_sys::wasm_bindgen::JsCast;

#[cfg(feature = "hydrate")]
fn send(target: &str) {
    let encoded: String = js_sys::encode_uri_component(target).into();
    beacon(&format!("{NAVIGATION_REPORT}?to={encoded}"));
}

/// Posts to `url` without holding the page up (a beacon survives the page closing).
#[cfg(feature = "hydrate")]
fn beacon(url: &str) {
    if let Some(window) = web_sys::window() {
        let _ = window.navigator().send_beacon(url);
    }
}

#[cfg(not(feature = "hydrate"))]
fn send(_target: &str) {}
