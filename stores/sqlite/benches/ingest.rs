//! Sustained ingest into SQLite: 100,000 made-up hits (`activity::sample`)
//! sent through the writer the server uses (default batching), into a file in
//! a temporary folder, until every hit is written. Making the hits is not timed.
//!
//! `cargo bench -p activity-sqlite --bench ingest` (hits/s = elements/s).

use std::sync::Arc;

use activity::StoreName;
use activity::store::{ActivityStore, Retention};
use activity_sqlite::SqliteStore;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const HITS: usize = 100_000;

fn ingest(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("activity.db");
    let name = StoreName::parse("sqlite").expect("a name");
    let store: Arc<dyn ActivityStore> = Arc::new(
        runtime
            .block_on(SqliteStore::open(
                path.to_str().expect("UTF-8"),
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
    group.bench_function("sqlite: 100,000 hits through the writer", |b| {
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
