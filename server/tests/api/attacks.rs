//! The site on the open internet, tried as an attacker would: stalled and
//! slow connections, more connections than the cap, a flood of wrong admin
//! passwords from many networks, a copied session cookie after sign-out,
//! strangers reading where the data is, and the proxy set up wrong. Each
//! time ordinary visitors are still served.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::helpers::{TestApp, spawn_app_in, spawn_app_with};

const PASSWORD: &str = "a test passphrase";

/// Whether the server has closed `stream` (EOF or reset), waiting at most `within`.
async fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    let mut buffer = [0u8; 1024];
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut buffer)).await {
            Err(_) => return false,
            Ok(Ok(0) | Err(_)) => return true,
            // A 408 or the like before closing: keep reading to the end.
            Ok(Ok(_)) => {}
        }
    }
}

/// A connection that sends half a request line and stops.
async fn half_a_line(app: &TestApp) -> TcpStream {
    let mut stream = TcpStream::connect(app.addr).await.expect("connects");
    stream.write_all(b"GET /abo").await.expect("writes");
    stream
}

/// A connection that sends a request's headers promising a body, and no body.
async fn a_body_that_never_comes(app: &TestApp) -> TcpStream {
    let mut stream = TcpStream::connect(app.addr).await.expect("connects");
    let head = format!(
        "POST /admin/api/sign-in HTTP/1.1\r\nHost: {}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\npass",
        app.addr
    );
    stream.write_all(head.as_bytes()).await.expect("writes");
    stream
}

/// Ordinary visitors' page loads while something else goes on: each must
/// be served; returns their latencies.
async fn visitors_meanwhile(app: &TestApp, loads: usize) -> Vec<Duration> {
    let mut latencies = Vec::with_capacity(loads);
    for _ in 0..loads {
        let started = Instant::now();
        let answer = app.get("/about").await;
        assert_eq!(
            answer.status(),
            StatusCode::OK,
            "an ordinary visitor is served"
        );
        latencies.push(started.elapsed());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    latencies
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stalled_connections_are_closed_and_visitors_are_served_meanwhile() {
    let app = spawn_app_with(&["--header-timeout=2", "--request-timeout=3"]).await;
    let mut stalled = Vec::new();
    for _ in 0..200 {
        stalled.push(half_a_line(&app).await);
    }
    for _ in 0..20 {
        stalled.push(a_body_that_never_comes(&app).await);
    }
    let latencies = visitors_meanwhile(&app, 20).await;
    eprintln!(
        "stalled: 220 open; /about slowest of 20 loads meanwhile: {:?}",
        latencies.iter().max()
    );
    for (index, stream) in stalled.iter_mut().enumerate() {
        assert!(
            closed_within(stream, Duration::from_secs(8)).await,
            "stalled connection {index} is closed"
        );
    }
    assert_eq!(app.get("/about").await.status(), StatusCode::OK);
}

/// With the defaults, a stalled connection is closed within 30 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn by_default_a_stalled_connection_is_closed_within_30_seconds() {
    let app = spawn_app_with(&[]).await;
    let started = Instant::now();
    let mut line = half_a_line(&app).await;
    let mut body = a_body_that_never_comes(&app).await;
    assert!(closed_within(&mut line, Duration::from_secs(31)).await);
    assert!(closed_within(&mut body, Duration::from_secs(31)).await);
    assert!(started.elapsed() < Duration::from_secs(31));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_cap_a_new_connection_gets_a_quick_503_and_is_counted() {
    let app = spawn_app_with(&["--max-connections=5", "--header-timeout=30"]).await;
    let mut held = Vec::new();
    for _ in 0..5 {
        held.push(TcpStream::connect(app.addr).await.expect("connects"));
    }
    // The server has taken them all (the cap counts accepted connections).
    tokio::time::sleep(Duration::from_millis(200)).await;
    let mut extra = TcpStream::connect(app.addr).await.expect("connects");
    extra
        .write_all(b"GET /about HTTP/1.1\r\nHost: x\r\n\r\n")
        .await
        .expect("writes");
    let mut answer = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(2), extra.read_to_end(&mut answer)).await;
    assert!(read.is_ok(), "answered at once");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("Retry-After: 1"), "{answer}");
    drop(held);
    // Room again: served as ever, and the refusal is on the tab.
    // (The server frees a slot when it sees the close: waited for, up to a minute.)
    let mut served = false;
    for _ in 0..1_200 {
        if let Ok(answer) = app.client.get(app.url("/about")).send().await
            && answer.status() == StatusCode::OK
        {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(served, "served once connections are free");
    let overview: serde_json::Value = app
        .client
        .post(app.url("/admin/api/overview"))
        .form(&[("days", "7")])
        .send()
        .await
        .expect("answers")
        .json()
        .await
        .expect("JSON");
    assert!(
        overview["writer"]["connections_refused"].as_u64() >= Some(1),
        "{overview}"
    );
}

/// Signs in from `network` (through the trusted proxy on loopback); the
/// answer's status, `Retry-After` and `Set-Cookie`.
async fn sign_in_from(
    app: &TestApp,
    network: &str,
    password: &str,
) -> (StatusCode, Option<u64>, Option<String>) {
    let answer = app
        .client
        .post(app.url("/admin/api/sign-in"))
        .header("x-forwarded-for", network)
        .form(&[("password", password)])
        .send()
        .await
        .expect("answers");
    let header = |name: &str| {
        answer
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let retry = header("retry-after").and_then(|v| v.parse().ok());
    let cookie = header("set-cookie");
    (answer.status(), retry, cookie)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sign_in_flood_from_many_networks_leaves_pages_and_the_admin_alone() {
    let app = std::sync::Arc::new(
        spawn_app_with(&[
            &format!("--admin-password={PASSWORD}"),
            "--trusted-proxy=127.0.0.1",
        ])
        .await,
    );
    let flooding = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let mut attackers = Vec::new();
    for attacker in 0..32u32 {
        let app = app.clone();
        let flooding = flooding.clone();
        attackers.push(tokio::spawn(async move {
            let mut sent = 0u32;
            let mut refused = 0u32;
            while flooding.load(std::sync::atomic::Ordering::Relaxed) {
                // A new network every time: the per-network limit never bites.
                let network = format!("10.{}.{}.7", attacker, sent % 250);
                let (status, retry, _) = sign_in_from(&app, &network, "a wrong guess").await;
                if status == StatusCode::TOO_MANY_REQUESTS {
                    assert!(retry.is_some(), "a 429 says when to come back");
                    refused += 1;
                } else {
                    assert_eq!(status, StatusCode::UNAUTHORIZED);
                }
                sent += 1;
            }
            (sent, refused)
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let latencies = visitors_meanwhile(&app, 30).await;
    // The right password from a network that did not attack signs in,
    // waiting as a 429 asks if it gets one.
    let mut signed_in = None;
    for _ in 0..10 {
        let (status, retry, cookie) = sign_in_from(&app, "192.0.2.50", PASSWORD).await;
        if status == StatusCode::OK {
            signed_in = cookie;
            break;
        }
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        tokio::time::sleep(Duration::from_secs(retry.unwrap_or(1))).await;
    }
    flooding.store(false, std::sync::atomic::Ordering::Relaxed);
    let mut sent = 0;
    for attacker in attackers {
        sent += attacker.await.expect("an attacker ends").0;
    }
    let mut sorted = latencies.clone();
    sorted.sort();
    eprintln!(
        "sign-in flood: {sent} wrong passwords from 32 clients; /about p50 {:?}, slowest {:?}",
        sorted[sorted.len() / 2],
        sorted.last()
    );
    assert!(signed_in.is_some(), "the admin signed in during the flood");
    assert!(sent > 32, "the flood was on");
}

/// The `name=value` of a session, signing in from loopback.
async fn session(app: &TestApp) -> String {
    let answer = app
        .client
        .post(app.url("/admin/api/sign-in"))
        .form(&[("password", PASSWORD)])
        .send()
        .await
        .expect("answers");
    assert_eq!(answer.status(), StatusCode::OK);
    answer
        .headers()
        .get("set-cookie")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("a session cookie")
        .to_owned()
}

async fn visitors_status(app: &TestApp, cookie: &str) -> StatusCode {
    app.client
        .post(app.url("/admin/api/visitors"))
        .header("cookie", cookie)
        .form(&[("days", "7")])
        .send()
        .await
        .expect("answers")
        .status()
}

#[tokio::test]
async fn a_copied_session_cookie_is_dead_after_sign_out() {
    let app = spawn_app_with(&[&format!("--admin-password={PASSWORD}")]).await;
    let cookie = session(&app).await;
    let copy = cookie.clone();
    let other = session(&app).await;
    assert_eq!(visitors_status(&app, &copy).await, StatusCode::OK);
    let out = app
        .client
        .post(app.url("/admin/api/sign-out"))
        .header("cookie", &cookie)
        .send()
        .await
        .expect("answers");
    assert_eq!(out.status(), StatusCode::OK);
    assert_eq!(
        visitors_status(&app, &copy).await,
        StatusCode::UNAUTHORIZED,
        "the copied cookie is dead"
    );
    assert_eq!(
        visitors_status(&app, &other).await,
        StatusCode::OK,
        "another session lives"
    );
}

#[tokio::test]
async fn a_new_password_after_a_restart_ends_every_session() {
    let mut app = spawn_app_with(&[&format!("--admin-password={PASSWORD}")]).await;
    let cookie = session(&app).await;
    app.stop().await.expect("stops");
    let data = std::mem::replace(&mut app.data, tempfile::tempdir().expect("a folder"));
    let again = spawn_app_in(data, &["--admin-password=another passphrase"]).await;
    assert_eq!(
        visitors_status(&again, &cookie).await,
        StatusCode::UNAUTHORIZED
    );
}

#[tokio::test]
async fn strangers_never_see_where_the_data_is() {
    let unreachable = "postgres://whocomes:secret@127.0.0.1:9/hiddendb";
    let app = spawn_app_with(&[
        &format!("--admin-password={PASSWORD}"),
        &format!("--read-store=faraway={unreachable}"),
    ])
    .await;
    let data_dir = app.data.path().display().to_string();
    let secrets = [
        data_dir.as_str(),
        "127.0.0.1:9",
        "hiddendb",
        "activity.db",
        "whocomes:secret",
        "onnection refused",
    ];
    let overview = |cookie: Option<String>| {
        let app = &app;
        async move {
            let mut request = app
                .client
                .post(app.url("/admin/api/overview"))
                .form(&[("days", "7")]);
            if let Some(cookie) = cookie {
                request = request.header("cookie", cookie);
            }
            request
                .send()
                .await
                .expect("answers")
                .text()
                .await
                .expect("text")
        }
    };
    let public = overview(None).await;
    let page = app.get("/admin").await.text().await.expect("a page");
    let export = app
        .get("/admin/api/export/hours.csv")
        .await
        .text()
        .await
        .expect("text");
    for text in [&public, &page, &export] {
        for secret in secrets {
            assert!(
                !text.contains(secret),
                "a stranger read {secret:?} in:\n{text}"
            );
        }
    }
    assert!(public.contains("Not keeping activity"), "{public}");
    // A signed-in admin reads the details.
    let cookie = session(&app).await;
    let signed_in = overview(Some(cookie)).await;
    assert!(signed_in.contains("activity.db"), "{signed_in}");
}

#[tokio::test]
async fn every_answer_carries_the_security_headers() {
    let app = spawn_app_with(&[
        &format!("--admin-password={PASSWORD}"),
        "--trusted-proxy=127.0.0.1",
    ])
    .await;
    for path in [
        "/",
        "/about",
        "/api/inventory",
        "/no-such-page",
        "/favicon.ico",
        "/admin",
    ] {
        let answer = app.get(path).await;
        let headers = answer.headers();
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert_eq!(
            headers["referrer-policy"], "strict-origin-when-cross-origin",
            "{path}"
        );
        assert!(
            headers.get("strict-transport-security").is_none(),
            "{path}: plain HTTP, no HSTS"
        );
    }
    let admin = app.get("/admin").await;
    assert_eq!(admin.headers()["cache-control"], "no-store");
    let csp = admin.headers()["content-security-policy"]
        .to_str()
        .expect("text");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    // Over HTTPS as the trusted proxy says: HSTS. A client's own claim: none.
    let proxied = app
        .client
        .get(app.url("/about"))
        .header("x-forwarded-proto", "https")
        .header("x-forwarded-for", "198.51.100.9")
        .send()
        .await
        .expect("answers");
    assert!(
        proxied.headers()["strict-transport-security"]
            .to_str()
            .expect("text")
            .starts_with("max-age=")
    );
    // Anything a signed-in admin reads is not cached.
    let cookie = session(&app).await;
    let about = app
        .client
        .get(app.url("/about"))
        .header("cookie", cookie)
        .send()
        .await
        .expect("answers");
    assert_eq!(about.headers()["cache-control"], "no-store");
}

#[tokio::test]
async fn a_proxy_not_named_as_trusted_is_said_on_the_tab() {
    let app = spawn_app_with(&[]).await;
    let quiet = app.get("/admin").await.text().await.expect("a page");
    assert!(
        !quiet.contains("data-proxy-trap"),
        "no warning without cause"
    );
    // nginx on this machine, without --trusted-proxy.
    for _ in 0..3 {
        let answer = app
            .client
            .get(app.url("/about"))
            .header("x-forwarded-for", "198.51.100.23")
            .send()
            .await
            .expect("answers");
        assert_eq!(answer.status(), StatusCode::OK);
    }
    assert_eq!(app.recorder_stats().untrusted_forwarding, 3);
    let page = app.get("/admin").await.text().await.expect("a page");
    assert!(page.contains("data-proxy-trap=\"3\""), "the tab warns");
    assert!(page.contains("--trusted-proxy"), "and names the flag");
}

/// The same attacks on the real binary, set up by environment variables:
/// stalled connections beyond a small cap are refused or closed, the site
/// serves on, an untrusted proxy is warned of once in the log, and SIGTERM
/// stops it cleanly with stalled connections still open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_binary_closes_stalled_connections_and_warns_of_the_proxy_once() {
    let data = tempfile::tempdir().expect("a folder");
    let (mut child, url, log) = crate::signals::start_binary_logged(
        data.path(),
        &[
            ("WHOCOMES_MAX_CONNECTIONS", "40"),
            ("WHOCOMES_HEADER_TIMEOUT", "2"),
            ("WHOCOMES_REQUEST_TIMEOUT", "3"),
        ],
    );
    let addr: std::net::SocketAddr = url
        .trim_start_matches("http://")
        .parse()
        .expect("an address");
    let mut stalled = Vec::new();
    for _ in 0..50 {
        let mut stream = TcpStream::connect(addr).await.expect("connects");
        stream.write_all(b"GET /abo").await.expect("writes");
        stalled.push(stream);
    }
    for (index, stream) in stalled.iter_mut().enumerate() {
        assert!(
            closed_within(stream, Duration::from_secs(8)).await,
            "stalled connection {index} is closed or refused"
        );
    }
    let client = reqwest::Client::new();
    for _ in 0..3 {
        let answer = client
            .get(format!("{url}/about"))
            .header("x-forwarded-for", "198.51.100.23")
            .send()
            .await
            .expect("answers");
        assert_eq!(answer.status(), StatusCode::OK);
    }
    let mut held = TcpStream::connect(addr).await.expect("connects");
    held.write_all(b"GET /abo").await.expect("writes");
    crate::signals::sigterm_and_wait(&mut child);
    let log = log.lock().expect("the log").clone();
    assert_eq!(
        log.matches("no proxy is trusted").count(),
        1,
        "warned once:\n{log}"
    );
    assert!(log.contains("--trusted-proxy 127.0.0.1"), "with the flag");
    assert!(!log.contains("198.51.100.23"), "no address in the log");
}
