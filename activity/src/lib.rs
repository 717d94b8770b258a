//! # activity — what whocomes counts, and what a hit may never carry
//!
//! This crate is the one home of the privacy decision and of every counting
//! rule in `SPEC.md` sections 1–5: which requests are counted, what a hit
//! carries (and, by having no field for it, what it cannot carry), how the
//! visitor token is made, how a request is classed as a person, a bot or the
//! site reading itself, where a visit came from, and the pure reports over
//! stored rows.
//!
//! It has no I/O, no database and no Leptos, so the rules can be tested on their
//! own and the same records can be used in the browser: without its `server`
//! feature it builds for `wasm32-unknown-unknown`.
//!
//! - [`hit`] — the [`Hit`] record and the [`Counter`] that decides a request;
//! - [`classify`] — counted or not, page load or not, person / bot / self-read;
//! - [`address`] — addresses, trusted proxies, networks; [`country`] — the
//!   country kept, and [`countries`] — the table it is looked up in;
//! - [`token`] — the daily visitor token; [`ratchet`] — day keys that
//!   forget; [`past`] — the keys of older days;
//! - [`path`] — the path a hit keeps;
//! - [`source`] — referrers, tags and their groups;
//! - [`rules`] — every list, with its defaults; [`bots`] — the bot words;
//!   [`bot_class`] — which kind of bot; [`evidence`] — a browser's signs;
//!   `verdicts` — the bot decisions already made, by agent;
//! - [`funnel`] — a site's funnel steps, as written and checked;
//! - [`rows`] — the rows a store keeps; [`report`] — what the dashboard draws;
//!   [`kind_sql`] — the visitor-day kind rule as the SQL text both stores
//!   run (text only: this crate talks to no database).
#![forbid(unsafe_code)]
// docs.rs marks each item behind a feature with it.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]

pub mod address;
pub mod bot_class;
pub mod bots;
pub mod classify;
#[cfg(any(test, feature = "testing"))]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod contract;
pub mod corpus;
pub mod countries;
pub mod country;
pub mod crawlers;
pub mod evidence;
pub mod funnel;
pub mod hit;
#[cfg(any(test, feature = "testing"))]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod holdings;
pub mod kind_sql;
pub mod logline;
pub mod past;
pub mod path;
pub mod pending;
pub mod ratchet;
pub mod recorder_stats;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub mod recording;
pub mod report;
pub mod rows;
pub mod rules;
#[cfg(any(test, feature = "testing"))]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub mod sample;
mod short_text;
pub mod source;
pub mod store;
pub mod summary;
pub mod token;
mod verdicts;
pub mod visitor_numbers;

pub use classify::{Counted, Kind, KindReason, RequestView, Skip};
pub use hit::{Counter, Decision, Hit, StoreName, TokenKeys};
pub use rules::{Rules, RulesConfig};
pub use token::{VisitorKey, VisitorToken};
