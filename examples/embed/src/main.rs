use axum::{Extension, Router, response::Html, routing::get};
use whocomes::{Goal, Whocomes};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    tracing_subscriber::fmt::init(); // whocomes' warnings and stop summary come through tracing
    let data = std::env::var("DATA_DIR").unwrap_or_else(|_| "/var/lib/my-site/whocomes".into());
    let mut setup = Whocomes::builder()
        .data_dir(data) // absolute: the same folder whichever directory the app starts in
        .trusted_proxies(["127.0.0.1/32".parse()?]) // nginx in front, on this machine
        .tab_path("/stats")
        .write_every(std::time::Duration::from_secs(10)); // the default; the tab says what waits
    if let Ok(seed) = std::env::var("SITE_KEY") {
        setup = setup.key(seed); // sites sharing a seed agree on each day's tokens
    }
    if let Ok(folder) = std::env::var("TAB_BUNDLE") {
        setup = setup.tab_bundle(folder, "tab"); // wasm-bindgen's output: the tab hydrates
    }
    let whocomes = setup.build().await?;
    let goal = Goal::new("signup")?; // a label: no @, no long numbers
    let app = Router::new()
        .route("/", get(|| async { Html("<h1>My site</h1>") }))
        .route("/join", get(move || async move { (Extension(goal), "Hi") }))
        .route("/favicon.ico", get(|| async { "" }));
    let address = std::env::var("ADDRESS").unwrap_or_else(|_| "127.0.0.1:3000".into());
    let listener = tokio::net::TcpListener::bind(address).await?;
    whocomes.serve(listener, app).await?; // until SIGTERM or Ctrl-C; writes every hit first
    Ok(())
}
