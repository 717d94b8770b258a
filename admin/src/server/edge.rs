//! What the server's edge has done since it started: connections open and
//! refused at the cap, sign-in attempts refused before any password check.
//! The host server fills these counters; the tab shows them beside the
//! writer's.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Counters the server updates as connections come and go.
#[derive(Debug, Default)]
pub struct ConnectionStats {
    open: AtomicU64,
    accepted: AtomicU64,
    refused: AtomicU64,
    /// Whether a server counts its connections here: until one says so,
    /// the counters are not shown (an app that serves itself keeps none).
    kept: AtomicBool,
}

impl ConnectionStats {
    /// A server starts counting its connections here: from now on the
    /// tab and `/metrics` show them.
    pub fn keep(&self) {
        self.kept.store(true, Ordering::Relaxed);
    }

    /// Whether a server counts its connections here.
    pub fn kept(&self) -> bool {
        self.kept.load(Ordering::Relaxed)
    }

    /// A connection was accepted and is being served.
    pub fn opened(&self) {
        self.open.fetch_add(1, Ordering::Relaxed);
        self.accepted.fetch_add(1, Ordering::Relaxed);
    }

    /// A served connection ended.
    pub fn closed(&self) {
        self.open.fetch_sub(1, Ordering::Relaxed);
    }

    /// A connection over the cap was answered 503 and closed.
    pub fn refused(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    /// Connections open now.
    pub fn open(&self) -> u64 {
        self.open.load(Ordering::Relaxed)
    }

    /// Connections accepted and served since start.
    pub fn accepted(&self) -> u64 {
        self.accepted.load(Ordering::Relaxed)
    }

    /// Connections refused at the cap since start.
    pub fn refused_count(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }
}
