//! An ordinary page's latency during each attack, beside the same run
//! without it: the real site (release-like `bench` profile) on loopback,
//! one visitor loading `/about` 400 times one after another, measured
//! quiet, then while 200 connections stall half-way through a request line
//! and 20 never send the body they promised, then while 32 clients send
//! wrong admin passwords as fast as they are answered, each from a new
//! network (through a trusted proxy on loopback), then while 3,000
//! connections are opened and held against a cap of 1,024.
//!
//! `cargo bench -p server --bench attacks` prints a table (p50 / p95 / max
//! in ms); docs/BENCHMARKS.md keeps the figures. Bounded: every attack
//! stops by itself when its measurement ends.
#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::Parser as _;
use server::Application;
use server::cli::{Cli, Command};
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;

const LOADS: usize = 400;
const PASSWORD: &str = "a bench passphrase";

struct Site {
    url: String,
    addr: std::net::SocketAddr,
    _data: tempfile::TempDir,
}

async fn start() -> Site {
    let data = tempfile::tempdir().expect("a folder");
    let public = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../public");
    let argv = [
        "whocomes".to_owned(),
        "serve".to_owned(),
        "--addr=127.0.0.1:0".to_owned(),
        format!("--site-root={}", public.display()),
        format!("--data-dir={}", data.path().display()),
        "--key=bench".to_owned(),
        format!("--admin-password={PASSWORD}"),
        "--trusted-proxy=127.0.0.1".to_owned(),
    ];
    let Command::Serve(config) = Cli::try_parse_from(argv).expect("flags").into_command() else {
        panic!("serve")
    };
    let app = Application::build(*config).await.expect("builds");
    let addr = app.local_addr();
    tokio::spawn(app.run_until(std::future::pending()));
    Site {
        url: format!("http://{addr}"),
        addr,
        _data: data,
    }
}

/// `/about` loaded `LOADS` times by one visitor (a browser's agent, behind
/// the trusted proxy, on one kept-alive connection); sorted latencies of
/// the answers served, and how many were not.
async fn visitor(site: &Site, client: &reqwest::Client) -> (Vec<Duration>, usize) {
    let mut latencies = Vec::with_capacity(LOADS);
    let mut refused = 0;
    for n in 0..LOADS {
        let started = Instant::now();
        let answer = client
            .get(format!("{}/about", site.url))
            .header("x-forwarded-for", format!("198.51.100.{}", n % 200))
            .header(
                "user-agent",
                "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            )
            .send()
            .await;
        match answer {
            Ok(answer) if answer.status().is_success() => {
                let _body = answer.bytes().await;
                latencies.push(started.elapsed());
            }
            _ => refused += 1,
        }
    }
    latencies.sort();
    (latencies, refused)
}

fn row(name: &str, (latencies, refused): &(Vec<Duration>, usize), note: &str) {
    let note = if *refused > 0 {
        format!("{note}; {refused} of {LOADS} loads not served")
    } else {
        note.to_owned()
    };
    let at = |q: f64| {
        latencies
            .get(((latencies.len().max(1) as f64 - 1.0) * q) as usize)
            .map_or(f64::NAN, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "| {name} | {:.2} | {:.2} | {:.2} | {note} |",
        at(0.5),
        at(0.95),
        at(1.0)
    );
}

async fn slow_clients(site: &Site) -> Vec<TcpStream> {
    let mut held = Vec::new();
    for n in 0..220 {
        let mut stream = TcpStream::connect(site.addr).await.expect("connects");
        let start: &[u8] = if n < 200 {
            b"GET /abo"
        } else {
            b"POST /admin/api/sign-in HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\npass"
        };
        stream.write_all(start).await.expect("writes");
        held.push(stream);
    }
    held
}

fn sign_in_flood(site: &Site, on: &Arc<AtomicBool>, sent: &Arc<AtomicU64>) {
    for attacker in 0..32u64 {
        let url = format!("{}/admin/api/sign-in", site.url);
        let (on, sent) = (on.clone(), sent.clone());
        tokio::spawn(async move {
            let client = reqwest::Client::new();
            let mut n = 0u64;
            while on.load(Ordering::Relaxed) {
                let network = format!("10.{}.{}.{}", attacker, (n / 250) % 250, n % 250);
                let _answer = client
                    .post(&url)
                    .header("x-forwarded-for", network)
                    .form(&[("password", "a wrong guess")])
                    .send()
                    .await;
                n += 1;
                sent.fetch_add(1, Ordering::Relaxed);
            }
        });
    }
}

async fn connection_flood(site: &Site) -> Vec<TcpStream> {
    let mut held = Vec::new();
    for _ in 0..3_000 {
        if let Ok(stream) = TcpStream::connect(site.addr).await {
            held.push(stream);
        }
    }
    held
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        println!("| while | p50 ms | p95 ms | max ms | |");
        println!("|---|---|---|---|---|");
        let site = start().await;
        let client = reqwest::Client::new();
        visitor(&site, &client).await; // warm up
        row("nothing (quiet)", &visitor(&site, &client).await, "");

        let held = slow_clients(&site).await;
        let during = visitor(&site, &client).await;
        row(
            "220 stalled connections",
            &during,
            "200 half request lines, 20 bodies never sent",
        );
        drop(held);
        row("nothing (quiet, again)", &visitor(&site, &client).await, "");

        let on = Arc::new(AtomicBool::new(true));
        let sent = Arc::new(AtomicU64::new(0));
        sign_in_flood(&site, &on, &sent);
        tokio::time::sleep(Duration::from_millis(500)).await;
        let started = Instant::now();
        let during = visitor(&site, &client).await;
        let rate = sent.load(Ordering::Relaxed) as f64 / (started.elapsed().as_secs_f64() + 0.5);
        on.store(false, Ordering::Relaxed);
        row(
            "sign-in flood",
            &during,
            &format!("32 clients, a new network each try: {rate:.0} wrong passwords/s answered"),
        );
        tokio::time::sleep(Duration::from_secs(1)).await;
        row("nothing (quiet, again)", &visitor(&site, &client).await, "");

        // The visitor's connection is open before the flood; a new one
        // would get the 503 while the cap is full.
        let held = connection_flood(&site).await;
        let during = visitor(&site, &client).await;
        row(
            "3,000 idle connections",
            &during,
            &format!(
                "{} connected; beyond the cap of 1,024 each got a 503",
                held.len()
            ),
        );
        drop(held);
    });
}
