//! Sustained ingest into PostgreSQL: batches of 1,000 hits, folded and written
//! the way the writer does it, into a fresh database on the server TEST_DATABASE_URL names (skipped without it).
//!
//! `cargo bench -p activity-postgres --bench ingest` (hits/s = elements/s).

use activity::StoreName;
use activity::rows::Batch;
use activity::store::{ActivityStore, Retention};
use activity_postgres::PostgresStore;
use chrono::{Duration, TimeZone, Utc};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn ingest(c: &mut Criterion) {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let Some(url) = runtime.block_on(activity_postgres::testing::fresh_database()) else {
        eprintln!("SKIPPED: TEST_DATABASE_URL is not set");
        return;
    };
    let name = StoreName::parse("postgres").expect("a name");
    let store = runtime
        .block_on(PostgresStore::connect(
            &url,
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
    group.bench_function("postgres: fold and write 1,000 hits", |b| {
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
