//! The Admin tab of whocomes (SPEC §7): visitors per day stacked by kind,
//! lines by store, where they came from, the path through, top paths, the
//! stores' health, and the visitor table for a signed-in admin.
//!
//! - [`AdminTab`] — the component to mount at a route (`/admin`);
//! - [`api`] — its server functions (registered by this crate);
//! - `server` (feature `ssr`) — [`server::Admin`], its state, and the one
//!   layer an app adds (it also serves the export downloads); the figures
//!   themselves are read by `whocomes-reading` and only put in the page's
//!   types here;
//! - [`span`] — which days a view shows, as a query says them;
//! - [`style`] — the tab's own stylesheet, scoped to it;
//! - [`model`] — the figures the server sends; [`chart`] — drawing them as
//!   SVG; [`palette`] — the colours.
#![forbid(unsafe_code)]
// docs.rs marks each item behind a feature with it.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]
// The overview's view is one deep type (a tuple per card, each card's
// elements nested in it): built with the `ssr` feature alone, as an app
// that embeds the tab builds it, computing its layout passes rustc's
// default depth of 128.
#![recursion_limit = "256"]

// `#[server]` makes a public struct per function whose fields are its
// arguments; the function's own docs say what they are.
#[allow(missing_docs)]
pub mod api;
pub mod chart;
pub mod model;
pub mod palette;
#[cfg(feature = "ssr")]
#[cfg_attr(docsrs, doc(cfg(feature = "ssr")))]
pub mod server;
pub mod span;
pub mod style;
mod view;
mod words;

pub use view::{AdminTab, ChartChoice, TabPage};

/// Takes over the tab's page of its own ([`TabPage`], as
/// `Admin::router` renders it) in the browser: call it from the
/// `#[wasm_bindgen] fn hydrate()` of the wasm bundle the page loads.
#[cfg(feature = "hydrate")]
#[cfg_attr(docsrs, doc(cfg(feature = "hydrate")))]
pub fn hydrate_tab() {
    leptos::mount::hydrate_body(TabPage);
}
