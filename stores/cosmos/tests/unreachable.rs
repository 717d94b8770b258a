//! An account that does not answer: opening the store fails as
//! `Unavailable`, in time, with a reason that names neither the account's
//! address nor its key (the message reaches logs and the operator's
//! terminal). Loopback port 9 (discard) has nothing listening here.

use std::time::{Duration, Instant};

use activity::StoreName;
use activity::store::{Retention, StoreError};
use whocomes_cosmos::CosmosStore;

#[tokio::test]
async fn an_account_that_does_not_answer_is_unavailable_and_named_to_no_one() {
    let folder = tempfile::tempdir().expect("a folder");
    let key_file = folder.path().join("cosmos.key");
    let key = "c2VjcmV0LWtleS1ub3QtdG8tYmUtbG9nZ2Vk";
    std::fs::write(&key_file, key).expect("the key is written");
    let url = format!(
        "cosmos+https://127.0.0.1:9/?database=whocomes&container=activity&key_file={}",
        key_file.display()
    );
    let began = Instant::now();
    let opened = tokio::time::timeout(
        Duration::from_secs(120),
        CosmosStore::open(
            &url,
            StoreName::parse("site").expect("a name"),
            Retention::default(),
        ),
    )
    .await
    .expect("gives up within two minutes");
    let Err(error) = opened else {
        panic!("nothing listens on port 9, yet the store opened");
    };
    eprintln!("after {:.1?}: {error}", began.elapsed());
    assert!(
        matches!(error, StoreError::Unavailable(_)),
        "unavailable, not {error:?}"
    );
    let said = format!("{error} {error:?}");
    for secret in [key, "127.0.0.1", ":9", "cosmos.key"] {
        assert!(!said.contains(secret), "{said:?} names {secret:?}");
    }
    assert!(said.contains("Cosmos DB"), "{said:?} says what failed");
}
