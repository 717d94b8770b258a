//! `whocomes export`: the real binary reads what the real app wrote.

use std::process::Command;

use crate::helpers::spawn_app_with;

const BROWSER: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";

fn export(args: &[&str]) -> (String, String, bool) {
    let output = Command::new(env!("CARGO_BIN_EXE_whocomes"))
        .arg("export")
        .args(args)
        .env_remove("WHOCOMES_STORE_URL")
        .output()
        .expect("the binary runs");
    (
        String::from_utf8(output.stdout).expect("UTF-8"),
        String::from_utf8_lossy(&output.stderr).into_owned(),
        output.status.success(),
    )
}

#[tokio::test]
async fn exports_hours_and_visitors_as_json_and_csv() {
    let mut app = spawn_app_with(&[
        "--own-address=none",
        "--trusted-proxy=127.0.0.1",
        "--goal=cv read=/resume",
    ])
    .await;
    for (path, client) in [
        ("/", "203.0.113.7"),
        ("/resume?ref=cv", "203.0.113.7"),
        ("/.env", "198.51.100.1"),
        // In APNIC's 1.0.0.0/24, which the country table puts in Australia.
        ("/about", "1.0.0.7"),
    ] {
        app.client
            .get(app.url(path))
            .header("x-forwarded-for", client)
            .header("user-agent", BROWSER)
            .send()
            .await
            .expect("served");
    }
    app.stop().await.expect("stops");
    let data = format!("--data-dir={}", app.data.path().display());

    let (json, stderr, ok) = export(&["hours", &data, "--since=2000-01-01"]);
    assert!(ok, "{stderr}");
    let hours: Vec<serde_json::Value> = serde_json::from_str(&json).expect("a JSON array");
    assert_eq!(
        hours
            .iter()
            .map(|h| h["requests"].as_u64().expect("a count"))
            .sum::<u64>(),
        4
    );
    assert!(stderr.contains("4 rows"), "{stderr}");

    let (csv, stderr, ok) = export(&["visitors", &data, "--since=2000-01-01", "--format=csv"]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = csv.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines[0],
        "store,day,visitor,network,country,first_seen,last_seen,requests,bots,self_reads,kind,signs,bot_classes,top_paths,sources,goals"
    );
    assert_eq!(lines.len(), 4, "a header and three visitor-days:\n{csv}");
    let australian = lines
        .iter()
        .find(|l| l.contains("1.0.0.x"))
        .expect("the reader from 1.0.0.7");
    assert!(
        australian.contains(",1.0.0.x,AU,"),
        "its country: {australian}"
    );
    // Each row says its kind and the signs that decided it: the reader
    // fetched no file here (a bot by the browser evidence), the prober asked for a secret.
    let reader = lines
        .iter()
        .find(|l| l.contains("203.0.113.x"))
        .expect("the reader");
    assert!(
        reader
            .contains(",bot,\"no browser's sign (no file of the page, no call from its script)\","),
        "{reader}"
    );
    let prober = lines
        .iter()
        .find(|l| l.contains("198.51.100.x"))
        .expect("the prober");
    assert!(
        prober.contains(",bot,every request a bot's or the site's own,scanner,"),
        "{prober}"
    );
    assert!(
        reader.ends_with(r#","[{""goal"":""cv read"",""requests"":1}]""#),
        "the goal its path reached: {reader}"
    );
    // The goals by hour: the path's goal, by the request's own kind (a
    // browser's agent: its visitor-day's verdict is read later, from its rows).
    let (goals, stderr, ok) = export(&["goals", &data, "--since=2000-01-01", "--format=csv"]);
    assert!(ok, "{stderr}");
    let goal_lines: Vec<&str> = goals.lines().collect();
    assert_eq!(goal_lines.len(), 2, "{goals}");
    assert_eq!(goal_lines[0], "store,hour,goal,requests,bots,self_reads");
    assert!(goal_lines[1].ends_with(",cv read,1,0,0"), "{goals}");
    let (json, stderr, ok) = export(&["visitors", &data, "--since=2000-01-01"]);
    assert!(ok, "{stderr}");
    let rows: Vec<serde_json::Value> = serde_json::from_str(&json).expect("a JSON array");
    assert!(
        rows.iter()
            .all(|row| row["kind"] == "bot" && row["signs"].is_array()),
        "{json}"
    );
    let countries: Vec<(&str, &serde_json::Value)> = rows
        .iter()
        .map(|row| (row["network"].as_str().expect("a network"), &row["country"]))
        .collect();
    assert!(
        countries.contains(&("1.0.0.x", &serde_json::json!("AU"))),
        "{json}"
    );
    assert!(
        countries.contains(&("203.0.113.x", &serde_json::Value::Null)),
        "a documentation address is in no country: {json}"
    );
    assert!(csv.contains("203.0.113.x") && csv.contains("198.51.100.x"));
    assert!(
        !csv.contains("203.0.113.7") && !csv.contains("1.0.0.7") && !csv.contains("ref=cv"),
        "{csv}"
    );

    let (_, stderr, ok) = export(&["visitors", "--store-url=mysql://nope"]);
    assert!(!ok);
    assert!(stderr.contains("cannot read the store"), "{stderr}");
}

/// The binary's `export` reads an embedding app's data folder as it reads
/// its own: the folder a `Whocomes` builder filled (its SQLite file beside
/// its day keys) is exported with `--data-dir` alone.
#[tokio::test(flavor = "multi_thread")]
async fn the_binary_exports_an_embedding_apps_data_folder() {
    use axum::extract::ConnectInfo;
    use axum::http::Request;
    use tower::ServiceExt as _;

    let folder = tempfile::tempdir().expect("a folder");
    let data = folder.path().join("app-data");
    let whocomes = whocomes::Whocomes::builder()
        .data_dir(&data)
        .build()
        .await
        .expect("the app's whocomes builds");
    let app = axum::Router::new()
        .route("/signup", axum::routing::get(|| async { "welcome" }))
        .layer(whocomes.layer());
    let mut request = Request::get("/signup")
        .header("user-agent", BROWSER)
        .header("accept", "text/html")
        .body(axum::body::Body::empty())
        .expect("a request");
    let peer: std::net::SocketAddr = "203.0.113.7:40000".parse().expect("an address");
    request.extensions_mut().insert(ConnectInfo(peer));
    let answer = app.oneshot(request).await.expect("answers");
    assert_eq!(answer.status(), 200);
    // The app's stop writes every hit.
    assert_eq!(whocomes.shutdown().await.written, 1);

    let data = format!("--data-dir={}", data.display());
    let (csv, stderr, ok) = export(&["hours", &data, "--format=csv"]);
    assert!(ok, "{stderr}");
    assert!(csv.contains(",/signup,1,"), "{csv}");
    assert!(stderr.contains("1 row"), "{stderr}");
}
