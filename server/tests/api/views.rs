//! A view of the Admin tab is its page's query: the server renders exactly
//! the view a link names, reads the figures, the visitor rows and the
//! exports for a from–to range, and refuses a range it cannot show with the
//! reason, never echoing what was asked.

use chrono::{Days, NaiveDate, Utc};
use reqwest::StatusCode;

use crate::admin::{PASSWORD, sign_in};
use crate::helpers::{TestApp, get_with as get, post, spawn_app_with};

async fn page(app: &TestApp, path: &str) -> String {
    let answer = get(app, path, None).await;
    assert_eq!(answer.status(), StatusCode::OK, "{path}");
    answer.text().await.expect("a page")
}

/// A person today: a page load and its favicon (as every browser asks),
/// then the writer has written them and the tab sums the day with the mark.
async fn one_visit_today(app: &TestApp) {
    for path in ["/", "/favicon.ico"] {
        app.client
            .get(app.url(path))
            .header("x-forwarded-for", "203.0.113.9")
            .header(
                "user-agent",
                "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            )
            .send()
            .await
            .expect("answers");
    }
    let overview = app.current_overview("7").await;
    assert_eq!(
        overview["totals"]["visitors"]["people"],
        1,
        "one person counted: {:?}",
        app.recorder_stats()
    );
}

/// Whether the page has the control named `label` pressed (each is one link).
fn pressed(page: &str, label: &str) -> bool {
    let links: Vec<&str> = page
        .split("<a ")
        .filter(|tag| {
            tag.contains(&format!(">{label}</a>")) || tag.contains(&format!(">{label}<!></a>"))
        })
        .collect();
    assert_eq!(links.len(), 1, "one control {label}");
    links[0].contains(r#"aria-pressed="true""#)
}

/// The lines of an export that hold something.
fn rows(text: &str) -> usize {
    text.lines().filter(|line| !line.trim().is_empty()).count()
}

fn day(offset: u64) -> NaiveDate {
    Utc::now().date_naive() - Days::new(offset)
}

#[tokio::test]
async fn a_link_renders_exactly_its_view() {
    let app = spawn_app_with(&["--own-address=none", "--trusted-proxy=127.0.0.1"]).await;
    one_visit_today(&app).await;

    let default = page(&app, "/admin").await;
    assert!(default.contains("The last 30 days (UTC), beside the 30 days before."));
    assert!(pressed(&default, "30 days") && !pressed(&default, "7 days"));
    assert!(!default.contains("sources-card") && !default.contains("funnel-card"));

    let view = page(
        &app,
        "/admin?range=7&chart=stores&sources=on&funnel=on&table=on",
    )
    .await;
    assert!(view.contains("The last 7 days (UTC), beside the 7 days before."));
    for label in [
        "7 days",
        "Lines by store",
        "Where they came from",
        "The path through",
        "Show as table",
    ] {
        assert!(pressed(&view, label), "{label} is pressed");
    }
    assert!(!pressed(&view, "30 days"));
    assert!(view.contains("sources-card") && view.contains("funnel-card"));
    assert!(view.contains("stores-table"), "the store lines as a table");
    // Each control links to the view it makes, keeping the rest.
    assert!(
        view.contains(
            r#"href="/admin?range=90&amp;chart=stores&amp;sources=on&amp;funnel=on&amp;table=on""#
        ) || view.contains(r#"href="/admin?range=90&chart=stores&sources=on&funnel=on&table=on""#)
    );
    assert!(
        view.contains("/admin?range=7&amp;chart=stores&amp;funnel=on&amp;table=on")
            || view.contains("/admin?range=7&chart=stores&funnel=on&table=on"),
        "sources off"
    );

    // A from–to of three days ending yesterday: no visit in it; ending today: one.
    let (from, to) = (day(3), day(1));
    let past = page(&app, &format!("/admin?from={from}&to={to}&sources=on")).await;
    assert!(past.contains("beside the 3 days before."), "three days");
    assert!(
        past.contains("No people counted from"),
        "none in those days"
    );
    assert!(
        past.contains(&format!(r#"value="{from}""#)),
        "the form shows the range"
    );
    assert!(past.contains("sources-card"), "the toggles stay");
    assert!(
        past.contains(&format!("from={from}&amp;to={to}"))
            || past.contains(&format!("from={from}&to={to}")),
        "the exports follow the range"
    );
    let ending_today = page(&app, &format!("/admin?from={}&to={}", day(2), day(0))).await;
    assert!(
        !ending_today.contains("No people counted"),
        "today's visit is in it"
    );
}

#[tokio::test]
async fn a_view_that_cannot_be_shown_says_why_and_shows_the_default() {
    let app = spawn_app_with(&[]).await;
    let asked = [
        ("range=45", "The range is 7, 30, 90 or 365 days"),
        (
            "from=2026-02-30&to=2026-03-01",
            "“From” is a date written like 2026-11-01.",
        ),
        (
            "from=2026-03-02&to=2026-03-01",
            "The range starts after it ends.",
        ),
        (
            "from=2024-01-01&to=2025-06-01",
            "A range is at most 366 days.",
        ),
        ("from=2026-03-02", "needs both dates"),
        ("sources=maybe", "“sources” is on or off"),
        ("chart=pie%3Cscript%3E", "“chart” is kinds or stores"),
    ];
    for (query, reason) in asked {
        let answer = page(&app, &format!("/admin?{query}")).await;
        assert!(answer.contains(reason), "{query}: {reason}");
        assert!(
            answer.contains(r#"role="alert""#),
            "{query}: said as an alert"
        );
        assert!(
            answer.contains("figures-card"),
            "{query}: the tab still shows figures"
        );
        for echoed in ["45", "2026-02-30", "maybe", "pie", "<script"] {
            assert!(
                !answer.contains(&format!("“{echoed}"))
                    && !answer.contains(&format!("value=\"{echoed}")),
                "{query}: not echoed"
            );
        }
    }
    assert!(
        !page(&app, "/admin?range=45").await.contains("<script>"),
        "nothing injected"
    );
}

#[tokio::test]
async fn the_server_reads_a_from_to_and_refuses_what_it_cannot_show() {
    let app = spawn_app_with(&[
        &format!("--admin-password={PASSWORD}"),
        "--own-address=none",
        "--trusted-proxy=127.0.0.1",
    ])
    .await;
    one_visit_today(&app).await;
    let yesterday = day(1).to_string();
    let today = day(0).to_string();
    let overview = |days: &'static str, last: String| {
        let app = &app;
        async move {
            post(
                app,
                "/admin/api/overview",
                &[("days", days), ("last", &last)],
                None,
            )
            .await
        }
    };

    let past: serde_json::Value = overview("3", yesterday.clone())
        .await
        .json()
        .await
        .expect("JSON");
    assert_eq!(past["days"].as_array().map(Vec::len), Some(3));
    assert_eq!(past["days"][2]["day"], yesterday, "ends on the day asked");
    assert_eq!(past["totals"]["visitors"]["people"], 0);
    let with_today: serde_json::Value = overview("3", today.clone())
        .await
        .json()
        .await
        .expect("JSON");
    assert_eq!(with_today["totals"]["visitors"]["people"], 1);

    for (days, last, reason) in [
        (
            "3",
            day(0) + Days::new(1),
            "The range ends after today (UTC).",
        ),
        ("0", day(0), "A range is at most 366 days."),
        ("400", day(0), "A range is at most 366 days."),
    ] {
        let refused = overview(days, last.to_string()).await;
        assert_eq!(
            refused.status(),
            StatusCode::BAD_REQUEST,
            "{days} days to {last}"
        );
        assert!(
            refused.text().await.expect("text").contains(reason),
            "{reason}"
        );
    }

    // The visitor rows and the exports keep to the days too.
    let (_, cookie) = sign_in(&app).await;
    let total = |last: String| {
        let (app, cookie) = (&app, cookie.clone());
        async move {
            let table: serde_json::Value = post(
                app,
                "/admin/api/visitors",
                &[("days", "3"), ("last", &last)],
                Some(&cookie),
            )
            .await
            .json()
            .await
            .expect("JSON");
            table["total"].as_u64()
        }
    };
    assert_eq!(total(yesterday.clone()).await, Some(0));
    assert_eq!(total(today.clone()).await, Some(1));
    for file in ["hours.csv", "visitors.csv"] {
        let export = |query: String| {
            let (app, cookie) = (&app, cookie.clone());
            async move {
                get(
                    app,
                    &format!("/admin/api/export/{file}?{query}"),
                    Some(&cookie),
                )
                .await
            }
        };
        let past = export(format!("from={}&to={yesterday}", day(3))).await;
        assert_eq!(past.status(), StatusCode::OK);
        let disposition = past.headers()["content-disposition"]
            .to_str()
            .expect("text")
            .to_owned();
        assert!(
            disposition.contains(&format!("{}-to-{yesterday}", day(3))),
            "{disposition}"
        );
        let past_text = past.text().await.expect("csv");
        assert_eq!(
            rows(&past_text),
            1,
            "{file}: the header only: {:?}",
            past_text
        );
        let current = export(format!("from={yesterday}&to={today}")).await;
        assert!(
            rows(&current.text().await.expect("csv")) > 1,
            "{file}: today's rows"
        );
        for (query, reason) in [
            ("days=12".to_owned(), "The range is 7, 30, 90 or 365 days"),
            (format!("from={today}"), "needs both dates"),
            (
                format!("from={today}&to={}", day(0) + Days::new(2)),
                "ends after today",
            ),
        ] {
            let refused = export(query.clone()).await;
            assert_eq!(refused.status(), StatusCode::BAD_REQUEST, "{query}");
            assert!(
                refused.text().await.expect("text").contains(reason),
                "{query}"
            );
        }
    }
}

/// Counted requests the writer has not written yet are said, not hidden:
/// with an hour's write interval, two people's four requests are in "Last
/// five minutes" at once, and the tab says they wait for the next write and
/// when it is due (the figures above it count only what is written).
#[tokio::test]
async fn the_tab_says_what_waits_for_the_next_write() {
    let app = spawn_app_with(&[
        "--own-address=none",
        "--trusted-proxy=127.0.0.1",
        "--flush-ms=3600000",
    ])
    .await;
    crate::helpers::person_reads(&app, "198.51.100.7", &["/", "/about"]).await;
    crate::helpers::person_reads(&app, "203.0.113.9", &["/", "/about"]).await;
    // The writer takes what is queued from the queue within a second.
    let started = std::time::Instant::now();
    let last_five_minutes = |tab: &str| {
        tab.split_once(r#"data-figure="Last five minutes""#)
            .and_then(|(_, rest)| rest.split_once('>'))
            .and_then(|(_, rest)| rest.split_once('<'))
            .map(|(figure, _)| figure.to_owned())
    };
    let tab = loop {
        let tab = page(&app, "/admin").await;
        if last_five_minutes(&tab).as_deref() == Some("4") {
            break tab;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "four requests counted in the last five minutes: {:?} {:?}",
            app.recorder_stats(),
            last_five_minutes(&tab)
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    };
    let said = tab
        .split_once("4 requests wait for the next write, in at most ")
        .and_then(|(_, rest)| rest.split_once(" s;"))
        .map(|(seconds, _)| seconds.parse::<u64>().expect("seconds"))
        .unwrap_or_else(|| panic!("the waiting requests are said: {tab}"));
    assert!(
        (3_590..=3_600).contains(&said),
        "due within the hour: {said} s"
    );
    assert!(tab.contains("requests this server counted, written or waiting"));
    assert_eq!(app.recorder_stats().written, 0, "nothing written yet");

    // Written (the stop writes everything), nothing waits.
    let (hours, _) = app.stop_and_read().await;
    assert_eq!(hours.iter().map(|hour| hour.requests).sum::<u64>(), 4);
}
