//! # whocomes — a privacy-first visit counter, in your axum app
//!
//! One builder gives an app what the `whocomes` binary has: the counting
//! layer, the Admin tab at a path of the app's choosing, and a stop that
//! writes every hit. Its defaults are the binary's: day keys that forget,
//! kept in the data folder; the peer address from axum's `ConnectInfo`;
//! the store opened from a URL, reconnecting, a SQLite file watched.
//!
//! ```no_run
//! use axum::{Router, routing::get};
//! use whocomes::Whocomes;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let whocomes = Whocomes::builder()
//!     .data_dir("data")
//!     .tab_path("/stats")
//!     .trusted_proxies(["127.0.0.1/32".parse()?])
//!     .build()
//!     .await?;
//! let app = Router::new().route("/", get(|| async { "Hello" }));
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:3000").await?;
//! // Serves until SIGTERM or Ctrl-C, then writes every hit.
//! whocomes.serve(listener, app).await?;
//! # Ok(()) }
//! ```
//!
//! The `whocomes` binary builds itself through the same builder: its flags
//! become these calls, so whatever the binary does by default, an app gets
//! by default.
//!
//! - [`Builder`] — the settings; [`Builder::check`], the one preflight,
//!   gives [`Checked`], whose [`build`](Checked::build) starts it all;
//! - [`Whocomes`] — the layer, the tab's router, serving with the
//!   [`ConnectionLimits`], the stop;
//! - [`stores`] — a store opened from its URL (the binary's `--store-url`);
//! - [`keys`] — the day keys, kept in the data folder, and the key given;
//! - [`data_folder`] — the start lock and the `serving-PID` mark;
//! - [`export`] — what the store holds, as a stream of CSV or JSON;
//! - `notify` — alerts to e-mail and webhooks, once per episode (the
//!   `notify` feature);
//! - [`signal`] — SIGTERM or Ctrl-C; [`write_and_close`] — what a stop does.
//!
//! ## Features
//!
//! By default whocomes keeps its counts in SQLite and compiles nothing
//! else a store or a notice would need. Turn on what the app uses:
//!
//! | feature | adds |
//! |---|---|
//! | `postgres` | `postgres://…` store URLs |
//! | `cosmos` | `cosmos+https://…` store URLs (Azure Cosmos DB) |
//! | `notify` | alerts and digests by e-mail, webhooks, Slack and ntfy |
//!
//! A store URL whose feature is off is refused at the start, naming the
//! feature. The guide, with a whole app, is `docs/EMBEDDING.md`.
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

mod builder;
mod check;
pub mod connections;
pub mod data_folder;
mod error;
pub mod export;
pub mod keys;
mod layer;
mod monitors;
#[cfg(feature = "notify")]
#[cfg_attr(docsrs, doc(cfg(feature = "notify")))]
pub mod notify;
mod peer;
mod shutdown;
mod site;
mod start;
pub mod stores;

pub use builder::Builder;
pub use check::Checked;
pub use connections::ConnectionLimits;
pub use error::BuildError;
pub use keys::KeyScheme;
pub use layer::CountingLayer;
pub use peer::connect_info;
pub use shutdown::{signal, write_and_close};
pub use site::{SHUTDOWN_GRACE, Whocomes};

// What the builder's settings take, so an app needs no other crate to
// name them.
pub use activity::address::{ForwardedHeader, TrustedProxies};
pub use activity::crawlers::Crawlers;
pub use activity::funnel::FunnelStep;
pub use activity::goal::{Goal, GoalError};
pub use activity::recording::{RecorderConfig, StatsSnapshot};
pub use activity::store::Retention;
pub use activity::{RulesConfig, StoreName};
pub use admin::server::Host;
pub use ipnet::IpNet;
