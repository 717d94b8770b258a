//! Throttling: past its provisioned request units a second, Cosmos DB
//! answers 429 with how long to wait (`x-ms-retry-after-ms`). The store
//! says `Busy` with that wait, and works again after it. On the SDK's
//! emulator with its throttling on and 400 RU/s provisioned. The emulator
//! throttles single-document writes and reads, not transactional batches
//! nor queries, so this drives the store's notes (single upserts); a
//! throttled batch is answered by the same mapping (docs/STORES.md).

use activity::StoreName;
use activity::store::{ActivityStore, Retention, StoreError};
use whocomes_cosmos::CosmosStore;

#[tokio::test]
async fn past_its_throughput_the_store_is_busy_with_the_services_wait() {
    whocomes_cosmos::emulator::throttled("throttled", "whocomes", "activity", 400)
        .expect("provisions");
    let store = CosmosStore::open(
        "cosmos+emulator://throttled/?database=whocomes&container=activity",
        StoreName::parse("site").expect("a name"),
        Retention::default(),
    )
    .await
    .expect("opens");
    // 200 writers at once, each a 4 KB note: far past 400 RU/s, and past
    // the SDK's own two retries for most of them.
    let body = "x".repeat(4_000);
    let writes = (0..200).map(|n| {
        let store = &store;
        let body = &body;
        async move { store.keep_cached(&format!("note {n}"), body).await }
    });
    let outcomes = futures::future::join_all(writes).await;
    let kept = outcomes.iter().filter(|outcome| outcome.is_ok()).count();
    let busy: Vec<_> = outcomes.into_iter().filter_map(Result::err).collect();
    eprintln!("{kept} of 200 notes kept, {} busy", busy.len());
    assert!(kept > 0, "some writes fit the budget");
    let Some(error) = busy.into_iter().next() else {
        panic!("200 writes at once all fit 400 RU/s");
    };
    let StoreError::Busy { retry_after } = error else {
        panic!("throttling is Busy, not {error:?}");
    };
    let wait = retry_after.expect("with the service's wait");
    assert!(wait.as_millis() > 0 && wait.as_secs() < 60, "{wait:?}");

    // After the wait, it writes again, and kept what it took.
    tokio::time::sleep(wait + std::time::Duration::from_millis(1_100)).await;
    let units = |store: &CosmosStore| store.cost().units.map_or(0, |(units, _)| units);
    let before = units(&store);
    assert!(before > 0, "the kept notes were charged");
    store
        .keep_cached("after the wait", "ok")
        .await
        .expect("writes once the budget refills");
    assert!(units(&store) > before, "and that write was charged too");
    assert_eq!(
        store
            .cached("after the wait")
            .await
            .expect("reads")
            .as_deref(),
        Some("ok")
    );
}
