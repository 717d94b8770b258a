//! A request is counted under the country its address is in: the "Where
//! from" card names it, and the store keeps only its two-letter code.

use reqwest::StatusCode;

use crate::helpers::{get_with as get, person_reads, spawn_app_with};

#[tokio::test]
async fn people_are_counted_by_country_and_only_the_code_is_kept() {
    let app = spawn_app_with(&["--trusted-proxy=127.0.0.1"]).await;
    // Two readers in APNIC's 1.0.0.0/24 (Australia), one in Russia's
    // 2001:b08::/32, one from a documentation address (no country).
    for address in ["1.0.0.7", "1.0.0.8", "2001:b08::7", "203.0.113.7"] {
        person_reads(&app, address, &["/"]).await;
    }
    let overview = app.current_overview("7").await;
    let rows: Vec<(serde_json::Value, String, u64)> = overview["countries"]
        .as_array()
        .expect("the countries")
        .iter()
        .map(|row| {
            (
                row["code"].clone(),
                row["name"].as_str().expect("a name").to_owned(),
                row["visitor_days"].as_u64().expect("a count"),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (serde_json::json!("AU"), "Australia".to_owned(), 2),
            (serde_json::json!("RU"), "Russian Federation".to_owned(), 1),
            (serde_json::Value::Null, "No country known".to_owned(), 1),
        ],
        "most first, no country last"
    );

    let page = get(&app, "/admin?range=7&sources=on", None).await;
    assert_eq!(page.status(), StatusCode::OK);
    let page = page.text().await.expect("a page");
    assert!(
        page.contains("Where from"),
        "the card is beside the sources"
    );
    assert!(page.contains("Australia"), "the country's name");

    let (_, visitors) = app.stop_and_read().await;
    let mut kept: Vec<Option<String>> = visitors
        .iter()
        .map(|v| v.country.map(|c| c.to_string()))
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            None,
            Some("AU".into()),
            Some("AU".into()),
            Some("RU".into())
        ]
    );
}
