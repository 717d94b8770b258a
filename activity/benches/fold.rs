//! The writer's fold: a second's hits folded into a batch and added to the
//! rows pending, as the writer does once a second. Two shapes of the made-up
//! sample (`sample::hits`): a fold of 16,384 hits (the writer's default
//! `flush_hits`) and the same hits added in folds of 1,024.
//!
//! `cargo bench -p whocomes-activity --bench fold`

use std::hint::black_box;

use chrono::TimeZone as _;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use whocomes_activity::StoreName;
use whocomes_activity::pending::PendingRows;
use whocomes_activity::rows::Batch;
use whocomes_activity::sample;

/// The allocator the server uses.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn fold(c: &mut Criterion) {
    let name = StoreName::parse("sqlite").expect("a store name");
    let at = chrono::Utc
        .with_ymd_and_hms(2026, 12, 4, 9, 0, 0)
        .single()
        .expect("a time");
    let hits = sample::hits(&name, at, 16_384, 7);
    let mut group = c.benchmark_group("fold");
    group.throughput(Throughput::Elements(hits.len() as u64));
    group.bench_function("16384 hits, one fold, added", |b| {
        b.iter_batched(
            PendingRows::default,
            |mut pending| {
                pending.add(Batch::fold(black_box(&hits)));
                pending
            },
            BatchSize::SmallInput,
        );
    });
    group.bench_function("16384 hits, folds of 1024, added", |b| {
        b.iter_batched(
            PendingRows::default,
            |mut pending| {
                for chunk in black_box(&hits).chunks(1_024) {
                    pending.add(Batch::fold(chunk));
                }
                pending
            },
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

criterion_group!(benches, fold);
criterion_main!(benches);
