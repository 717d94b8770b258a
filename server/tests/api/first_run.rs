//! What a newcomer sees on the Admin tab: before any person is counted, the
//! tab says why and what to do; with `--demo`, a made-up history in a store
//! of its own, labelled as demo data.

use crate::helpers::{TestApp, refused_at_start, spawn_app, spawn_app_with};

/// The tab's first paint, its text without the markers hydration uses.
async fn admin_page(app: &TestApp) -> String {
    let page = app.get("/admin").await.text().await.expect("a page");
    page.replace("<!>", "")
}

/// Waits until the writer has written what was queued (something was).
async fn settle(app: &TestApp) {
    let stats = app.settled().await;
    assert!(stats.queued > 0, "a hit was queued: {stats:?}");
}

#[tokio::test]
async fn before_any_person_the_tab_says_why_and_what_to_do() {
    let app = spawn_app().await;
    app.get("/about").await;
    settle(&app).await;
    let page = admin_page(&app).await;
    for words in [
        "No people counted in the last 30 days yet.",
        "1 visitor-day came from the site itself.",
        "Visits from this machine (127.0.0.1 or ::1) are counted as the site's own reads",
        "--own-address none",
        "Bots and scanners are never people",
        "scripts/serve --demo",
    ] {
        assert!(page.contains(words), "{words:?} missing from the tab");
    }
    assert!(!page.contains("data-demo-notice"), "no demo data here");
}

#[tokio::test]
async fn a_visit_counted_as_a_person_ends_the_explanation() {
    let app = spawn_app_with(&["--own-address=none"]).await;
    let browser = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    // The headers Firefox sends (fetch metadata to this loopback origin).
    let answer = reqwest::Client::new()
        .get(app.url("/about"))
        .header("user-agent", browser)
        .header("accept", "text/html,application/xhtml+xml,*/*;q=0.8")
        .header("sec-fetch-dest", "document")
        .header("sec-fetch-mode", "navigate")
        .header("sec-fetch-site", "none")
        .send()
        .await
        .expect("answers");
    assert!(answer.status().is_success());
    settle(&app).await;
    let page = admin_page(&app).await;
    assert!(
        page.contains("data-empty-state"),
        "a browser's agent that fetched none of the page's files is no person yet"
    );
    // The page's favicon, as every browser asks for it: now a person.
    reqwest::Client::new()
        .get(app.url("/favicon.ico"))
        .header("user-agent", browser)
        .header("sec-fetch-dest", "image")
        .header("sec-fetch-mode", "no-cors")
        .header("sec-fetch-site", "same-origin")
        .send()
        .await
        .expect("answers");
    // The mark is written with the writer's next batch, and the tab sums
    // the day again when it sees it: wait for both, then read the tab.
    let overview = app.current_overview("30").await;
    assert_eq!(overview["totals"]["visitors"]["people"], 1, "a person");
    let page = admin_page(&app).await;
    assert!(!page.contains("data-empty-state"), "a person was counted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_demo_draws_a_store_of_made_up_visits_labelled_as_such() {
    let app = spawn_app_with(&["--demo", "--demo-seed=4"]).await;
    let names: Vec<String> = app
        .stores()
        .iter()
        .map(|store| store.name().to_string())
        .collect();
    assert_eq!(
        names,
        ["sqlite", "demo"],
        "the site's store, then the demo's"
    );
    let page = admin_page(&app).await;
    assert!(
        page.contains("data-demo-notice"),
        "the tab says it shows demo data"
    );
    assert!(
        page.contains("demo (demo data)"),
        "the demo store is labelled"
    );
    assert!(page.contains(r#"data-store="demo" data-demo="true""#));
    assert!(page.contains(r#"data-store="sqlite" data-demo="false""#));
    assert!(!page.contains("data-empty-state"), "the demo has people");
    // Its people read pages: the Visits card has figures and entry pages.
    for figure in [
        "Pages per visitor-day",
        "One-page visitor-days",
        "Time per visit",
    ] {
        let value = page
            .split(&format!(r#"data-figure="{figure}""#))
            .nth(1)
            .and_then(|rest| rest.split_once('>'))
            .and_then(|(_, rest)| rest.split_once('<'))
            .map(|(value, _)| value)
            .unwrap_or_else(|| panic!("{figure} is shown"));
        assert!(
            value.chars().any(|c| c.is_ascii_digit()),
            "{figure} has a value: {value}"
        );
    }
    assert!(page.contains(r#"data-pages="entry""#) && page.contains(r#"data-pages="exit""#));
}

#[tokio::test]
async fn the_demo_cannot_take_the_sites_own_store_name() {
    let error = refused_at_start(&["--store-name=demo", "--demo"]).await;
    assert!(error.contains("needs another name"), "{error}");
}
