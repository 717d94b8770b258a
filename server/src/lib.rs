//! # server — the `whocomes` binary, as a library its tests can start
//!
//! - [`cli`] — flags and `WHOCOMES_*` variables;
//! - [`counting`] — the counting flags, turned into an `activity::Counter`;
//! - [`admin_args`] — the Admin tab's flags (password, private);
//! - [`explain`] — `whocomes explain`: why each request counts as it does;
//! - [`import`] — `whocomes import`: access logs replayed through the same rules;
//! - [`demo`] — `whocomes demo`: a made-up history, imported into a store of its own;
//! - [`export`] — `whocomes export`: what a store holds, as JSON or CSV;
//! - [`import_keys`] — the keys imports count each day with, kept while the
//!   day's visitor rows live;
//! - [`storage`] — the store flags (opening the store they name is the
//!   `whocomes` library's, as are the day keys and the stop on a signal);
//! - [`startup`] — [`Application::build`] binds the listener and assembles
//!   the router; tests start the real app through it on port 0;
//! - [`routes`] — which path goes to the Leptos app, the JSON API or a file;
//! - [`connections`] — accepting connections: the cap, the timeouts, the stop;
//! - [`headers`] — the security headers on every answer;
//! - [`revalidate`] — the page's files asked for again on every visit;
//! - `api` — the site's JSON route;
//! - [`telemetry`] — logging.
#![forbid(unsafe_code)]

pub mod admin_args;
pub mod body_limit;
pub mod cli;
pub mod connections;
pub mod counting;
pub mod data_folder;
pub mod demo;
pub mod explain;
pub mod export;
pub mod headers;
pub mod import;
pub mod import_keys;
pub mod precompress;
pub mod revalidate;
pub mod routes;
pub mod startup;
pub mod storage;
pub mod telemetry;

mod api;

pub use startup::Application;
