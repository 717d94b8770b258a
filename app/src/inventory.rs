//! The inventory: what the portfolio lists, as data the server owns.
//!
//! The list is served twice from one source: by the [`list_inventory`] server
//! function (the inventory page) and by the JSON route `/api/inventory` that
//! the server mounts with [`catalogue`].

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

/// One thing in the portfolio's inventory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Item {
    /// What it is called.
    pub name: String,
    /// What kind of work it is ("tool", "library", "talk", …).
    pub kind: String,
    /// The year it was finished (or last shipped).
    pub year: u16,
    /// One sentence on what it does.
    pub summary: String,
}

/// The inventory, newest first. Server-only (the `ssr` feature): the browser receives it through
/// [`list_inventory`], so the data is not compiled into the wasm bundle.
#[cfg(feature = "ssr")]
#[cfg_attr(docsrs, doc(cfg(feature = "ssr")))]
pub fn catalogue() -> Vec<Item> {
    const ENTRIES: &[(&str, &str, u16, &str)] = &[
        (
            "Tidewater",
            "tool",
            2026,
            "A tide-table printer for harbour masters: one A4 page a month, offline.",
        ),
        (
            "ledgerline",
            "library",
            2025,
            "Double-entry bookkeeping for small co-operatives, with audit trails that survive a power cut.",
        ),
        (
            "Quiet Hours",
            "app",
            2024,
            "A shared calendar for night-shift teams that never sends a notification after 22:00.",
        ),
        (
            "Counting without names",
            "talk",
            2024,
            "How to measure a website's readers without storing who they are.",
        ),
        (
            "sparrow-csv",
            "library",
            2023,
            "A CSV reader that reports the line and column of every malformed field.",
        ),
        (
            "Allotment map",
            "site",
            2022,
            "The plot map and waiting list of a 140-plot community garden.",
        ),
    ];

    ENTRIES
        .iter()
        .map(|&(name, kind, year, summary)| Item {
            name: name.to_owned(),
            kind: kind.to_owned(),
            year,
            summary: summary.to_owned(),
        })
        .collect()
}

/// Lists the inventory for the inventory page.
///
/// A fixed endpoint (`/api/site/inventory`) instead of the macro's hashed
/// default, so that the site's server functions have stable, readable URLs.
#[server(prefix = "/api", endpoint = "site/inventory")]
pub async fn list_inventory() -> Result<Vec<Item>, ServerFnError> {
    Ok(catalogue())
}
