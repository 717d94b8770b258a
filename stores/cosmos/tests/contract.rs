//! The store contract on the Azure Cosmos DB SDK's own in-memory emulator
//! (`azure_data_cosmos`'s `__internal_in_memory_emulator`, through this
//! crate's `emulator` feature): the SDK, its wire format and the
//! emulator's partitions, batches and queries are real; the account is not.

use activity::StoreName;
use activity::contract::store_contract;
use activity::store::{ActivityStore, Retention};
use chrono::{TimeZone, Utc};
use whocomes_cosmos::CosmosStore;

fn url(emulator: &str, container: &str) -> String {
    format!("cosmos+emulator://{emulator}/?database=whocomes&container={container}")
}

#[tokio::test]
async fn cosmos_meets_the_store_contract() {
    let name = StoreName::parse("cosmos").expect("a name");
    let store = CosmosStore::open(&url("contract", "activity"), name, Retention::default())
        .await
        .expect("opens");
    let availability = store.availability().await;
    assert!(
        availability
            .reason
            .starts_with("kept in Azure Cosmos DB at the SDK's in-memory emulator"),
        "{}",
        availability.reason
    );
    let now = Utc
        .with_ymd_and_hms(2026, 11, 29, 18, 0, 0)
        .single()
        .expect("a time");
    store_contract(&store, now).await;
    let closed = store.availability().await;
    assert!(!closed.available, "{}", closed.reason);
    let cost = store.cost();
    let (units, what) = cost.units.clone().expect("request units counted");
    assert_eq!(what, "request units");
    assert!(
        units > 100,
        "the contract's reads and writes cost {units} RU"
    );
    assert!(cost.operations > 50 && cost.failures == 0, "{cost:?}");
}

#[tokio::test]
async fn two_stores_share_one_container_without_mixing_documents() {
    let shared = url("shared", "activity");
    let open = |name: &str| {
        CosmosStore::open(
            &shared,
            StoreName::parse(name).expect("a name"),
            Retention::default(),
        )
    };
    let a = open("site-a").await.expect("opens");
    let b = open("site-b").await.expect("opens the existing container");
    let now = Utc
        .with_ymd_and_hms(2026, 11, 29, 18, 0, 0)
        .single()
        .expect("a time");
    store_contract(&a, now).await;
    assert!(
        b.hours_since(chrono::DateTime::UNIX_EPOCH)
            .await
            .expect("reads")
            .is_empty()
    );
    assert!(
        b.visitors_since(chrono::NaiveDate::MIN)
            .await
            .expect("reads")
            .is_empty()
    );
}
