//! The tab's server functions, called at `{tab}/api/{name}` beside the tab
//! wherever it is mounted (under the tab's path, which the counter never
//! counts; [`client`] says how). They are registered by this crate; the
//! tab's [`AdminLayer`](crate::server::AdminLayer) answers them and gives
//! each its [`Admin`]; the visitor rows also need a session, whoever calls
//! (401 without one).

pub mod client;

use leptos::prelude::*;
use serde::{Deserialize, Serialize};

use crate::model::{Access, AdminError, Overview, VisitorRow};
#[cfg(feature = "ssr")]
use crate::server::Admin;

/// The visitor table: the newest rows, and how many there are in all.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitorTable {
    /// At most the newest 500 rows.
    pub rows: Vec<VisitorRow>,
    /// All visitor-days of the range.
    pub total: usize,
}

/// A failure of the server itself (not the caller's), in words.
#[cfg(feature = "ssr")]
fn failed(words: &str) -> AdminError {
    AdminError::Call(ServerFnErrorErr::ServerError(words.to_owned()))
}

/// The state and the request, or an error that says the layer is missing.
#[cfg(feature = "ssr")]
fn context() -> Result<(Admin, http::request::Parts), AdminError> {
    let parts =
        use_context::<http::request::Parts>().ok_or_else(|| failed("no request in context"))?;
    let admin = parts
        .extensions
        .get::<Admin>()
        .cloned()
        .ok_or(AdminError::NotSetUp)?;
    Ok((admin, parts))
}

/// Answers 401 (or another status) with the error for the page.
#[cfg(feature = "ssr")]
fn refuse(status: http::StatusCode, error: AdminError) -> AdminError {
    if let Some(response) = use_context::<leptos_axum::ResponseOptions>() {
        response.set_status(status);
    }
    error
}

/// Whether the caller is signed in, and whether the tab is private.
#[server(prefix = "/_whocomes", client = client::TabClient, endpoint = "access")]
pub async fn read_access() -> Result<Access, AdminError> {
    let (admin, parts) = context()?;
    Ok(Access {
        signed_in: admin.signed_in(&parts.headers, chrono::Utc::now()),
        private: admin.private(),
        sign_in_possible: admin.sign_in_possible(),
        host: admin.host(),
    })
}

/// The span of a call (see [`Span::call`](crate::span::Span::call)) on the
/// server's day, or 400 with why not.
#[cfg(feature = "ssr")]
fn span_of(
    days: u16,
    last: Option<chrono::NaiveDate>,
    now: chrono::DateTime<chrono::Utc>,
) -> Result<crate::span::Span, AdminError> {
    crate::span::Span::from_call(days, last, now.date_naive()).map_err(|error| {
        refuse(
            http::StatusCode::BAD_REQUEST,
            AdminError::Span(error.to_string()),
        )
    })
}

/// The aggregates for `days` days ending `last` (`None`: the last 7, 30,
/// 90 or 365 days ending today).
/// The overview of `days` days ending `last` (today if none), of the
/// visitor-days `filter` lets through (`activity::filter`'s query form:
/// `page=%2Fresume&source=linkedin`; empty: all).
#[server(prefix = "/_whocomes", client = client::TabClient, endpoint = "overview")]
pub async fn read_overview(
    days: u16,
    last: Option<chrono::NaiveDate>,
    #[server(default)] filter: String,
) -> Result<Overview, AdminError> {
    let (admin, parts) = context()?;
    let now = chrono::Utc::now();
    if !admin.may_read_aggregates(&parts.headers, now) {
        return Err(refuse(http::StatusCode::UNAUTHORIZED, AdminError::Private));
    }
    let span = span_of(days, last, now)?;
    let filter = activity::filter::Filter::from_query(&filter).map_err(|error| {
        refuse(
            http::StatusCode::BAD_REQUEST,
            AdminError::Filter(error.to_string()),
        )
    })?;
    let details = admin.signed_in(&parts.headers, now);
    Ok(crate::server::overview::overview(&admin, span, now, details, &filter).await)
}

/// The visitor rows of `days` days ending `last` (as [`read_overview`]):
/// signed-in admins only.
#[server(prefix = "/_whocomes", client = client::TabClient, endpoint = "visitors")]
pub async fn read_visitors(
    days: u16,
    last: Option<chrono::NaiveDate>,
) -> Result<VisitorTable, AdminError> {
    let (admin, parts) = context()?;
    let now = chrono::Utc::now();
    if !admin.signed_in(&parts.headers, now) {
        return Err(refuse(
            http::StatusCode::UNAUTHORIZED,
            AdminError::SignInFirst,
        ));
    }
    let span = span_of(days, last, now)?;
    let (rows, total) = crate::server::overview::visitors(&admin, span, now).await;
    Ok(VisitorTable { rows, total })
}

/// Adds a note on `day` (`YYYY-MM-DD`) saying `text` to the chart, kept in
/// the site's own store; for the signed-in admin only.
#[server(prefix = "/_whocomes", client = client::TabClient, endpoint = "annotate")]
pub async fn annotate(day: String, text: String) -> Result<(), AdminError> {
    let (admin, parts) = context()?;
    let now = chrono::Utc::now();
    if !admin.signed_in(&parts.headers, now) {
        return Err(refuse(
            http::StatusCode::UNAUTHORIZED,
            AdminError::SignInToNote,
        ));
    }
    let day: chrono::NaiveDate = day.trim().parse().map_err(|_| {
        refuse(
            http::StatusCode::BAD_REQUEST,
            AdminError::Note("a note's day is a date written like 2026-11-01".to_owned()),
        )
    })?;
    let store = admin
        .stores()
        .first()
        .cloned()
        .ok_or(AdminError::NotSetUp)?;
    activity::annotations::add(store.as_ref(), day, &text, now)
        .await
        .map(|_| ())
        .map_err(|error| note_refused(&error))
}

/// Removes the note numbered `id`; for the signed-in admin only.
#[server(prefix = "/_whocomes", client = client::TabClient, endpoint = "remove-note")]
pub async fn remove_note(id: u64) -> Result<(), AdminError> {
    let (admin, parts) = context()?;
    if !admin.signed_in(&parts.headers, chrono::Utc::now()) {
        return Err(refuse(
            http::StatusCode::UNAUTHORIZED,
            AdminError::SignInToNote,
        ));
    }
    let store = admin
        .stores()
        .first()
        .cloned()
        .ok_or(AdminError::NotSetUp)?;
    activity::annotations::remove(store.as_ref(), id)
        .await
        .map(|_| ())
        .map_err(|error| note_refused(&error))
}

/// A note refused (400, 404) or not kept (503), in its words.
#[cfg(feature = "ssr")]
fn note_refused(error: &activity::annotations::AnnotationError) -> AdminError {
    use activity::annotations::AnnotationError;
    let status = match error {
        AnnotationError::Unknown(_) => http::StatusCode::NOT_FOUND,
        AnnotationError::Store(_) => http::StatusCode::SERVICE_UNAVAILABLE,
        _ => http::StatusCode::BAD_REQUEST,
    };
    refuse(status, AdminError::Note(error.to_string()))
}

/// Signs in with the admin password; sets the session cookie.
#[server(prefix = "/_whocomes", client = client::TabClient, endpoint = "sign-in")]
pub async fn sign_in(password: String) -> Result<(), AdminError> {
    use crate::model::SignInError;
    let (admin, parts) = context()?;
    match admin.sign_in(&password, &parts, chrono::Utc::now()).await {
        Ok(cookie) => {
            set_cookie(&cookie)?;
            Ok(())
        }
        Err(error) => {
            let status = match error {
                SignInError::TooMany(_) | SignInError::Busy(_) => {
                    http::StatusCode::TOO_MANY_REQUESTS
                }
                SignInError::NoPassword => http::StatusCode::FORBIDDEN,
                SignInError::Wrong => http::StatusCode::UNAUTHORIZED,
            };
            if let (Some(seconds), Some(response)) = (
                error.retry_after(),
                use_context::<leptos_axum::ResponseOptions>(),
            ) {
                response.insert_header(http::header::RETRY_AFTER, http::HeaderValue::from(seconds));
            }
            Err(refuse(status, AdminError::SignIn(error)))
        }
    }
}

/// Ends the session.
#[server(prefix = "/_whocomes", client = client::TabClient, endpoint = "sign-out")]
pub async fn sign_out() -> Result<(), AdminError> {
    let (admin, parts) = context()?;
    set_cookie(&admin.sign_out(&parts))
}

#[cfg(feature = "ssr")]
fn set_cookie(cookie: &str) -> Result<(), AdminError> {
    let response = use_context::<leptos_axum::ResponseOptions>()
        .ok_or_else(|| failed("no response in context"))?;
    let value = http::HeaderValue::from_str(cookie)
        .map_err(|_| failed("the session cookie is not a header value"))?;
    response.append_header(http::header::SET_COOKIE, value);
    Ok(())
}
