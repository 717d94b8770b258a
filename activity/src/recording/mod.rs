//! Recording, on a server: the tower layer that turns requests into hits on
//! the request path without waiting, and the background writer that folds
//! them into rows and writes them to a store in batches. Behind the
//! `server` feature (native only: it needs tokio).
//!
//! ```no_run
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

mod budget;
mod layer;
mod writer;

pub use crate::recorder_stats::{RecorderStats, StatsSnapshot};
pub use layer::{ActivityLayer, ActivityService, PeerAddress, socket_addr_extension};
pub use writer::{HitFeed, RecorderConfig, WriterHandle, WriterStopped, start, start_feed};
