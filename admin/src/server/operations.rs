//! What a monitor reads: whether whocomes keeps activity ([`readiness`]:
//! every store answering and keeping, and the reason when one is not) and
//! its figures in the OpenMetrics text format ([`metrics`]), encoded by
//! `prometheus-client`. Both read what the tab reads (the writer's and the
//! edge's counters, each store's availability and cost, the sign-in
//! refusals), so the figures agree with the overview. Neither is for
//! strangers: an app serves them on an address of their own or behind the
//! tab's sign-in.

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use super::Admin;

/// The content type of [`metrics`]' text.
pub const METRICS_CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Whether every store keeps activity: `Ok` with a line per store, or
/// `Err` with the reason of each that does not.
pub async fn readiness(admin: &Admin) -> Result<String, String> {
    let mut ready = Vec::new();
    let mut not = Vec::new();
    for store in admin.stores() {
        let availability = store.availability().await;
        let line = format!("{}: {}", store.name(), availability.reason);
        if availability.available {
            ready.push(line);
        } else {
            not.push(line);
        }
    }
    if not.is_empty() {
        Ok(ready.join("\n") + "\n")
    } else {
        Err(not.join("\n") + "\n")
    }
}

/// One label: a store's name, a kind of hit.
type Label = Vec<(&'static str, String)>;

fn counter(registry: &mut Registry, name: &str, help: &str, value: u64) {
    let metric = Counter::<u64>::default();
    metric.inc_by(value);
    registry.register(name, help, metric);
}

fn gauge(registry: &mut Registry, name: &str, help: &str, value: i64) {
    let metric = Gauge::<i64>::default();
    metric.set(value);
    registry.register(name, help, metric);
}

/// Every figure, as OpenMetrics text.
pub async fn metrics(admin: &Admin) -> String {
    let mut registry = Registry::with_prefix("whocomes");
    if let Some(stats) = admin.recorder() {
        let s = stats.snapshot();
        for (name, help, value) in [
            (
                "hits_queued",
                "Hits handed to the writer's queue.",
                s.queued,
            ),
            ("hits_written", "Hits written to the store.", s.written),
            (
                "hits_dropped",
                "Hits dropped because the queue was full.",
                s.dropped,
            ),
            (
                "hits_lost",
                "Hits given up after the store failed too long.",
                s.lost,
            ),
            (
                "writes_failed",
                "Writes that failed and were retried.",
                s.failed_writes,
            ),
            (
                "marks_queued",
                "Marks of a browser's evidence queued.",
                s.marks_queued,
            ),
            (
                "marks_written",
                "Marks of a browser's evidence written.",
                s.marks_written,
            ),
            (
                "untrusted_forwarding",
                "Forwarding headers not believed (no trusted proxy).",
                s.untrusted_forwarding,
            ),
        ] {
            counter(&mut registry, name, help, value);
        }
        counter(
            &mut registry,
            "hits_recovered",
            "Hits an earlier run left in the journal, taken up at this start.",
            s.recovered,
        );
        gauge(
            &mut registry,
            "hits_pending",
            "Hits queued and not yet written or given up.",
            i64::try_from(s.waiting()).unwrap_or(i64::MAX),
        );
        for (name, help, value) in [
            (
                "held_rows",
                "Rows the writer holds: for the next write, or for a store that fails.",
                s.held_rows,
            ),
            (
                "held_bytes",
                "What the held rows take in memory (the writer's estimate).",
                s.held_bytes,
            ),
            (
                "journal_bytes",
                "The journal's size on disk (what is held for a remote store that fails).",
                s.journal_bytes,
            ),
        ] {
            gauge(
                &mut registry,
                name,
                help,
                i64::try_from(value).unwrap_or(i64::MAX),
            );
        }
        gauge(
            &mut registry,
            "held_oldest_seconds",
            "Seconds since the oldest held row's first hit arrived (0: nothing held).",
            s.held_since
                .map_or(0, |at| (chrono::Utc::now() - at).num_seconds().max(0)),
        );
    }
    gauge(
        &mut registry,
        "counting",
        "1 while this server counts requests.",
        i64::from(admin.recorder().is_some()),
    );
    if let Some(connections) = admin.connections() {
        gauge(
            &mut registry,
            "connections_open",
            "Connections open now.",
            i64::try_from(connections.open()).unwrap_or(i64::MAX),
        );
        counter(
            &mut registry,
            "connections_refused",
            "Connections refused at the cap (503).",
            connections.refused_count(),
        );
    }
    if let Some(notices) = admin.notices() {
        counter(
            &mut registry,
            "notices_sent",
            "Alerts and digests a channel (mail, webhook) took, one per channel.",
            notices.sent_count(),
        );
        counter(
            &mut registry,
            "notice_failures",
            "Tries to send an alert or digest that failed (each is tried again later).",
            notices.failed_count(),
        );
        gauge(
            &mut registry,
            "notices_waiting",
            "Alerts and digests some channel has not taken yet.",
            i64::try_from(notices.waiting()).unwrap_or(i64::MAX),
        );
    }
    if let Some(day) = admin.day_keys_day() {
        let age = chrono::Utc::now() - day.and_time(chrono::NaiveTime::MIN).and_utc();
        gauge(
            &mut registry,
            "day_key_age_seconds",
            "Seconds since the start of the day the keys are turned to (over 86,460: turning them has failed).",
            age.num_seconds(),
        );
    }
    counter(
        &mut registry,
        "sign_ins_refused",
        "Sign-in attempts refused over the budget.",
        admin.sign_ins_refused(),
    );

    let available = Family::<Label, Gauge<i64>>::default();
    let operations = Family::<Label, Counter<u64>>::default();
    let failures = Family::<Label, Counter<u64>>::default();
    let milliseconds = Family::<Label, Counter<u64>>::default();
    for store in admin.stores() {
        let label = vec![("store", store.name().to_string())];
        let availability = store.availability().await;
        available
            .get_or_create(&label)
            .set(i64::from(availability.available));
        let cost = store.cost();
        operations.get_or_create(&label).inc_by(cost.operations);
        failures.get_or_create(&label).inc_by(cost.failures);
        milliseconds
            .get_or_create(&label)
            .inc_by(u64::try_from(cost.time.as_millis()).unwrap_or(u64::MAX));
    }
    registry.register(
        "store_available",
        "1 while the store keeps activity.",
        available,
    );
    registry.register(
        "store_operations",
        "Reads and writes of the store since start.",
        operations,
    );
    registry.register("store_failures", "Of them, those that failed.", failures);
    registry.register("store_milliseconds", "Time spent in them.", milliseconds);

    let today = chrono::Utc::now().date_naive();
    let figures = admin.reading().range(1, today).await;
    let kinds = Family::<Label, Gauge<i64>>::default();
    let sums = figures.sums.kinds;
    for (kind, n) in [
        ("people", sums.people),
        ("bots", sums.bots),
        ("self_reads", sums.self_reads),
    ] {
        kinds
            .get_or_create(&vec![("kind", kind.to_owned())])
            .set(i64::try_from(n).unwrap_or(i64::MAX));
    }
    registry.register(
        "visitor_days_today",
        "Today's visitor-days by kind (UTC), as the tab counts them.",
        kinds,
    );
    let bot_requests = Family::<Label, Gauge<i64>>::default();
    let bot_days = Family::<Label, Gauge<i64>>::default();
    for class in activity::bot_class::BotClass::ALL {
        let count = figures.sums.bots.get(&class).copied().unwrap_or_default();
        let label = vec![("class", class.as_str().to_owned())];
        bot_requests
            .get_or_create(&label)
            .set(i64::try_from(count.requests).unwrap_or(i64::MAX));
        bot_days
            .get_or_create(&label)
            .set(i64::try_from(count.visitor_days).unwrap_or(i64::MAX));
    }
    registry.register(
        "bot_requests_today",
        "Today's requests of scanners and crawlers by class (UTC): AI crawlers apart from search engines.",
        bot_requests,
    );
    registry.register(
        "bot_visitor_days_today",
        "Today's visitor-days of scanners and crawlers that showed each class (UTC).",
        bot_days,
    );
    gauge(
        &mut registry,
        "requests_today",
        "Today's requests over every store (UTC).",
        i64::try_from(figures.requests).unwrap_or(i64::MAX),
    );

    let mut text = String::new();
    // Writing to a String cannot fail.
    let _ = encode(&mut text, &registry);
    text
}

/// [`readiness`] as an HTTP answer: 200 with each store's state, or 503
/// with why. Never kept by a cache.
pub async fn ready_answer(admin: &Admin) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    let (status, text) = match readiness(admin).await {
        Ok(text) => (http::StatusCode::OK, text),
        Err(text) => (http::StatusCode::SERVICE_UNAVAILABLE, text),
    };
    (status, [(http::header::CACHE_CONTROL, "no-store")], text).into_response()
}

/// [`metrics`] as an HTTP answer, with the OpenMetrics content type.
pub async fn metrics_answer(admin: &Admin) -> axum::response::Response {
    use axum::response::IntoResponse as _;
    (
        http::StatusCode::OK,
        [
            (http::header::CONTENT_TYPE, METRICS_CONTENT_TYPE),
            (http::header::CACHE_CONTROL, "no-store"),
        ],
        metrics(admin).await,
    )
        .into_response()
}

/// A router of its own that answers `/ready` and `/metrics` (and nothing
/// else), for an address only monitors reach (`--metrics-addr`).
pub fn monitor_router(admin: Admin) -> axum::Router {
    let (ready, metrics) = (admin.clone(), admin);
    axum::Router::new()
        .route(
            "/ready",
            axum::routing::get(move || {
                let admin = ready.clone();
                async move { ready_answer(&admin).await }
            }),
        )
        .route(
            "/metrics",
            axum::routing::get(move || {
                let admin = metrics.clone();
                async move { metrics_answer(&admin).await }
            }),
        )
}
