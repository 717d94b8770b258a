//! # activity — what whocomes counts, and what a hit may never carry
//!
//! This crate is the one home of the privacy decision and of every counting
//! rule in `SPEC.md` sections 1–5: which requests are counted, what a hit
//! carries (and, by having no field for it, what it cannot carry), how the
//! visitor token is made, how a request is classed as a person, a bot or the
//! site reading itself, and the pure reports over stored rows.
//!
//! It has no I/O, no SQL and no Leptos, so that the rules can be tested on
//! their own and the same records can be used in the browser: without its
//! `server` feature it builds for `wasm32-unknown-unknown`. The tower layer and
//! the background writer live behind `server`.
//!
//! The foundation ships the crate empty on purpose: its contents are the
//! privacy-core work item, and nothing else in the workspace depends on them
//! yet.
#![forbid(unsafe_code)]
