//! Sustained ingest, SQLite, PostgreSQL and Cosmos DB side by side in one
//! run: 100,000 made-up hits (10,000 for Cosmos DB) (`activity::sample`)
//! sent through the writer the server uses (default batching) until every
//! hit is written; making the hits is not timed. SQLite is a file in a temporary folder; PostgreSQL a
//! fresh database on the server TEST_DATABASE_URL names (skipped, with a line
//! saying so, without it); Cosmos DB the SDK's in-memory emulator, in this
//! process (its time is the SDK's and the emulator's together), whose request
//! units per 1,000 hits are printed after its runs.
//!
//! Then real traffic: the corpus's access logs (`../shared/corpus/`, three
//! sites' logs, skipped with a line saying so where there is none) counted
//! by the rules a live server uses, each log moved by whole days to end two
//! days ago, through the same writer into SQLite and PostgreSQL; the line
//! before says how many distinct rows those hits make (the rows a write
//! upserts, per 1,000 hits). Each run writes the same rows again, as a
//! site's later visits do.
//!
//! `cargo bench -p server --bench ingest` (hits/s = elements/s).

use std::sync::Arc;

use activity::address::TrustedProxies;
use activity::logline::{self, LogFormat};
use activity::rows::{Batch, Seen};
use activity::store::{ActivityStore, Retention};
use activity::{Counter, Hit, Rules, StoreName, VisitorKey};
use activity_postgres::PostgresStore;
use activity_sqlite::SqliteStore;
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};

const HITS: usize = 100_000;
/// The emulator runs in this process and slows as its partitions grow:
/// fewer hits a run keep the bench within minutes.
const COSMOS_HITS: usize = 10_000;

/// Times `hits` hits at a time through a writer into `store`.
fn bench_store(
    c: &mut Criterion,
    runtime: &tokio::runtime::Runtime,
    store: Arc<dyn ActivityStore>,
    hits: usize,
) {
    let sample = activity::sample::hits(store.name(), chrono::Utc::now(), hits, 1);
    let seen: Vec<Seen> = sample.into_iter().map(Seen::Hit).collect();
    eprintln!(
        "{}: the made-up sample makes {:.0} distinct rows per 1,000 hits",
        store.name(),
        Batch::fold_all(&seen).rows() as f64 * 1_000.0 / hits as f64
    );
    let mut runs = 0;
    let mut group = c.benchmark_group("ingest");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(hits as u64));
    group.bench_function(
        format!("{}: {hits} hits through the writer", store.name()),
        |b| {
            b.iter_custom(|iterations| {
                runs += iterations;
                runtime.block_on(activity::sample::time_ingest(
                    &store, hits, iterations, runs,
                ))
            })
        },
    );
    group.finish();
    // What the engine bills, per 1,000 hits written (warm-ups included).
    if let Some((units, what)) = store.cost().units {
        let hits = runs.max(1) * hits as u64;
        eprintln!(
            "{}: {units} {what} for {hits} hits, {:.0} per 1,000 hits",
            store.name(),
            units as f64 * 1_000.0 / hits as f64
        );
    }
}

/// The corpus's access logs as the hits a live server would count, each
/// log moved to end two days ago (whole days: a visitor's day stays one
/// day); `None` without the corpus.
fn corpus_hits(store: &StoreName) -> Option<Vec<Hit>> {
    let folder = activity::corpus::folder(env!("CARGO_MANIFEST_DIR"), "access-logs")?;
    let counter = Counter::new(
        Rules::default(),
        VisitorKey::from_bytes(vec![7; 32]).expect("a key"),
        TrustedProxies::default(),
        store.clone(),
    );
    let end = chrono::Utc::now().date_naive() - chrono::Days::new(2);
    let mut logs: Vec<_> = std::fs::read_dir(&folder)
        .expect("the corpus folder")
        .map(|entry| entry.expect("an entry").path())
        .filter(|path| path.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    let mut hits = Vec::new();
    for log in logs {
        let text = std::fs::read(&log).expect("a log");
        let requests: Vec<_> = text
            .split(|&byte| byte == b'\n')
            .filter_map(|line| logline::parse(line, LogFormat::Combined).ok())
            .collect();
        let Some(last) = requests.iter().map(|request| request.at).max() else {
            continue;
        };
        let shift = end.signed_duration_since(last.date_naive());
        for request in &requests {
            let at = request.at + shift;
            if let Some(hit) = counter.count(&request.view(), Some(request.peer), at).hit {
                hits.push(hit);
            }
        }
    }
    hits.sort_by_key(|hit| hit.at);
    let seen: Vec<Seen> = hits.iter().cloned().map(Seen::Hit).collect();
    let rows = Batch::fold_all(&seen).rows();
    eprintln!(
        "corpus: {} hits counted from {}, {rows} distinct rows ({:.0} per 1,000 hits)",
        hits.len(),
        folder.display(),
        rows as f64 * 1_000.0 / hits.len().max(1) as f64
    );
    Some(hits)
}

/// Times the corpus's hits through a writer into `store`.
fn bench_corpus(
    c: &mut Criterion,
    runtime: &tokio::runtime::Runtime,
    store: &Arc<dyn ActivityStore>,
    hits: &[Hit],
) {
    let mut group = c.benchmark_group("ingest");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(hits.len() as u64));
    group.bench_function(
        format!(
            "{}: {} corpus hits through the writer",
            store.name(),
            hits.len()
        ),
        |b| {
            b.iter_custom(|iterations| {
                let mut took = std::time::Duration::ZERO;
                for _ in 0..iterations {
                    let run = hits.to_vec();
                    let began = std::time::Instant::now();
                    let stats = runtime
                        .block_on(activity::sample::write_through_writer(store.clone(), run));
                    took += began.elapsed();
                    assert_eq!(
                        (stats.written, stats.lost),
                        (hits.len() as u64, 0),
                        "every hit written"
                    );
                }
                took
            })
        },
    );
    group.finish();
}

fn ingest(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("activity.db");
    let sqlite = runtime
        .block_on(SqliteStore::open(
            path.to_str().expect("UTF-8"),
            StoreName::parse("sqlite").expect("a name"),
            Retention::default(),
        ))
        .expect("opens");
    let sqlite: Arc<dyn ActivityStore> = Arc::new(sqlite);
    bench_store(c, &runtime, sqlite.clone(), HITS);
    let corpus = corpus_hits(&StoreName::parse("sqlite").expect("a name"));
    if corpus.is_none() {
        eprintln!("corpus: SKIPPED (no ../shared/corpus/access-logs beside the workspace)");
    }
    if let Some(hits) = &corpus {
        bench_corpus(c, &runtime, &sqlite, hits);
    }

    match runtime.block_on(activity_postgres::testing::fresh_database()) {
        None => eprintln!("postgres: SKIPPED (TEST_DATABASE_URL is not set)"),
        Some(url) => {
            let postgres = runtime
                .block_on(PostgresStore::open(
                    &url,
                    StoreName::parse("postgres").expect("a name"),
                    Retention::default(),
                ))
                .expect("connects");
            let postgres: Arc<dyn ActivityStore> = Arc::new(postgres);
            bench_store(c, &runtime, postgres.clone(), HITS);
            let name = StoreName::parse("postgres").expect("a name");
            if let Some(hits) = corpus.is_some().then(|| corpus_hits(&name)).flatten() {
                bench_corpus(c, &runtime, &postgres, &hits);
            }
        }
    }

    let cosmos = runtime
        .block_on(activity_cosmos::CosmosStore::open(
            "cosmos+emulator://bench/?database=whocomes&container=activity",
            StoreName::parse("cosmos").expect("a name"),
            Retention::default(),
        ))
        .expect("the emulator opens");
    bench_store(c, &runtime, Arc::new(cosmos), COSMOS_HITS);
}

criterion_group!(benches, ingest);
criterion_main!(benches);
