//! The SDK's in-memory emulator (`cosmos+emulator://NAME/…`, behind the
//! `emulator` feature): one virtual account per name for the life of the
//! process, so a store opened again by name finds what it wrote. Tests
//! and benchmarks only: it keeps nothing past the process.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use activity::store::StoreError;
use azure_data_cosmos::options::Region;
use azure_data_cosmos::{
    AccountEndpoint, AccountReference, CosmosClient, CosmosClientBuilder, CosmosRuntimeBuilder,
    RoutingStrategy,
};
use azure_data_cosmos_driver::in_memory_emulator::{
    ContainerConfig, InMemoryEmulatorHttpClient, VirtualAccountConfig, VirtualRegion,
};

const GATEWAY: &str = "https://eastus.emulator.local";

/// The emulators made so far, by name.
fn emulators() -> &'static Mutex<HashMap<String, Arc<InMemoryEmulatorHttpClient>>> {
    static EMULATORS: OnceLock<Mutex<HashMap<String, Arc<InMemoryEmulatorHttpClient>>>> =
        OnceLock::new();
    EMULATORS.get_or_init(Mutex::default)
}

/// The emulator named `name`, made the first time.
pub fn named(name: &str, throttled: bool) -> Result<Arc<InMemoryEmulatorHttpClient>, StoreError> {
    let mut emulators = emulators()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(emulator) = emulators.get(name) {
        return Ok(emulator.clone());
    }
    let url = azure_core::http::Url::parse(GATEWAY)
        .map_err(|_| StoreError::Unavailable("the emulator's address".to_owned()))?;
    let config = VirtualAccountConfig::new(vec![VirtualRegion::new("East US", url)])
        .map_err(|_| StoreError::Unavailable("the emulator cannot be set up".to_owned()))?
        .with_throttling_enabled(throttled);
    let emulator = Arc::new(InMemoryEmulatorHttpClient::new(config));
    emulators.insert(name.to_owned(), emulator.clone());
    Ok(emulator)
}

/// A client of the emulator named `name`.
pub async fn client(builder: CosmosClientBuilder, name: &str) -> Result<CosmosClient, StoreError> {
    let emulator = named(name, false)?;
    let endpoint: AccountEndpoint = GATEWAY
        .parse()
        .map_err(|_| StoreError::Unavailable("the emulator's address".to_owned()))?;
    // The emulator checks no key.
    let account = AccountReference::with_authentication_key(
        endpoint,
        azure_core::credentials::Secret::new("ZW11bGF0b3I="),
    );
    let runtime = CosmosRuntimeBuilder::from(emulator.runtime_builder())
        .build()
        .await
        .map_err(|_| StoreError::Unavailable("the emulator cannot start".to_owned()))?;
    builder
        .with_runtime(runtime)
        .build(account, RoutingStrategy::ProximityTo(Region::EAST_US))
        .await
        .map_err(|_| StoreError::Unavailable("the emulator does not answer".to_owned()))
}

/// Makes the emulator `name` with throttling on, and in it the container
/// `database`/`container` provisioned with `ru_per_second` (at least 400):
/// past that rate it answers 429 with its wait, as the service does.
pub fn throttled(
    name: &str,
    database: &str,
    container: &str,
    ru_per_second: u64,
) -> Result<(), StoreError> {
    let emulator = named(name, true)?;
    let config = ContainerConfig::new()
        .with_throughput(ru_per_second)
        .build()
        .map_err(|_| StoreError::Unavailable("the emulator's container settings".to_owned()))?;
    let key = serde_json::from_value(serde_json::json!({
        "paths": [crate::docs::PARTITION_KEY_PATH],
        "kind": "Hash",
        "version": 2
    }))
    .map_err(|_| StoreError::Unavailable("the emulator's partition key".to_owned()))?;
    let store = emulator.store();
    store.create_database(database);
    store.create_container_with_config(database, container, key, config);
    Ok(())
}
