//! Every route of the demo site: status, content type, and the content that
//! proves the right thing was served.

use reqwest::StatusCode;
use reqwest::header::CONTENT_TYPE;

use crate::helpers::spawn_app;

/// A header of the answer, as text.
fn header(response: &reqwest::Response, name: &str) -> Option<String> {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
}

fn content_type(response: &reqwest::Response) -> String {
    response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

/// (path, status, content type prefix, text the body must contain)
const PAGES: &[(&str, u16, &str, &str)] = &[
    ("/", 200, "text/html", "I build small, sturdy tools"),
    ("/inventory", 200, "text/html", "Tidewater"),
    ("/about", 200, "text/html", "I am Mara Lindqvist"),
    ("/resume", 200, "text/html", "href=\"/resume.pdf\""),
    ("/admin", 200, "text/html", "data-interactive=\"false\""),
    ("/no/such/page", 404, "text/html", "Nothing here"),
    ("/wp-login.php", 404, "text/html", "Nothing here"),
    ("/robots.txt", 200, "text/plain", "User-agent"),
];

#[tokio::test]
async fn each_page_has_its_status_type_and_content() {
    let mut app = spawn_app().await;
    for &(path, status, kind, needle) in PAGES {
        let response = app.get(path).await;
        assert_eq!(response.status().as_u16(), status, "status of {path}");
        let got = content_type(&response);
        assert!(
            got.starts_with(kind),
            "{path}: content type {got:?}, want {kind}"
        );
        let body = response.text().await.expect("a text body");
        assert!(body.contains(needle), "{path}: body lacks {needle:?}");
    }
    app.stop().await.expect("stops cleanly");
}

#[tokio::test]
async fn pages_load_the_wasm_bundle_and_the_stylesheet() {
    let app = spawn_app().await;
    let body = app.get("/").await.text().await.expect("a text body");
    assert!(
        body.contains("/pkg/whocomes.js"),
        "hydration script missing"
    );
    assert!(body.contains("/pkg/whocomes.wasm"), "wasm bundle missing");
    assert!(body.contains("/pkg/whocomes.css"), "stylesheet missing");
    assert!(
        body.contains("<title>Home · Mara Lindqvist</title>"),
        "page title"
    );
}

#[tokio::test]
async fn inventory_api_is_json_and_matches_the_page() {
    let app = spawn_app().await;
    let response = app.get("/api/inventory").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(content_type(&response).starts_with("application/json"));
    let items: Vec<serde_json::Value> = response.json().await.expect("a JSON array");
    assert!(
        items.len() >= 3,
        "a real inventory, got {} items",
        items.len()
    );

    let page = app
        .get("/inventory")
        .await
        .text()
        .await
        .expect("a text body");
    for item in &items {
        let name = item["name"].as_str().expect("every item has a name");
        assert!(page.contains(name), "the page lists {name}");
        assert!(item["year"].as_u64().is_some(), "{name} has a year");
    }
}

#[tokio::test]
async fn inventory_server_function_answers_on_its_stable_endpoint() {
    let app = spawn_app().await;
    let response = app
        .client
        .post(app.url("/api/site/inventory"))
        .header(CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body("")
        .send()
        .await
        .expect("the server answers");
    assert_eq!(response.status(), StatusCode::OK);
    let items: Vec<serde_json::Value> = response.json().await.expect("a JSON array");
    let from_api: Vec<serde_json::Value> = app
        .get("/api/inventory")
        .await
        .json()
        .await
        .expect("a JSON array");
    assert_eq!(items, from_api, "one inventory, two doors");
}

#[tokio::test]
async fn resume_pdf_is_a_real_pdf() {
    let app = spawn_app().await;
    let response = app.get("/resume.pdf").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(content_type(&response), "application/pdf");
    let bytes = response.bytes().await.expect("a body");
    assert!(bytes.starts_with(b"%PDF-1."), "PDF header");
    let tail = &bytes[bytes.len().saturating_sub(32)..];
    assert!(
        tail.windows(5).any(|window| window == b"%%EOF"),
        "PDF trailer"
    );
}

#[tokio::test]
async fn favicon_is_served() {
    let app = spawn_app().await;
    let response = app.get("/favicon.ico").await;
    assert_eq!(response.status(), StatusCode::OK);
    assert!(content_type(&response).starts_with("image/"));
    let bytes = response.bytes().await.expect("a body");
    assert_eq!(&bytes[..4], &[0, 0, 1, 0], "ICO header");
}

/// The page's files are revalidated on every visit (`no-cache`) and a
/// browser's conditional request gets `304`: a warm cache still reaches the
/// server (a browser's evidence, SPEC §3) without the file again.
#[tokio::test]
async fn the_pages_files_are_revalidated_with_a_304() {
    let app = spawn_app().await;
    let first = app.get("/favicon.ico").await;
    assert_eq!(first.status(), StatusCode::OK);
    assert_eq!(header(&first, "cache-control").as_deref(), Some("no-cache"));
    let modified = header(&first, "last-modified").expect("a Last-Modified");
    let again = app
        .client
        .get(app.url("/favicon.ico"))
        .header("if-modified-since", modified)
        .send()
        .await
        .expect("answers");
    assert_eq!(again.status(), StatusCode::NOT_MODIFIED);
    // A page is not the page's file: no such header on it.
    assert_eq!(header(&app.get("/about").await, "cache-control"), None);
}

/// A site root with a built bundle's files: the stylesheet, a script, and
/// the favicon, as `cargo leptos build` leaves them.
fn built_site() -> (tempfile::TempDir, String) {
    let root = tempfile::tempdir().expect("a folder");
    let pkg = root.path().join("pkg");
    std::fs::create_dir(&pkg).expect("pkg/");
    let css = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../style/main.css"))
        .expect("the stylesheet");
    std::fs::write(pkg.join("whocomes.css"), &css).expect("written");
    std::fs::write(
        pkg.join("whocomes.js"),
        "export default function() {}\n".repeat(50),
    )
    .expect("written");
    (root, css)
}

fn decode_brotli(bytes: &[u8]) -> String {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut brotli::Decompressor::new(bytes, 4096), &mut text)
        .expect("brotli");
    text
}

fn decode_gzip(bytes: &[u8]) -> String {
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::GzDecoder::new(bytes), &mut text)
        .expect("gzip");
    text
}

/// The page's files go out as the brotli or gzip copy made once at start,
/// whichever the browser takes, with one Last-Modified for every variant (a
/// warm cache's 304 still works); pages are compressed as they are sent; a
/// client that takes neither gets the bytes as they are.
#[tokio::test]
async fn files_and_pages_are_sent_compressed_to_browsers_that_take_it() {
    let (root, css) = built_site();
    let flag = format!("--site-root={}", root.path().display());
    let app = crate::helpers::spawn_app_with(&[&flag]).await;
    let copy = root.path().join("pkg/whocomes.css.br");
    for _ in 0..200 {
        if copy.exists() && root.path().join("pkg/whocomes.js.gz").exists() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(copy.exists(), "the copies are made at start");

    let fetch = |path: &'static str, accept: Option<&'static str>| {
        let mut request = app.client.get(app.url(path));
        if let Some(accept) = accept {
            request = request.header("accept-encoding", accept);
        }
        async move { request.send().await.expect("answers") }
    };
    let encoding = |response: &reqwest::Response| header(response, "content-encoding");

    let br = fetch("/pkg/whocomes.css", Some("gzip, deflate, br")).await;
    assert_eq!(encoding(&br).as_deref(), Some("br"));
    let modified = br.headers().get("last-modified").cloned();
    let bytes = br.bytes().await.expect("a body");
    assert!(
        bytes.len() * 3 < css.len(),
        "{} of {} bytes",
        bytes.len(),
        css.len()
    );
    assert_eq!(decode_brotli(&bytes), css);

    let gz = fetch("/pkg/whocomes.css", Some("gzip")).await;
    assert_eq!(encoding(&gz).as_deref(), Some("gzip"));
    assert_eq!(gz.headers().get("last-modified").cloned(), modified);
    assert_eq!(decode_gzip(&gz.bytes().await.expect("a body")), css);

    let plain = fetch("/pkg/whocomes.css", None).await;
    assert_eq!(encoding(&plain), None);
    assert_eq!(plain.headers().get("last-modified").cloned(), modified);
    assert_eq!(plain.text().await.expect("a body"), css);

    let page = fetch("/about", Some("gzip")).await;
    assert_eq!(page.status(), StatusCode::OK);
    assert_eq!(encoding(&page).as_deref(), Some("gzip"));
    assert!(decode_gzip(&page.bytes().await.expect("a body")).contains("I am Mara Lindqvist"));
    let page = fetch("/about", Some("br")).await;
    assert_eq!(encoding(&page).as_deref(), Some("br"));
    assert!(decode_brotli(&page.bytes().await.expect("a body")).contains("I am Mara Lindqvist"));
    let api = fetch("/api/inventory", Some("br")).await;
    assert_eq!(encoding(&api).as_deref(), Some("br"));
}

/// A client that sends a hostile or nonsense Accept-Encoding gets the page,
/// readable, and the site keeps serving.
#[tokio::test]
async fn a_malformed_accept_encoding_gets_a_readable_page() {
    let app = spawn_app().await;
    for accept in [
        "",
        "br;q=nonsense",
        "identity;q=0, *;q=0",
        &"x,".repeat(2000),
        "gzip;q=0.5, br;q=1.0e9",
    ] {
        let response = app
            .client
            .get(app.url("/about"))
            .header("accept-encoding", accept)
            .send()
            .await
            .expect("answers");
        assert!(
            response.status().is_success() || response.status().as_u16() == 406,
            "{accept:?}: {}",
            response.status()
        );
        let encoding = header(&response, "content-encoding");
        let bytes = response.bytes().await.expect("a body");
        let text = match encoding.as_deref() {
            None => String::from_utf8(bytes.to_vec()).expect("UTF-8"),
            Some("gzip") => decode_gzip(&bytes),
            Some("br") => decode_brotli(&bytes),
            Some(other) => panic!("{accept:?}: an encoding nobody asked for: {other}"),
        };
        if !text.is_empty() {
            assert!(text.contains("Mara Lindqvist"), "{accept:?}");
        }
    }
    assert_eq!(app.get("/about").await.status(), StatusCode::OK);
}
