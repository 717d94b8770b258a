//! The chart's notes through every door: the signed-in tab's form
//! (refused without a session), the API with a key (refused without one, a
//! revoked one, another site's, a body too big or a note too long),
//! `whocomes annotate` on the data folder, the export, and the tab's page,
//! which draws each as a mark with its words escaped.

use std::process::Command;

use reqwest::StatusCode;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app_in};

const PASSWORD: &str = "a long passphrase for notes";

/// `whocomes COMMAND --data-dir=DATA ARGS…`: whether it succeeded, its
/// output and its errors.
fn binary(command: &str, data: &std::path::Path, args: &[&str]) -> (bool, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_whocomes"))
        .arg(command)
        .arg(format!("--data-dir={}", data.display()))
        .args(args)
        .output()
        .expect("the binary runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// What `path` answers, as text.
async fn text_at(app: &TestApp, path: &str) -> String {
    let answer = app.client.get(app.url(path)).send().await.expect("answers");
    answer.text().await.expect("text")
}

async fn annotate(app: &TestApp, cookie: Option<&str>, day: &str, text: &str) -> StatusCode {
    let mut request = app
        .client
        .post(app.url("/admin/api/annotate"))
        .form(&[("day", day), ("text", text)]);
    if let Some(cookie) = cookie {
        request = request.header("cookie", cookie);
    }
    request.send().await.expect("answers").status()
}

async fn api(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    key: Option<&str>,
    body: Option<Vec<u8>>,
) -> (StatusCode, Value) {
    let mut request = app.client.request(method, app.url(path));
    if let Some(key) = key {
        request = request.bearer_auth(key);
    }
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body);
    }
    let answer = request.send().await.expect("answers");
    let status = answer.status();
    (status, answer.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn notes_are_added_by_the_owner_through_the_tab_the_api_and_the_command_line() {
    let data = tempfile::tempdir().expect("a folder");
    let today = chrono::Utc::now().date_naive();
    let yesterday = (today - chrono::Days::new(1)).to_string();
    let today = today.to_string();
    // The command line, before the server starts.
    let (ok, said, err) = binary(
        "annotate",
        data.path(),
        &["--store-name=site", &yesterday, "Released 0.3"],
    );
    assert!(ok, "{err}");
    assert!(said.starts_with("added note 0"), "{said}");
    let (ok, _, err) = binary(
        "annotate",
        data.path(),
        &["--store-name=site", &yesterday, "two\nlines"],
    );
    assert!(
        !ok && err.contains("one line of 1 to 200 characters"),
        "{err}"
    );
    let (_, key, err) = binary("api-key", data.path(), &["create", "tools"]);
    let key = key.trim().to_owned();
    assert!(key.starts_with("wck_"), "{err}");
    let (_, other, _) = binary(
        "api-key",
        data.path(),
        &["create", "other", "--store", "elsewhere"],
    );
    let other = other.trim().to_owned();

    let password = format!("--admin-password={PASSWORD}");
    let app = spawn_app_in(data, &["--store-name=site", &password]).await;

    // The tab's form: a session first.
    assert_eq!(
        annotate(&app, None, &today, "a post").await,
        StatusCode::UNAUTHORIZED
    );
    let (_, cookie) = crate::operations::signed_in(&app.url(""), PASSWORD).await;
    assert_eq!(
        annotate(
            &app,
            Some(&cookie),
            &today,
            "a <script>post</script> & more"
        )
        .await,
        StatusCode::OK
    );
    assert_eq!(
        annotate(&app, Some(&cookie), "yesterday", "x").await,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        annotate(&app, Some(&cookie), &today, &"x".repeat(201)).await,
        StatusCode::BAD_REQUEST
    );

    // The API: a key that reads the site lists and adds.
    let path = "/admin/api/v1/annotations?site_id=site";
    assert_eq!(
        api(&app, reqwest::Method::GET, path, None, None).await.0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        api(
            &app,
            reqwest::Method::GET,
            path,
            Some("wck_not_a_key_at_all"),
            None
        )
        .await
        .0,
        StatusCode::UNAUTHORIZED
    );
    assert_eq!(
        api(&app, reqwest::Method::GET, path, Some(&other), None)
            .await
            .0,
        StatusCode::NOT_FOUND,
        "a key for another store"
    );
    let body = json!({"site_id": "site", "date": today, "text": "Campaign: spring"});
    let (status, added) = api(
        &app,
        reqwest::Method::POST,
        "/admin/api/v1/annotations",
        Some(&key),
        Some(body.to_string().into_bytes()),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{added}");
    let too_big = json!({"site_id": "site", "date": today, "text": "y".repeat(5_000)});
    let (status, _) = api(
        &app,
        reqwest::Method::POST,
        "/admin/api/v1/annotations",
        Some(&key),
        Some(too_big.to_string().into_bytes()),
    )
    .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    let (status, _) = api(
        &app,
        reqwest::Method::POST,
        "/admin/api/v1/annotations",
        Some(&key),
        Some(b"{not json".to_vec()),
    )
    .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, listed) = api(&app, reqwest::Method::GET, path, Some(&key), None).await;
    assert_eq!(status, StatusCode::OK);
    let texts: Vec<&str> = listed["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|note| note["text"].as_str())
        .collect();
    assert_eq!(
        texts,
        [
            "Released 0.3",
            "a <script>post</script> & more",
            "Campaign: spring"
        ]
    );

    // The tab's page draws them as marks, their words escaped.
    let page = text_at(&app, "/admin?range=7").await;
    assert!(page.contains("class=\"note\""), "a note's mark");
    assert!(page.contains("Released 0.3"), "its words");
    assert!(!page.contains("<script>post"), "a note's words are escaped");

    // The export, as the tab's link and `whocomes export notes` give it.
    let csv = text_at(&app, "/admin/api/export/notes.csv?range=7").await;
    assert!(csv.starts_with("id,day,text,added\n"), "{csv}");
    assert_eq!(
        csv.lines().filter(|line| !line.is_empty()).count(),
        4,
        "{csv}"
    );

    // Removed by number, once.
    let id = added["id"].as_u64().expect("an id");
    let one = format!("/admin/api/v1/annotations/{id}?site_id=site");
    assert_eq!(
        api(&app, reqwest::Method::DELETE, &one, Some(&key), None)
            .await
            .0,
        StatusCode::OK
    );
    assert_eq!(
        api(&app, reqwest::Method::DELETE, &one, Some(&key), None)
            .await
            .0,
        StatusCode::NOT_FOUND
    );
    let (_, listed) = api(&app, reqwest::Method::GET, path, Some(&key), None).await;
    assert_eq!(listed["results"].as_array().map(Vec::len), Some(2));
}
