//! # activity — what whocomes counts, and what a hit may never carry
//!
//! This crate is the one home of the privacy decision and of every counting
//! rule in `SPEC.md` sections 1–5: which requests are counted, what a hit
//! carries (and, by having no field for it, what it cannot carry), how the
//! visitor token is made, how a request is classed as a person, a bot or the
//! site reading itself, how a visitor-day is judged, where a visit came from,
//! and the pure reports over stored rows.
//!
//! It has no I/O, no database and no Leptos, so the rules can be tested on their
//! own and the same records can be used in the browser: without its `server`
//! feature it builds for `wasm32-unknown-unknown`.
//!
//! The source is in folders, one for each part of the trip from a request
//! to a row and back (the modules keep flat paths: `activity::hit`, not
//! `activity::request::hit`):
//!
//! - `request/` — the request's decision: [`classify`] (counted or not,
//!   person / bot / self-read), [`hit`] (the [`Hit`] record and the
//!   [`Counter`] that decides), [`evidence`] (a request's signs), [`rules`]
//!   and its lists ([`bots`], [`bot_class`], [`crawlers`]), [`path`],
//!   [`source`], [`logline`] (an access-log line as a request);
//! - `visitor/` — who, without naming: [`address`] (trusted proxies,
//!   networks), [`token`], [`ratchet`] and [`past`] (day keys that forget),
//!   [`country`] and [`countries`];
//! - `verdict/` — a visitor-day's verdict, the one home of SPEC §3's rule:
//!   [`verdict::rule`] (kind, disguised, why, in words),
//!   [`verdict::watch`] (the signs that need time), [`verdict::sql`] (the
//!   same rule as SQL text, also at its 0.2 path [`kind_sql`]);
//! - `port/` — the store port ([`store`]), its reference stores and the
//!   rows it carries ([`rows`]);
//! - `recording/` — [`recording`]: the layer, the writer, the rows pending
//!   ([`pending`]) and the recorder's figures ([`recorder_stats`]);
//! - `sums/` — the read side's pure sums: [`report`], [`summary`],
//!   [`funnel`], [`visitor_numbers`];
//! - `testing/` — behind the `testing` feature: the store contract, sample
//!   traffic, and finding the shared corpus ([`corpus`]).
#![forbid(unsafe_code)]
// docs.rs marks each item behind a feature with it.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]

mod port;
pub mod recording;
mod request;
mod sums;
mod testing;
pub mod verdict;
mod visitor;

pub use port::{annotations, page_loads, rows, store};
pub use recording::{pending, recorder_stats};
pub use request::{
    agent, bot_class, bots, caddy_log, campaign, classify, consistency, crawlers, evidence, goal,
    hit, logline, path, rules, source,
};
pub use sums::{filter, funnel, report, summary, visitor_numbers, visits};
pub use testing::corpus;
#[cfg(any(test, feature = "testing"))]
#[cfg_attr(docsrs, doc(cfg(feature = "testing")))]
pub use testing::{contract, holdings, sample, verdict_table};
pub use verdict::sql as kind_sql;
pub use visitor::{address, countries, country, past, ratchet, token};

pub use classify::{Counted, Kind, KindReason, RequestView, Skip};
pub use hit::{Counter, Decision, Hit, StoreName, TokenKeys};
pub use rules::{Rules, RulesConfig};
pub use token::{VisitorKey, VisitorToken};
