//! # whocomes-cosmos — activity kept in Azure Cosmos DB
//!
//! The design's document store. [`CosmosStore`] keeps a site's activity in
//! one Cosmos DB container, partitioned by store and day (see `docs.rs` for
//! the documents), on the official SDK (`azure_data_cosmos`) with key
//! authentication:
//!
//! ```text
//! --store-url 'cosmos+https://ACCOUNT.documents.azure.com/?database=whocomes&container=activity'
//! WHOCOMES_COSMOS_KEY=…            (or WHOCOMES_COSMOS_KEY_FILE=PATH, or key_file=PATH in the URL)
//! ```
//!
//! What it costs is counted in request units (the service's
//! `x-ms-request-charge`, summed) and shown on the Admin tab's Stores card.
//! A throttled request is [`StoreError::Busy`](activity::store::StoreError)
//! with the service's wait; a write retried after a lost reply counts once
//! (`write.rs`). The key is never logged, shown or put in an error.
//!
//! Behind the `emulator` feature, `cosmos+emulator://NAME/?database=…&container=…`
//! opens the SDK's in-memory emulator instead: for tests and benchmarks.
#![forbid(unsafe_code)]
// docs.rs marks each item behind a feature with it.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]

mod connect;
mod container;
mod docs;
#[cfg(feature = "emulator")]
#[cfg_attr(docsrs, doc(cfg(feature = "emulator")))]
pub mod emulator;
mod location;
mod parts;
mod read;
mod retention;
mod store;
mod write;

pub use location::{KEY_FILE_VARIABLE, KEY_VARIABLE, Location};
pub use parts::{VISITOR_PATHS, VISITOR_SOURCES};
pub use store::CosmosStore;
