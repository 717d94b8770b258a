//! What the operator says: the flags and variables of every command, and what
//! each group of them builds: for `serve`, one `whocomes::Builder`
//! ([`to_builder`]); for the other commands, a counter, a store, logging.

pub mod admin_args;
pub mod cli;
pub mod connection_args;
pub mod counting;
pub mod notify_args;
pub mod storage;
pub mod telemetry;
pub mod to_builder;
