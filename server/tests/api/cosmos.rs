//! Serving with an Azure Cosmos DB store (the SDK's in-memory emulator, in
//! this process): the same requests sent to a site on SQLite and to one on
//! Cosmos DB leave the same hours, visitor-days and kinds; and a site
//! reading both draws them as two lines.

use std::collections::BTreeMap;

use activity::rows::{HourRow, VisitorDay};
use activity::store::{ActivityStore, Retention};
use chrono::{DateTime, NaiveDate, Utc};
use reqwest::Method;

use crate::helpers::{TestApp, spawn_app_with};

const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
const SAFARI: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
const GPTBOT: &str = "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)";
const CURL: &str = "curl/8.11.0";

/// One request of the traffic: method, path, client, agent, referrer, page load.
type Request = (
    Method,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
    bool,
);

/// Readers of several kinds, page loads and API calls, a crawler, an AI
/// crawler, a scanner's probes and a script.
fn traffic() -> Vec<Request> {
    let mut requests = Vec::new();
    for (client, agent, referrer) in [
        (
            "203.0.113.7",
            FIREFOX,
            Some("https://www.linkedin.com/in/someone?trk=x"),
        ),
        (
            "203.0.113.8",
            SAFARI,
            Some("https://news.ycombinator.com/item?id=1"),
        ),
        ("198.51.100.20", FIREFOX, None),
    ] {
        requests.push((Method::GET, "/", client, agent, referrer, true));
        requests.push((Method::GET, "/api/inventory", client, agent, None, false));
        requests.push((
            Method::GET,
            "/about?utm_source=newsletter",
            client,
            agent,
            None,
            true,
        ));
    }
    for path in ["/", "/about", "/resume"] {
        requests.push((Method::GET, path, "66.249.66.1", GOOGLEBOT, None, true));
        requests.push((Method::GET, path, "192.0.2.50", GPTBOT, None, true));
    }
    for path in ["/wp-login.php", "/.env", "/xmlrpc.php", "/admin/config.php"] {
        requests.push((Method::GET, path, "198.51.100.66", FIREFOX, None, true));
    }
    requests.push((
        Method::GET,
        "/api/inventory",
        "192.0.2.99",
        CURL,
        None,
        false,
    ));
    requests.push((
        Method::POST,
        "/api/inventory",
        "192.0.2.99",
        CURL,
        None,
        false,
    ));
    requests
}

async fn send(app: &TestApp, requests: &[Request]) {
    for (method, path, client, agent, referrer, page) in requests {
        let mut request = app
            .client
            .request(method.clone(), app.url(path))
            .header("x-forwarded-for", *client)
            .header("user-agent", *agent)
            .header("sec-fetch-dest", if *page { "document" } else { "empty" });
        if let Some(referrer) = referrer {
            request = request.header("referer", *referrer);
        }
        request.send().await.expect("the server answers");
    }
}

fn cosmos_url(emulator: &str) -> String {
    format!("--store-url=cosmos+emulator://{emulator}/?database=whocomes&container=activity")
}

/// A visitor-day without its token (the two sites' keys differ).
fn without_token(row: &VisitorDay) -> String {
    format!(
        "{} {} {}/{}/{} {:?} {:?} {:?} {:?}",
        row.day,
        row.network.as_str(),
        row.requests,
        row.bots,
        row.self_reads,
        row.evidence,
        row.bot_classes,
        row.top_paths,
        row.sources
    )
}

fn hours_of(rows: Vec<HourRow>) -> BTreeMap<(DateTime<Utc>, String), (u64, u64, u64)> {
    rows.into_iter()
        .map(|row| {
            (
                (row.hour, row.path),
                (row.requests, row.bots, row.self_reads),
            )
        })
        .collect()
}

async fn kept(
    store: &dyn ActivityStore,
) -> (
    BTreeMap<(DateTime<Utc>, String), (u64, u64, u64)>,
    Vec<String>,
    String,
) {
    let hours = store
        .hours_since(DateTime::UNIX_EPOCH)
        .await
        .expect("reads hours");
    let mut visitors: Vec<String> = store
        .visitors_since(NaiveDate::MIN)
        .await
        .expect("reads visitor-days")
        .iter()
        .map(without_token)
        .collect();
    visitors.sort();
    let today = Utc::now().date_naive();
    let summaries = store
        .day_summaries(
            today - chrono::Days::new(1),
            today,
            &activity::sample::funnel(),
            &activity::filter::Filter::none(),
        )
        .await
        .expect("sums the days");
    let kinds: Vec<String> = summaries.iter().map(|day| format!("{day:?}")).collect();
    (hours_of(hours), visitors, kinds.join("; "))
}

#[tokio::test]
async fn cosmos_counts_what_sqlite_counts_and_both_are_drawn() {
    let flags = ["--own-address=none", "--trusted-proxy=127.0.0.1"];
    let requests = traffic();

    let mut lite = spawn_app_with(&[flags[0], flags[1], "--store-name=lite"]).await;
    send(&lite, &requests).await;
    lite.stop().await.expect("stops");
    let lite_store = activity_sqlite::SqliteStore::open(
        lite.data
            .path()
            .join("activity.db")
            .to_str()
            .expect("UTF-8"),
        activity::StoreName::parse("lite").expect("a name"),
        Retention::default(),
    )
    .await
    .expect("opens the SQLite file");

    let cosmos_flag = cosmos_url("same-traffic");
    let mut cosmos = spawn_app_with(&[flags[0], flags[1], "--store-name=site", &cosmos_flag]).await;
    send(&cosmos, &requests).await;
    cosmos.stop().await.expect("stops");
    // Opened again on the same (in-process) account: what the site wrote.
    let cosmos_store = activity_cosmos::CosmosStore::open(
        cosmos_flag.trim_start_matches("--store-url="),
        activity::StoreName::parse("site").expect("a name"),
        Retention::default(),
    )
    .await
    .expect("opens the container");

    let (lite_hours, lite_visitors, lite_kinds) = kept(&lite_store).await;
    let (cosmos_hours, cosmos_visitors, cosmos_kinds) = kept(&cosmos_store).await;
    assert!(
        lite_hours.values().map(|c| c.0).sum::<u64>() >= 20,
        "the traffic was counted: {lite_hours:?}"
    );
    assert_eq!(cosmos_hours, lite_hours, "the same hours");
    assert_eq!(cosmos_visitors, lite_visitors, "the same visitor-days");
    assert_eq!(
        cosmos_kinds, lite_kinds,
        "the same day summaries (kinds, paths, sources, funnel)"
    );

    // A site on Cosmos DB that also reads the SQLite one draws two lines.
    let other = format!(
        "--read-store=lite=sqlite://{}",
        lite.data.path().join("activity.db").display()
    );
    let reader = spawn_app_with(&["--store-name=site", &cosmos_flag, &other]).await;
    let page = reader
        .get("/admin?range=7&chart=stores&table=on")
        .await
        .text()
        .await
        .expect("a page");
    let table = page
        .split("<table class=\"stores-table\">")
        .nth(1)
        .and_then(|rest| rest.split("</table>").next())
        .expect("the stores' lines as a table");
    assert!(
        table.contains(">site<") && table.contains(">lite<"),
        "{table}"
    );
    let today = Utc::now().date_naive().to_string();
    let total = lite_hours.values().map(|c| c.0).sum::<u64>().to_string();
    let row = table
        .split("<tr>")
        .find(|row| row.contains(&today))
        .expect("today's row");
    assert_eq!(
        row.replace("<!>", "")
            .matches(&format!("<td>{total}</td>"))
            .count(),
        2,
        "both lines have today's {total} requests: {row}"
    );
}
