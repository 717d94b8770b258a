//! `spawn_app()`: the real router on a free loopback port, stopped when the
//! returned value is dropped.

use std::net::SocketAddr;
use std::path::PathBuf;

use server::Application;
use server::cli::ServeArgs;
use tokio::sync::oneshot;

/// A running site and an HTTP client for it.
pub struct TestApp {
    pub addr: SocketAddr,
    pub client: reqwest::Client,
    stop: Option<oneshot::Sender<()>>,
    served: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl TestApp {
    /// `http://127.0.0.1:PORT{path}`
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("the server answers")
    }

    /// Stops the server and waits until it has finished serving.
    pub async fn stop(mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.served.take() {
            Some(served) => served.await.expect("the server task does not panic"),
            None => Ok(()),
        }
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// The workspace's `public/` folder: it holds the files the built site
/// serves as-is, so the tests need no build of the wasm bundle.
fn public_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("public")
}

/// Starts the site on 127.0.0.1 with a port the OS picks.
pub async fn spawn_app() -> TestApp {
    let config = ServeArgs {
        addr: "127.0.0.1:0".parse().expect("literal address"),
        site_root: public_dir(),
    };
    let app = Application::build(config).await.expect("the app builds");
    let addr = app.local_addr();
    let (stop, stopped) = oneshot::channel::<()>();
    let served = tokio::spawn(app.run_until(async {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("a plain HTTP client");
    TestApp {
        addr,
        client,
        stop: Some(stop),
        served: Some(served),
    }
}
