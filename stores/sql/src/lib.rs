//! # whocomes-sql — what the SQL stores share
//!
//! SQLite and PostgreSQL keep activity in the same tables, read it with the
//! same statements and sum the Admin tab's days the same way; only how a
//! day, an hour or a list is spelled and bound, and how a batch is written
//! fastest, differ. This crate is the part they share: [`SqlStore`] is the
//! [`ActivityStore`](activity::store::ActivityStore) of both, generic over
//! an [`Engine`] that each adapter crate (`whocomes-sqlite`,
//! `whocomes-postgres`) implements with its own types, its own SQL where
//! it differs, and its own writer. So a fix to a read reaches both engines
//! at once, and the store contract runs the same code on both.
//!
//! Statements are written once, with `$1, $2, …` parameters (SQLite reads
//! them too), `CAST(… AS BIGINT)` where PostgreSQL would widen a sum, and
//! `CASE` where one engine has `MIN(a, b)` and the other `LEAST(a, b)`.
#![forbid(unsafe_code)]
// Every public item of a library a stranger depends on says what it is.
#![warn(missing_docs)]

pub mod basics;
mod batch;
mod engine;
mod error;
mod filter;
mod read;
mod retention;
mod store;
mod summary;
pub mod upsert;
#[cfg(feature = "testing")]
mod verdict_check;

pub use batch::{count, day_marks, day_requests, int};
pub use engine::{Engine, Pairs, Query, Row};
pub use error::{failed, invalid};
pub use store::SqlStore;
