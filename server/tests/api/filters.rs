//! A filter narrows every card: on the demo's store, the tab's overview
//! under a filter is what the store's rows say of the visitor-days the
//! filter lets through; the page carries the filter in its links and says
//! what it is; a filter that cannot be read is refused with its reason
//! (the call) or left out with it (the page), and the site serves on.
#![allow(clippy::print_stdout)] // the figures, for the closing note

use activity::filter::Filter;
use activity::store::read_and_summarize;
use chrono::{Days, Utc};
use reqwest::StatusCode;

use crate::helpers::{TestApp, post, spawn_app_with};

/// The public overview of the last 30 days under `filter` (its query form).
async fn overview(app: &TestApp, filter: &str) -> serde_json::Value {
    let call = post(
        app,
        "/admin/api/overview",
        &[("days", "30"), ("filter", filter)],
        None,
    )
    .await;
    assert_eq!(call.status(), StatusCode::OK, "{filter}");
    call.json().await.expect("the overview is JSON")
}

/// People visitor-days over the last 30 days of the demo's store under
/// `filter`, as the reference sums its rows.
async fn people_in_rows(app: &TestApp, filter: &str) -> u64 {
    let filter = Filter::from_query(filter).expect("a filter");
    let today = Utc::now().date_naive();
    let demo = app.stores().into_iter().nth(1).expect("the demo store");
    read_and_summarize(demo.as_ref(), today - Days::new(29), today, &[], &filter)
        .await
        .expect("reads the rows")
        .iter()
        .map(|day| day.kinds.people)
        .sum()
}

#[tokio::test]
async fn a_filter_narrows_every_card_to_what_the_rows_say() {
    let app = spawn_app_with(&["--demo", "--demo-seed=4"]).await;
    let all = overview(&app, "").await;
    let people = |overview: &serde_json::Value| {
        overview["totals"]["visitors"]["people"]
            .as_u64()
            .expect("a count")
    };
    let everyone = people(&all);
    let mut narrowed = Vec::new();
    for filter in [
        "source=linkedin",
        "source=linkedin&page=/resume",
        "entry_page=/",
        "utm_campaign=december-notes",
        "country=!US",
        "kind=bot",
    ] {
        let answer = overview(&app, filter).await;
        let counted = people(&answer);
        assert_eq!(
            counted,
            people_in_rows(&app, filter).await,
            "the tab's people under {filter} are the rows'"
        );
        narrowed.push((filter, counted));
        if filter.starts_with("source=linkedin") {
            let sources = answer["sources"].as_array().expect("sources");
            let other: u64 = sources
                .iter()
                .filter(|row| row["filter"] != "linkedin")
                .filter(|row| row["tag"] == false)
                .map(|row| row["visitor_days"].as_u64().unwrap_or(0))
                .sum();
            let linkedin = sources
                .iter()
                .find(|row| row["filter"] == "linkedin")
                .and_then(|row| row["visitor_days"].as_u64());
            assert_eq!(linkedin, Some(counted), "every person came from LinkedIn");
            assert!(other < counted, "few came from elsewhere too: {other}");
        }
    }
    println!("people in 30 days: {everyone}; under filters: {narrowed:?}");
    let [linkedin, resume, ..] = narrowed.as_slice() else {
        unreachable!()
    };
    assert!(0 < resume.1 && resume.1 < linkedin.1 && linkedin.1 < everyone);
    assert_eq!(narrowed[5].1, 0, "a filter on bots has no people");
}

#[tokio::test]
async fn the_page_says_its_filter_and_every_row_narrows_it_further() {
    let app = spawn_app_with(&["--demo", "--demo-seed=4"]).await;
    let page = app
        .get("/admin?range=30&source=linkedin")
        .await
        .text()
        .await
        .expect("a page");
    assert!(page.contains(r#"data-filter="source""#), "the bar says it");
    assert!(
        page.contains(r#"href="/admin?source=linkedin&amp;page=/resume""#)
            || page.contains(r#"href="/admin?page=/resume&amp;source=linkedin""#),
        "a path's row adds its condition to the view's"
    );
    assert!(
        page.contains(r#"href="/admin""#) && page.contains("Show every visitor-day"),
        "one link shows everything again"
    );
}

#[tokio::test]
async fn a_filter_that_cannot_be_read_is_refused_or_left_out_with_its_reason() {
    let app = spawn_app_with(&["--demo", "--demo-seed=4"]).await;
    for (filter, words) in [
        ("referer=x", "no dimension is called"),
        ("page=", "each value is 1 to 512 bytes"),
        (
            &*format!("page={}", "a".repeat(600)),
            "each value is 1 to 512 bytes",
        ),
        (
            &*(0..11)
                .map(|n| format!("page=/{n}"))
                .collect::<Vec<_>>()
                .join("&"),
            "at most 10 conditions",
        ),
    ] {
        let call = post(
            &app,
            "/admin/api/overview",
            &[("days", "30"), ("filter", filter)],
            None,
        )
        .await;
        assert_eq!(call.status(), StatusCode::BAD_REQUEST, "{filter}");
        let said = call.text().await.expect("words");
        assert!(said.contains(words), "{filter}: {said}");
        assert!(!said.contains(&"a".repeat(40)), "the value is not echoed");
    }
    let page = app.get("/admin?page=&source=github").await;
    assert_eq!(page.status(), StatusCode::OK);
    let page = page.text().await.expect("a page");
    assert!(
        page.contains("that condition is left out"),
        "the page says why"
    );
    assert!(
        page.contains(r#"data-filter="source""#),
        "the good condition stays"
    );
    assert_eq!(
        app.get("/").await.status(),
        StatusCode::OK,
        "the site serves on"
    );
}

/// Under a filter, a range longer than the visitor rows are kept says which
/// days it counts; unfiltered, or within the kept days, it says nothing.
#[tokio::test]
async fn a_filtered_range_longer_than_the_kept_visitor_rows_says_which_days_it_counts() {
    let app = spawn_app_with(&["--demo", "--demo-seed=4"]).await;
    let today = Utc::now().date_naive();
    // The binary's default: visitor rows kept for 30 days.
    let kept = activity::store::Retention::default().first_visitor_day(Utc::now());
    let covers = |overview: &serde_json::Value| overview["filter_covers"].clone();
    let call = |days: &'static str, filter: &'static str| {
        let app = &app;
        async move {
            let answer = post(
                app,
                "/admin/api/overview",
                &[("days", days), ("filter", filter)],
                None,
            )
            .await;
            assert_eq!(answer.status(), StatusCode::OK);
            answer.json::<serde_json::Value>().await.expect("JSON")
        }
    };
    assert_eq!(
        covers(&call("90", "source=linkedin").await),
        serde_json::json!(kept.to_string())
    );
    assert!(
        covers(&call("90", "").await).is_null(),
        "unfiltered: every day counts"
    );
    assert!(
        covers(&call("7", "source=linkedin").await).is_null(),
        "within the kept days"
    );
    let page = app
        .get("/admin?range=90&source=linkedin")
        .await
        .text()
        .await
        .expect("the page");
    let said = format!(
        "This filtered view counts {} to {}",
        kept.format("%-d %B %Y"),
        today.format("%-d %B %Y")
    );
    assert!(
        page.replace("<!>", "")
            .replace("<!-- -->", "")
            .contains(&said),
        "the bar says: {said}"
    );
}
