//! What the operator says: the flags and variables of every command, and what
//! each group of them builds (a counter, the stores, the tab's settings, the
//! data folder, logging).

pub mod admin_args;
pub mod cli;
pub mod counting;
pub mod data_folder;
pub mod preflight;
pub mod storage;
pub mod telemetry;
