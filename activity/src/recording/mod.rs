//! Recording, on a server: the tower layer that turns requests into hits on
//! the request path without waiting, and the background writer that folds
//! them into rows and writes them to a store in batches. The layer and the
//! writer are behind the `server` feature (native only: they need tokio);
//! the rows pending a write ([`pending`]) and the recorder's figures
//! ([`recorder_stats`], also read by the tab in the browser) are not.
//!
//! ```no_run
//! # #[cfg(feature = "server")]
//! # async fn example(store: std::sync::Arc<dyn whocomes_activity::store::ActivityStore>) {
//! use whocomes_activity::recording::{start, RecorderConfig};
//! use whocomes_activity::{Counter, Rules, StoreName, VisitorKey};
//! use whocomes_activity::address::TrustedProxies;
//!
//! let counter = Counter::new(
//!     Rules::default(),
//!     VisitorKey::from_text("the site's secret").unwrap(),
//!     TrustedProxies::default(),
//!     StoreName::parse("sqlite").unwrap(),
//! );
//! let (layer, writer) = start(counter, store, RecorderConfig::default());
//! // let app = axum::Router::new() /* routes */ .layer(layer);
//! // axum::serve(listener, app).with_graceful_shutdown(signal).await;
//! writer.finish().await; // once the server has stopped: drains the queue
//! # }
//! ```

#[cfg(feature = "server")]
mod budget;
#[cfg(feature = "server")]
pub mod journal;
#[cfg(feature = "server")]
mod layer;
pub mod pending;
pub mod recorder_stats;
#[cfg(feature = "server")]
mod writer;

#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use journal::Journal;
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use layer::{ActivityLayer, ActivityService, PeerAddress, socket_addr_extension};
pub use recorder_stats::{RecorderStats, StatsSnapshot};
#[cfg(feature = "server")]
#[cfg_attr(docsrs, doc(cfg(feature = "server")))]
pub use writer::{
    HitFeed, RecorderConfig, WriterHandle, WriterStopped, start, start_feed, start_journaled,
};
