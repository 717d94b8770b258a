//! What an adapter tells about itself for the Stores card, in the same
//! words for every engine: its operations, failures and time
//! ([`CostMeter`]); the last write's error ([`LastWrite`]); and whether it
//! keeps activity, and if not why ([`availability_of`]).

use std::sync::Mutex;
use std::time::Instant;

use crate::port::rows::{Availability, Cost};
use crate::port::store::{Retention, StoreError};

/// Counts operations, failures and time for a store's [`Cost`].
#[derive(Debug, Default)]
pub struct CostMeter(Mutex<Cost>);

impl CostMeter {
    /// Records one operation that started at `started`.
    pub fn record<T, E>(&self, started: Instant, result: &Result<T, E>) {
        let mut cost = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        cost.operations += 1;
        cost.time += started.elapsed();
        if result.is_err() {
            cost.failures += 1;
        }
    }

    /// The cost so far.
    pub fn snapshot(&self) -> Cost {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

/// The last write's error, remembered until a write succeeds: a store that
/// answers reads but cannot be written (a full disk, a read-only file, a
/// refused key) says so, not only one that cannot be reached.
#[derive(Debug, Default)]
pub struct LastWrite(Mutex<Option<String>>);

impl LastWrite {
    /// Remembers how a write went.
    pub fn note<T>(&self, result: &Result<T, StoreError>) {
        *self.lock() = result.as_ref().err().map(ToString::to_string);
    }

    /// The last write's error, if it failed.
    pub fn error(&self) -> Option<String> {
        self.lock().clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A store's availability in the words every adapter uses: `{engine} at
/// {location}` kept, or why it cannot be used (a read just tried failed)
/// or written (the last write failed).
pub fn availability_of<T>(
    (engine, location): (&str, &str),
    reachable: Result<T, impl std::fmt::Display>,
    last_write: &LastWrite,
    retention: &Retention,
) -> Availability {
    let (available, reason) = match (reachable, last_write.error()) {
        (Err(error), _) => (
            false,
            format!("{engine} at {location} cannot be used: {error}"),
        ),
        (Ok(_), Some(error)) => (
            false,
            format!("{engine} at {location} cannot be written: {error}"),
        ),
        (Ok(_), None) => (true, format!("kept in {engine} at {location}")),
    };
    Availability {
        available,
        reason,
        retention: retention.describe(),
    }
}
