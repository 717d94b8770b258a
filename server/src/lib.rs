//! # server — the `whocomes` binary, as a library its tests can start
//!
//! What only a command line has: the flags, the commands, the site's own
//! pages. Serving is built through the `whocomes` library's builder, as an
//! embedding app's is ([`to_builder`]); nothing the builder does is done
//! again here. In three folders (the modules keep flat paths: `server::cli`, not
//! `server::config::cli`):
//!
//! - `config/` — what the operator says: [`cli`] (flags and `WHOCOMES_*`
//!   variables), [`counting`] (the counting flags, turned into rules and
//!   keys), [`admin_args`] (the tab's password, private), [`storage`] (the
//!   store flags), [`connection_args`] (the cap and the timeouts),
//!   [`to_builder`] (`serve`'s flags as one `whocomes::Builder`, its
//!   refusals in the flags' words), [`telemetry`] (logging);
//! - `serving/` — the site: [`startup`] ([`Application::build`] checks,
//!   binds the listener, starts whocomes and assembles the router; tests
//!   start the real app through it on port 0), [`routes`] (which path goes
//!   to the Leptos app, the JSON API or a file), [`headers`] (the security headers on every answer), [`revalidate`],
//!   [`body_limit`], [`precompress`], and `api` (the site's JSON route);
//! - `commands/` — the other commands: [`explain`] (why each request counts
//!   as it does), [`import`] (access logs replayed through the same rules,
//!   with [`import_keys`], the keys imports count each day with), [`demo`]
//!   (a made-up history in a store of its own), [`export`] (what a store
//!   holds, as JSON or CSV), [`digest`] (the digest as a file, or mailed now), [`annotate`] (the
//!   chart's dated notes).
#![forbid(unsafe_code)]

mod commands;
mod config;
mod serving;

pub use commands::{annotate, api_key, demo, digest, explain, export, import, import_keys};
pub use config::{admin_args, cli, connection_args, counting, storage, telemetry, to_builder};
pub use serving::{body_limit, headers, precompress, revalidate, routes, startup};

pub use startup::Application;
