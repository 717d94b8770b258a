//! Sustained ingest into PostgreSQL: 100,000 made-up hits (`activity::sample`)
//! sent through the writer the server uses (default batching), into a fresh database
//! on the server TEST_DATABASE_URL names (skipped without it), until every hit is written. Making the hits is not timed.
//!
//! `cargo bench -p activity-postgres --bench ingest` (hits/s = elements/s).

use std::sync::Arc;

use activity::StoreName;
use activity::store::{ActivityStore, Retention};
use activity_postgres::PostgresStore;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const HITS: usize = 100_000;

fn ingest(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let Some(url) = runtime.block_on(activity_postgres::testing::fresh_database()) else {
        eprintln!("SKIPPED: TEST_DATABASE_URL is not set");
        return;
    };
    let name = StoreName::parse("postgres").expect("a name");
    let store: Arc<dyn ActivityStore> = Arc::new(
        runtime
            .block_on(PostgresStore::connect(
                &url,
                name.clone(),
                Retention::default(),
            ))
            .expect("opens"),
    );
    let mut runs = 0;
    let mut group = c.benchmark_group("ingest");
    group
        .sample_size(10)
        .throughput(Throughput::Elements(HITS as u64));
    group.bench_function("postgres: 100,000 hits through the writer", |b| {
        b.iter_custom(|iterations| {
            runs += iterations;
            runtime.block_on(activity::sample::time_ingest(
                &store, HITS, iterations, runs,
            ))
        })
    });
    group.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
