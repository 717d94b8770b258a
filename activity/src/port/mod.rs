//! The store port (SPEC §6) and its reference stores:
//!
//! - `store` — the [`ActivityStore`](store::ActivityStore) trait, its errors
//!   and what it is told to keep;
//! - `rows` — the rows it carries, and `page_loads`, what a visitor-day's
//!   page loads say of its visits;
//! - `memory`, `null` — the stores that need no engine;
//! - `readers` — the reference readers an adapter with no quicker way calls;
//! - `annotations` — the owner's dated notes on the chart, kept as a store note;
//! - `figures` — what an adapter counts about itself for the Stores card.
//!
//! The SQL and Cosmos DB adapters live in their own crates under `stores/`.

pub mod annotations;
pub mod figures;
pub mod memory;
pub mod null;
pub mod page_loads;
pub mod readers;
pub mod rows;
pub mod store;
