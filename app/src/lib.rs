//! # app — the site whocomes counts
//!
//! A small portfolio (landing, inventory, about, résumé) with whocomes' Admin
//! tab mounted at `/admin`, written once with Leptos and built twice: with
//! `ssr` for the server (HTML first paint, server functions, status codes) and
//! with `hydrate` for the browser (the same components take over the HTML).
//!
//! What lives where:
//! - [`shell`] — the HTML document around the app (the server renders it);
//! - [`App`] — the router and the shared page frame;
//! - `admin_route` — the `/admin` route, split out of the public pages' wasm;
//! - [`inventory`] — the inventory's data type and the server function that lists it;
//! - `navigation` — reporting navigations inside the app, so they count as page loads;
//! - `pages` — one file per page.
#![forbid(unsafe_code)]
// docs.rs marks each item behind a feature with it.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]

mod admin_route;
pub mod inventory;
mod layout;
mod navigation;
mod pages;
mod shell;

pub use navigation::NAVIGATION_REPORT;
pub use shell::{App, Hydrated, shell};
