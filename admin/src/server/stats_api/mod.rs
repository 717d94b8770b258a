//! Plausible's Stats API, served beside the tab from whocomes' rows, so a
//! tool written for Plausible reads whocomes with its base URL set to the
//! tab's address: `GET {tab}/api/v1/stats/realtime/visitors|aggregate|
//! timeseries|breakdown` and `POST {tab}/api/v2/query`; and, with the same
//! keys, the chart's notes at `{tab}/api/v1/annotations` (`annotations.rs`).
//!
//! Every request needs a key (`Authorization: Bearer wck_…`, see
//! [`keys`]) that reads the store named by `site_id`; without one it gets
//! 401 and nothing else, whatever it asks. The answers are the read side's
//! [`Query`], translated here and nowhere else
//! ([`words`]); docs/STATS-API.md lists what maps to what.

mod annotations;
pub mod keys;
mod v1;
mod v2;
pub mod words;

use std::time::Instant;

use activity::filter::{Condition, Dimension, Op};
use axum::body::Body;
use axum::response::{IntoResponse as _, Response};
use chrono::Utc;
use http::{HeaderValue, Method, StatusCode, header};
use reading::query::Query;
use serde_json::{Value, json};

use super::Admin;
use keys::Refusal;
use words::BadRequest;

/// The most bytes a v2 query's body may hold.
const MAX_BODY: usize = 64 * 1024;

/// How many of today's newest visitor-days the realtime count looks at.
const REALTIME_ROWS: usize = 5000;

/// Whether `name` (after `{tab}/api/`) is the stats API's.
pub(crate) fn is_stats_api(name: &str) -> bool {
    name.starts_with("v1/stats/") || name == "v2/query" || name.starts_with("v1/annotations")
}

/// Answers a stats API request.
pub(crate) async fn answer(admin: &Admin, name: &str, request: http::Request<Body>) -> Response {
    let (parts, body) = request.into_parts();
    let authorization = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok());
    let key = match admin.api_keys().admit(authorization, Instant::now()) {
        Ok(key) => key,
        Err(Refusal::Missing) => return error(StatusCode::UNAUTHORIZED, MISSING_KEY),
        Err(Refusal::Invalid) => return error(StatusCode::UNAUTHORIZED, INVALID_KEY),
        Err(Refusal::TooMany(wait)) => {
            let mut response = error(
                StatusCode::TOO_MANY_REQUESTS,
                "Too many API requests in the last hour. Please wait and retry",
            );
            let seconds = wait.as_secs().max(1).to_string();
            if let Ok(value) = HeaderValue::from_str(&seconds) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
            return response;
        }
    };
    if name.starts_with("v1/annotations") {
        return annotations::answer(admin, &key, name, &parts, body).await;
    }
    let today = Utc::now().date_naive();
    let asked = match (name, &parts.method) {
        ("v2/query", &Method::POST) => {
            let bytes = match axum::body::to_bytes(body, MAX_BODY).await {
                Ok(bytes) => bytes,
                Err(_) => {
                    return error(
                        StatusCode::PAYLOAD_TOO_LARGE,
                        "The query's body is over 64 KiB",
                    );
                }
            };
            Asked::parse(&bytes, today)
        }
        ("v2/query", _) => return error(StatusCode::METHOD_NOT_ALLOWED, "Use POST for v2/query"),
        (_, &Method::GET) => v1_asked(name, parts.uri.query().unwrap_or(""), today),
        _ => {
            return error(
                StatusCode::METHOD_NOT_ALLOWED,
                "The v1 Stats API is read with GET",
            );
        }
    };
    let asked = match asked {
        Ok(asked) => asked,
        Err(BadRequest(text)) => return error(StatusCode::BAD_REQUEST, &text),
    };
    let Some(site) = asked.site.as_deref().filter(|site| !site.is_empty()) else {
        return error(
            StatusCode::BAD_REQUEST,
            "Missing site ID. Please provide the required site_id parameter with your request",
        );
    };
    let known = admin
        .stores()
        .iter()
        .any(|store| store.name().as_str() == site);
    if !known || !key.reads(site) {
        return error(
            StatusCode::NOT_FOUND,
            "Site could not be found, or this key cannot read it",
        );
    }
    let reading = admin.reading();
    if asked.realtime {
        let since = Utc::now() - chrono::Duration::minutes(5);
        let people = reading.people_since(site, since, REALTIME_ROWS).await;
        return json_answer(json!(people));
    }
    let mut query = asked.query;
    // One store read among several: its own rows only.
    if admin.stores().len() > 1 {
        query.filter = query.filter.and(Condition {
            dimension: Dimension::Store,
            op: Op::Is,
            values: vec![site.to_owned()],
        });
    }
    match reading.query(&query).await {
        Ok(rows) => json_answer((asked.shape)(&query, &rows)),
        Err(store_error) => {
            tracing::warn!(
                error = store_error.kind(),
                "a stats API query could not be read"
            );
            error(
                StatusCode::SERVICE_UNAVAILABLE,
                "The store cannot be read now; retry shortly",
            )
        }
    }
}

/// How an answer is put in the API's shape from the query's rows.
type Shape = Box<dyn Fn(&Query, &[reading::query::QueryRow]) -> Value + Send>;

/// A request, read: the store, the query and how its answer is shaped.
pub(crate) struct Asked {
    site: Option<String>,
    realtime: bool,
    query: Query,
    shape: Shape,
}

fn v1_asked(name: &str, query: &str, today: chrono::NaiveDate) -> Result<Asked, BadRequest> {
    let endpoint = name.strip_prefix("v1/stats/").unwrap_or(name);
    let params = v1::Params::parse(query)?;
    let site = params.get("site_id").map(str::to_owned);
    if endpoint == "realtime/visitors" {
        let (query, _) = v1::query("aggregate", &v1::Params::parse("")?, today)?;
        return Ok(Asked {
            site,
            realtime: true,
            query,
            shape: Box::new(|_, _| Value::Null),
        });
    }
    if !matches!(endpoint, "aggregate" | "timeseries" | "breakdown") {
        return Err(BadRequest::new(
            "No such endpoint: v1/stats/realtime/visitors, aggregate, timeseries and breakdown are answered",
        ));
    }
    let (query, property) = v1::query(endpoint, &params, today)?;
    let endpoint = endpoint.to_owned();
    Ok(Asked {
        site,
        realtime: false,
        query,
        shape: Box::new(move |query, rows| v1::shape(&endpoint, query, property.as_deref(), rows)),
    })
}

const MISSING_KEY: &str = "Missing API key. Please use a valid whocomes API key as a Bearer Token (whocomes api-key create)";
const INVALID_KEY: &str = "Invalid API key. Please make sure you're using a valid API key";

fn json_answer(value: Value) -> Response {
    let mut response = (StatusCode::OK, value.to_string()).into_response();
    set_json(&mut response);
    response
}

fn error(status: StatusCode, text: &str) -> Response {
    let mut response = (status, json!({ "error": text }).to_string()).into_response();
    set_json(&mut response);
    response
}

fn set_json(response: &mut Response) {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
}
