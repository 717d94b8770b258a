//! # server — the `whocomes` binary, as a library its tests can start
//!
//! In three folders (the modules keep flat paths: `server::cli`, not
//! `server::config::cli`):
//!
//! - `config/` — what the operator says: [`cli`] (flags and `WHOCOMES_*`
//!   variables), [`counting`] (the counting flags, turned into an
//!   `activity::Counter`), [`admin_args`] (the tab's password, private),
//!   [`storage`] (the store flags; opening the stores they name is the
//!   `whocomes` library's, as are the day keys and the stop on a signal),
//!   [`data_folder`], [`telemetry`] (logging);
//! - `serving/` — the site: [`startup`] ([`Application::build`] binds the
//!   listener and assembles the router; tests start the real app through it
//!   on port 0), [`routes`] (which path goes to the Leptos app, the JSON API
//!   or a file), [`connections`] (the cap, the timeouts, the stop),
//!   [`headers`] (the security headers on every answer), [`revalidate`],
//!   [`body_limit`], [`precompress`], and `api` (the site's JSON route);
//! - `commands/` — the other commands: [`explain`] (why each request counts
//!   as it does), [`import`] (access logs replayed through the same rules,
//!   with [`import_keys`], the keys imports count each day with), [`demo`]
//!   (a made-up history in a store of its own), [`export`] (what a store
//!   holds, as JSON or CSV).
#![forbid(unsafe_code)]

mod commands;
mod config;
mod serving;

pub use commands::{demo, explain, export, import, import_keys};
pub use config::{admin_args, cli, connection_args, counting, storage, telemetry, to_builder};
pub use serving::{body_limit, headers, precompress, revalidate, routes, startup};

pub use startup::Application;
