//! The JSON API: plain axum handlers for clients that are not the Leptos app.

use axum::Json;

use app::inventory::{Item, catalogue};

/// `GET /api/inventory`: the portfolio's inventory as a JSON array.
pub async fn inventory() -> Json<Vec<Item>> {
    Json(catalogue())
}
