//! The Admin tab of whocomes (SPEC §7): visitors per day stacked by kind,
//! lines by store, where they came from, the path through, top paths, the
//! stores' health, and the visitor table for a signed-in admin.
//!
//! - [`model`] — the figures the server sends; [`chart`] — drawing them as
//!   SVG; [`palette`] — the colours.
#![forbid(unsafe_code)]

pub mod chart;
pub mod model;
pub mod palette;
