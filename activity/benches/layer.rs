//! The request path as the server runs it: one request through the
//! `ActivityLayer` (headers read, decision, hit made, `try_send` onto the
//! queue) in front of a service that answers at once, beside the same
//! service without the layer.
//!
//! `cargo bench -p activity --features server --bench layer`

use std::convert::Infallible;
use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use whocomes_activity::address::TrustedProxies;
use whocomes_activity::recording::{RecorderConfig, start};
use whocomes_activity::rows::{Availability, Batch, Cost, HourRow, VisitorDay};
use whocomes_activity::store::{ActivityStore, StoreError};
use whocomes_activity::{Counter, Rules, StoreName, VisitorKey};

/// The allocator the server uses: a hit is made on a request thread and
/// freed on the writer's, which the system allocator handles slowly.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
use tower::{Layer, Service, service_fn};

const CHROME: &str = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// A page load as Chrome 131 sends it: its agent, client hints that agree
/// with it, fetch metadata, `Accept`, a referrer.
fn request(path: &str) -> http::Request<()> {
    let mut request = http::Request::get(path)
        .header("user-agent", CHROME)
        .header(
            "accept",
            "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
        )
        .header(
            "sec-ch-ua",
            r#""Google Chrome";v="131", "Chromium";v="131", "Not_A Brand";v="24""#,
        )
        .header("sec-ch-ua-mobile", "?0")
        .header("sec-ch-ua-platform", "\"Windows\"")
        .header("sec-fetch-site", "cross-site")
        .header("sec-fetch-mode", "navigate")
        .header("sec-fetch-dest", "document")
        .header("accept-language", "en-GB,en;q=0.9")
        .header("referer", "https://www.linkedin.com/feed/")
        .header("host", "example.com")
        .body(())
        .expect("a request");
    request.extensions_mut().insert(
        "203.0.113.7:5123"
            .parse::<SocketAddr>()
            .expect("an address"),
    );
    request
}

/// Accepts every batch and keeps nothing: the bench measures the request
/// path, not a store.
struct Discard(StoreName);

#[async_trait::async_trait]
impl ActivityStore for Discard {
    fn name(&self) -> &StoreName {
        &self.0
    }
    async fn availability(&self) -> Availability {
        Availability {
            available: true,
            reason: "discarded".into(),
            retention: "none".into(),
        }
    }
    async fn record(&self, _batch: &Batch) -> Result<(), StoreError> {
        Ok(())
    }
    async fn hours_page(
        &self,
        _since: chrono::DateTime<chrono::Utc>,
        _after: Option<(chrono::DateTime<chrono::Utc>, String)>,
        _limit: usize,
    ) -> Result<Vec<HourRow>, StoreError> {
        Ok(Vec::new())
    }

    async fn visitors_page(
        &self,
        _since: chrono::NaiveDate,
        _after: Option<(chrono::NaiveDate, whocomes_activity::VisitorToken)>,
        _limit: usize,
    ) -> Result<Vec<VisitorDay>, StoreError> {
        Ok(Vec::new())
    }

    async fn paths_in_hour(
        &self,
        _hour: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }

    async fn hours_since(
        &self,
        _since: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<HourRow>, StoreError> {
        Ok(Vec::new())
    }
    async fn goal_hours_since(
        &self,
        _since: chrono::DateTime<chrono::Utc>,
    ) -> Result<Vec<whocomes_activity::rows::GoalHour>, StoreError> {
        Ok(Vec::new())
    }
    async fn visitors_since(
        &self,
        _since: chrono::NaiveDate,
    ) -> Result<Vec<VisitorDay>, StoreError> {
        Ok(Vec::new())
    }
    async fn enforce_retention(
        &self,
        _now: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), StoreError> {
        Ok(())
    }
    async fn expired_kinds_since(
        &self,
        _since: chrono::NaiveDate,
    ) -> Result<Vec<(chrono::NaiveDate, whocomes_activity::report::KindCounts)>, StoreError> {
        Ok(Vec::new())
    }
    async fn bot_days_since(
        &self,
        _since: chrono::NaiveDate,
    ) -> Result<
        Vec<(
            chrono::NaiveDate,
            whocomes_activity::bot_class::BotClass,
            whocomes_activity::report::BotCount,
        )>,
        StoreError,
    > {
        Ok(Vec::new())
    }
    fn cost(&self) -> Cost {
        Cost::default()
    }
    async fn latest_visitors(
        &self,
        _since: chrono::NaiveDate,
        _limit: usize,
    ) -> Result<(Vec<VisitorDay>, u64), StoreError> {
        Ok((Vec::new(), 0))
    }
    async fn day_summaries(
        &self,
        _first: chrono::NaiveDate,
        _last: chrono::NaiveDate,
        _steps: &[whocomes_activity::report::FunnelStep],
        _filter: &whocomes_activity::filter::Filter,
    ) -> Result<Vec<whocomes_activity::summary::DaySummary>, StoreError> {
        Ok(Vec::new())
    }
    async fn day_requests(
        &self,
        _since: chrono::NaiveDate,
    ) -> Result<Vec<(chrono::NaiveDate, u64)>, StoreError> {
        Ok(Vec::new())
    }
    async fn day_marks(
        &self,
        _since: chrono::NaiveDate,
    ) -> Result<Vec<(chrono::NaiveDate, u64)>, StoreError> {
        Ok(Vec::new())
    }
    async fn imported(
        &self,
        _log: &str,
    ) -> Result<Option<whocomes_activity::store::Imported>, StoreError> {
        Ok(None)
    }
    async fn mark_imported(
        &self,
        _imported: &whocomes_activity::store::Imported,
    ) -> Result<(), StoreError> {
        Ok(())
    }
    async fn cached(&self, _name: &str) -> Result<Option<String>, StoreError> {
        Ok(None)
    }
    async fn keep_cached(&self, _name: &str, _body: &str) -> Result<(), StoreError> {
        Ok(())
    }
    async fn close(&self) {}
}

fn layer(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let _guard = runtime.enter();
    let store = Arc::new(Discard(StoreName::parse("memory").expect("a name")));
    let counter = Counter::new(
        Rules::default(),
        VisitorKey::from_bytes(vec![7; 32]).expect("a key"),
        TrustedProxies::default(),
        StoreName::parse("memory").expect("a name"),
    );
    let config = RecorderConfig {
        queue: 1 << 20,
        ..RecorderConfig::default()
    };
    let (activity, _writer) = start(counter, store.clone(), config);
    // The same with day keys (the default): a read lock per hit.
    let day_keys = whocomes_activity::TokenKeys::Ratchet {
        keys: Arc::new(std::sync::RwLock::new(
            whocomes_activity::ratchet::DayKeys::seed(&[7; 32], chrono::Utc::now().date_naive())
                .expect("a seed"),
        )),
        past: Arc::new(whocomes_activity::past::FromSeed::new(&[7; 32]).expect("a seed")),
    };
    let day_counter = Counter::with_keys(
        Rules::default(),
        day_keys,
        TrustedProxies::default(),
        StoreName::parse("memory").expect("a name"),
    );
    let (day_activity, _day_writer) = start(day_counter, store.clone(), config);
    // Behind a trusted proxy that says the client used HTTPS: every
    // consistency sign is asked of the request.
    let proxied_counter = Counter::new(
        Rules::default(),
        VisitorKey::from_bytes(vec![7; 32]).expect("a key"),
        TrustedProxies::new(
            vec!["10.0.0.0/8".parse().expect("a network")],
            whocomes_activity::address::ForwardedHeader::XForwardedFor,
        ),
        StoreName::parse("memory").expect("a name"),
    );
    let (proxied_activity, _proxied_writer) = start(proxied_counter, store, config);
    let inner =
        service_fn(|_: http::Request<()>| async { Ok::<_, Infallible>(http::Response::new(())) });
    let mut bare = inner;
    let mut counted = activity.layer(inner);
    let mut day_counted = day_activity.layer(inner);
    let mut proxied = proxied_activity.layer(inner);

    let mut group = c.benchmark_group("request path");
    group.bench_function("without the layer", |b| {
        b.iter_batched(
            || request("/resume?ref=linkedin"),
            |r| black_box(answer(bare.call(r))),
            criterion::BatchSize::SmallInput,
        )
    });
    group.bench_function("with the layer: page load", |b| {
        b.iter_batched(
            || request("/resume?ref=linkedin"),
            |r| black_box(answer(counted.call(r))),
            criterion::BatchSize::SmallInput,
        )
    });
    group.bench_function("with the layer: page load, day keys", |b| {
        b.iter_batched(
            || request("/resume?ref=linkedin"),
            |r| black_box(answer(day_counted.call(r))),
            criterion::BatchSize::SmallInput,
        )
    });
    group.bench_function(
        "with the layer: page load, HTTPS behind a trusted proxy",
        |b| {
            b.iter_batched(
                || {
                    let mut r = request("/resume?ref=linkedin");
                    let headers = r.headers_mut();
                    headers.insert(
                        "x-forwarded-for",
                        http::HeaderValue::from_static("203.0.113.7"),
                    );
                    headers.insert("x-forwarded-proto", http::HeaderValue::from_static("https"));
                    r.extensions_mut()
                        .insert(SocketAddr::from(([10, 0, 0, 2], 5123)));
                    r
                },
                |r| black_box(answer(proxied.call(r))),
                criterion::BatchSize::SmallInput,
            )
        },
    );
    // A PHP site's page: the decision waits for the answer (200: a reader's).
    group.bench_function("with the layer: a .php page, answered", |b| {
        b.iter_batched(
            || request("/index.php?p=12"),
            |r| black_box(answer(counted.call(r))),
            criterion::BatchSize::SmallInput,
        )
    });
    group.bench_function("with the layer: asset", |b| {
        b.iter_batched(
            || request("/pkg/whocomes.wasm"),
            |r| black_box(answer(counted.call(r))),
            criterion::BatchSize::SmallInput,
        )
    });
    // A visitor-day's first file: its token is made and a mark queued.
    let mut next = 0u32;
    group.bench_function("with the layer: asset, a new visitor each time", |b| {
        b.iter_batched(
            || {
                next = next.wrapping_add(1);
                let mut r = request("/pkg/whocomes.css");
                let peer = SocketAddr::from((std::net::Ipv4Addr::from(0x0a00_0000 | next), 5123));
                r.extensions_mut().insert(peer);
                r
            },
            |r| black_box(answer(counted.call(r))),
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

/// Polls a response future once (the inner service answers at once), so
/// that what the layer does with the answer is measured too.
fn answer<F: Future>(future: F) -> Option<F::Output> {
    let mut context = std::task::Context::from_waker(std::task::Waker::noop());
    match std::pin::pin!(future).poll(&mut context) {
        std::task::Poll::Ready(output) => Some(output),
        std::task::Poll::Pending => None,
    }
}

criterion_group!(benches, layer);
criterion_main!(benches);
