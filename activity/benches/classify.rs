//! What counting costs on the request path: the bot check alone, and the
//! whole decision (path, address, classification, token, source).
//!
//! `cargo bench -p activity --bench classify` (results in docs/BENCHMARKS.md).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use whocomes_activity::address::TrustedProxies;
use whocomes_activity::bots::BotPatterns;
use whocomes_activity::classify::kind_of;
use whocomes_activity::{Counter, RequestView, Rules, StoreName, VisitorKey};

const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

fn bots(c: &mut Criterion) {
    let patterns = BotPatterns::new(BotPatterns::default_words()).expect("compiles");
    let mut group = c.benchmark_group("bot check");
    for (name, agent) in [
        ("chrome desktop", CHROME),
        ("safari iphone", IPHONE),
        ("googlebot", GOOGLEBOT),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| patterns.find(black_box(agent)).is_some())
        });
    }
    group.finish();
}

fn decision(c: &mut Criterion) {
    let counter = Counter::new(
        Rules::default(),
        VisitorKey::from_bytes(vec![7; 32]).expect("a key"),
        TrustedProxies::default(),
        StoreName::parse("sqlite").expect("a name"),
    );
    let page = RequestView {
        method: "GET",
        target: b"/resume?ref=linkedin",
        user_agent: Some(CHROME),
        referer: Some("https://www.linkedin.com/feed/"),
        accept: Some("text/html,application/xhtml+xml"),
        sec_fetch_dest: Some("document"),
        sec_fetch_mode: Some("navigate"),
        sec_fetch_site: Some("cross-site"),
        // Chrome's own hints, which the consistency rule reads.
        sec_ch_ua: Some(r#""Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24""#),
        sec_ch_ua_mobile: Some("?0"),
        sec_ch_ua_platform: Some("\"Windows\""),
        host: Some("example.com"),
        protocol: Some("HTTP/1.1"),
        ..RequestView::default()
    };
    let asset = RequestView {
        target: b"/pkg/whocomes.wasm",
        ..page.clone()
    };
    let peer = "203.0.113.7".parse().ok();
    let at = chrono::DateTime::from_timestamp(1_795_000_000, 0).expect("a time");
    let mut group = c.benchmark_group("whole decision");
    group.bench_function("page load from a browser", |b| {
        b.iter(|| counter.count(black_box(&page), peer, at))
    });
    group.bench_function("asset (not counted)", |b| {
        b.iter(|| counter.count(black_box(&asset), peer, at))
    });
    group.finish();
    // The consistency rule's parts, on the same page load.
    let mut group = c.benchmark_group("consistency");
    group.bench_function("what the agent claims", |b| {
        b.iter(|| whocomes_activity::agent::claim(black_box(CHROME)))
    });
    group.bench_function("the whole rule, read afresh", |b| {
        b.iter(|| whocomes_activity::consistency::contradiction(black_box(&page), true, true))
    });
    let rules = Rules::default();
    group.bench_function("the whole rule, the agent's reading kept", |b| {
        b.iter(|| {
            let reading = rules.consistency().reading(black_box(&page));
            whocomes_activity::consistency::contradiction_with(reading, &page, true, true)
        })
    });
    group.finish();
}

/// A claimed crawler checked against its operator's published ranges: only
/// an agent that matched a bot word is looked up, so a browser's kind costs
/// nothing more for it.
fn claims(c: &mut Criterion) {
    let rules = Rules::default();
    let google = "66.249.66.1".parse().ok();
    let elsewhere = "203.0.113.7".parse().ok();
    let mut group = c.benchmark_group("kind of a request");
    for (name, agent, client) in [
        ("browser", CHROME, elsewhere),
        ("googlebot from google", GOOGLEBOT, google),
        ("googlebot from elsewhere", GOOGLEBOT, elsewhere),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| kind_of("/resume", black_box(Some(agent)), client, None, &rules))
        });
    }
    group.bench_function("the ranges alone (googlebot from google)", |b| {
        b.iter(|| rules.crawlers().check(black_box(GOOGLEBOT), google))
    });
    group.finish();
}

criterion_group!(benches, bots, decision, claims);
criterion_main!(benches);
