//! A request is counted under the country its address is in: the "Where
//! from" card names it, and the store keeps only its two-letter code.

use reqwest::StatusCode;

use crate::helpers::{TestApp, get_with as get, spawn_app_with};

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

async fn person_from(app: &TestApp, address: &str) {
    for path in ["/", "/favicon.ico"] {
        let answer = app
            .client
            .get(app.url(path))
            .header("x-forwarded-for", address)
            .header("user-agent", BROWSER)
            .send()
            .await
            .expect("answers");
        assert_eq!(answer.status(), StatusCode::OK, "{path}");
    }
}

#[tokio::test]
async fn people_are_counted_by_country_and_only_the_code_is_kept() {
    let app = spawn_app_with(&["--trusted-proxy=127.0.0.1"]).await;
    // Two readers in APNIC's 1.0.0.0/24 (Australia), one in Russia's
    // 2001:b08::/32, one from a documentation address (no country).
    for address in ["1.0.0.7", "1.0.0.8", "2001:b08::7", "203.0.113.7"] {
        person_from(&app, address).await;
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
