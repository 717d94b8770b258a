//! Sustained ingest, SQLite and PostgreSQL side by side in one run: 100,000
//! made-up hits (`activity::sample`) sent through the writer the server uses
//! (default batching) until every hit is written; making the hits is not
//! timed. SQLite is a file in a temporary folder; PostgreSQL a fresh database
//! on the server TEST_DATABASE_URL names (skipped, with a line saying so,
//! without it).
//!
//! `cargo bench -p server --bench ingest` (hits/s = elements/s).

use std::sync::Arc;

use activity::StoreName;
use activity::store::{ActivityStore, Retention};
use activity_postgres::PostgresStore;
use activity_sqlite::SqliteStore;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const HITS: usize = 100_000;

/// Times 100,000 hits at a time through a writer into `store`.
fn bench_store(
    c: &mut Criterion,
    runtime: &tokio::runtime::Runtime,
    store: Arc<dyn ActivityStore>,
) {
    let mut runs = 0;
    let mut group = c.benchmark_group("ingest");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(HITS as u64));
    group.bench_function(
        format!("{}: 100,000 hits through the writer", store.name()),
        |b| {
            b.iter_custom(|iterations| {
                runs += iterations;
                runtime.block_on(activity::sample::time_ingest(
                    &store, HITS, iterations, runs,
                ))
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
    bench_store(c, &runtime, Arc::new(sqlite));

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
            bench_store(c, &runtime, Arc::new(postgres));
        }
    }
}

criterion_group!(benches, ingest);
criterion_main!(benches);
