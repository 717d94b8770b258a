//! Test support for stores and apps built on this crate, behind the
//! `testing` feature: the store contract every adapter must meet
//! (`contract`, with `holdings`), made-up traffic (`sample`); and finding
//! the third-party corpus beside the repository (`corpus`, always built:
//! the server's tests and benches use it too).

#[cfg(any(test, feature = "testing"))]
pub mod contract;
#[cfg(any(test, feature = "testing"))]
mod contract_hits;
pub mod corpus;
#[cfg(any(test, feature = "testing"))]
mod filter_contract;
#[cfg(any(test, feature = "testing"))]
pub mod holdings;
#[cfg(any(test, feature = "testing"))]
mod page_loads_contract;
#[cfg(any(test, feature = "testing"))]
pub mod sample;
#[cfg(any(test, feature = "testing"))]
pub mod verdict_table;
