//! Sustained ingest into SQLite: batches of 1,000 hits, folded and written
//! the way the writer does it, into a file in a temporary folder.
//!
//! `cargo bench -p activity-sqlite --bench ingest` (hits/s = elements/s).

use activity::StoreName;
use activity::rows::Batch;
use activity::store::{ActivityStore, Retention};
use activity_sqlite::SqliteStore;
use chrono::{Duration, TimeZone, Utc};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn ingest(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let folder = tempfile::tempdir().expect("a temporary folder");
    let path = folder.path().join("activity.db");
    let name = StoreName::parse("sqlite").expect("a name");
    let store = runtime
        .block_on(SqliteStore::open(
            path.to_str().expect("UTF-8"),
            name.clone(),
            Retention::default(),
        ))
        .expect("opens");
    let start = Utc
        .with_ymd_and_hms(2026, 11, 29, 0, 0, 0)
        .single()
        .expect("a time");
    let mut batch_number = 0i64;
    let mut group = c.benchmark_group("ingest");
    group.throughput(Throughput::Elements(1_000));
    group.bench_function("sqlite: fold and write 1,000 hits", |b| {
        b.iter_batched(
            || {
                batch_number += 1;
                let at = start + Duration::minutes(batch_number);
                activity::sample::hits(&name, at, 1_000, batch_number as u64)
            },
            |hits| {
                runtime
                    .block_on(store.record(&Batch::fold(&hits)))
                    .expect("written")
            },
            criterion::BatchSize::SmallInput,
        )
    });
    group.finish();
}

criterion_group!(benches, ingest);
criterion_main!(benches);
