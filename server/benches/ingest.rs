//! Sustained ingest, SQLite, PostgreSQL and Cosmos DB side by side in one
//! run: 100,000 made-up hits (10,000 for Cosmos DB) (`activity::sample`)
//! sent through the writer the server uses (default batching) until every
//! hit is written; making the hits is not timed. SQLite is a file in a temporary folder; PostgreSQL a
//! fresh database on the server TEST_DATABASE_URL names (skipped, with a line
//! saying so, without it); Cosmos DB the SDK's in-memory emulator, in this
//! process (its time is the SDK's and the emulator's together), whose request
//! units per 1,000 hits are printed after its runs.
//!
//! `cargo bench -p server --bench ingest` (hits/s = elements/s).

use std::sync::Arc;

use activity::StoreName;
use activity::store::{ActivityStore, Retention};
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
    bench_store(c, &runtime, Arc::new(sqlite), HITS);

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
            bench_store(c, &runtime, Arc::new(postgres), HITS);
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
