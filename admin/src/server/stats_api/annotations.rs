//! The chart's notes over the API, with the same keys (whocomes' own
//! endpoint: Plausible has none): `GET {tab}/api/v1/annotations?site_id=S`
//! (`&date=FROM,TO` to narrow them) lists them, `POST` with a JSON body
//! `{"site_id", "date", "text"}` adds one (201), `DELETE
//! {tab}/api/v1/annotations/ID?site_id=S` removes one. A key that reads the
//! site may add and remove its notes. Notes are the site's own: `site_id`
//! is the store the tab's notes are kept in (its first).

use activity::annotations::{self, Annotation, AnnotationError};
use axum::body::Body;
use axum::response::Response;
use chrono::{NaiveDate, Utc};
use http::{Method, StatusCode};
use serde_json::{Value, json};

use super::keys::KeyEntry;
use super::{error, json_answer, set_json};
use crate::server::Admin;

/// The most bytes a note's body may hold.
const MAX_BODY: usize = 4 * 1024;

fn shown(note: &Annotation) -> Value {
    json!({
        "id": note.id,
        "date": note.day.to_string(),
        "text": note.text,
        "added": note.added.to_rfc3339(),
    })
}

fn param(query: &str, name: &str) -> Option<String> {
    let params = super::v1::Params::parse(query).ok()?;
    params.get(name).map(str::to_owned)
}

fn refused(error_: &AnnotationError) -> Response {
    match error_ {
        AnnotationError::Unknown(_) => error(StatusCode::NOT_FOUND, &error_.to_string()),
        AnnotationError::Store(store) => {
            tracing::warn!(error = store.kind(), "a note could not be read or kept");
            error(
                StatusCode::SERVICE_UNAVAILABLE,
                "The store cannot be read now; retry shortly",
            )
        }
        _ => error(StatusCode::BAD_REQUEST, &error_.to_string()),
    }
}

/// Answers `{tab}/api/{name}` for a request `key` was admitted to make.
pub(crate) async fn answer(
    admin: &Admin,
    key: &KeyEntry,
    name: &str,
    parts: &http::request::Parts,
    body: Body,
) -> Response {
    let query = parts.uri.query().unwrap_or("");
    let (site, body_value) = if parts.method == Method::POST {
        let Ok(bytes) = axum::body::to_bytes(body, MAX_BODY).await else {
            return error(StatusCode::PAYLOAD_TOO_LARGE, "A note's body is over 4 KiB");
        };
        let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
            return error(
                StatusCode::BAD_REQUEST,
                "A note is a JSON object: {\"site_id\", \"date\", \"text\"}",
            );
        };
        (value["site_id"].as_str().map(str::to_owned), value)
    } else {
        (param(query, "site_id"), Value::Null)
    };
    let Some(site) = site.filter(|site| !site.is_empty()) else {
        return error(
            StatusCode::BAD_REQUEST,
            "Missing site ID. Please provide the required site_id parameter with your request",
        );
    };
    let Some(store) = admin.stores().first() else {
        return error(StatusCode::NOT_FOUND, "Site could not be found");
    };
    if store.name().as_str() != site || !key.reads(&site) {
        return error(
            StatusCode::NOT_FOUND,
            "Site could not be found, or this key cannot read it, or its notes are kept with another site",
        );
    }
    let store = store.as_ref();
    let rest = name.strip_prefix("v1/annotations").unwrap_or("");
    let mut response = match (&parts.method, rest) {
        (&Method::GET, "") => {
            let (first, last) = match param(query, "date") {
                None => (NaiveDate::MIN, NaiveDate::MAX),
                Some(range) => match range.split_once(',').map(|(a, b)| (a.parse(), b.parse())) {
                    Some((Ok(first), Ok(last))) => (first, last),
                    _ => {
                        return error(
                            StatusCode::BAD_REQUEST,
                            "date is two dates, FROM,TO, written like 2026-11-01,2026-11-30",
                        );
                    }
                },
            };
            match annotations::between(store, first, last).await {
                Ok(notes) => {
                    json_answer(json!({ "results": notes.iter().map(shown).collect::<Vec<_>>() }))
                }
                Err(store_error) => refused(&AnnotationError::Store(store_error)),
            }
        }
        (&Method::POST, "") => {
            let Some(day) = body_value["date"].as_str().and_then(|day| day.parse().ok()) else {
                return error(
                    StatusCode::BAD_REQUEST,
                    "date is a day written like 2026-11-01",
                );
            };
            let text = body_value["text"].as_str().unwrap_or_default();
            match annotations::add(store, day, text, Utc::now()).await {
                Ok(note) => {
                    let mut created = json_answer(shown(&note));
                    *created.status_mut() = StatusCode::CREATED;
                    created
                }
                Err(refusal) => refused(&refusal),
            }
        }
        (&Method::DELETE, id) => match id.strip_prefix('/').and_then(|id| id.parse().ok()) {
            Some(id) => match annotations::remove(store, id).await {
                Ok(note) => json_answer(shown(&note)),
                Err(refusal) => refused(&refusal),
            },
            None => error(StatusCode::NOT_FOUND, "Remove a note at v1/annotations/ID"),
        },
        _ => error(
            StatusCode::METHOD_NOT_ALLOWED,
            "Notes are listed with GET, added with POST and removed with DELETE v1/annotations/ID",
        ),
    };
    set_json(&mut response);
    response
}
