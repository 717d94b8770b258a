//! What an adapter counts about itself for the Stores card: its operations,
//! failures and time ([`CostMeter`]).

use std::sync::Mutex;
use std::time::Instant;

use crate::port::rows::Cost;

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
