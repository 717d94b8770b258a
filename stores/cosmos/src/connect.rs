//! Reaching the account: a client with the key (or the SDK's in-memory
//! emulator, behind the `emulator` feature), and the database and
//! container made when they are missing, the container partitioned by
//! `/pk` (see `docs.rs`).

use std::time::Duration;

use activity::store::StoreError;
use azure_data_cosmos::models::ContainerProperties;
use azure_data_cosmos::options::{BatchOptions, OperationOptions, Region, ThrottlingRetryOptions};
use azure_data_cosmos::{
    AccountEndpoint, AccountReference, ContainerClient, CosmosClient, CosmosClientBuilder,
    RoutingStrategy,
};

use crate::docs::PARTITION_KEY_PATH;
use crate::location::{Endpoint, Location};

/// How long the SDK may retry a throttled request before the store says
/// it is busy (the writer then waits as long as the service asked).
const THROTTLE_WAIT: Duration = Duration::from_secs(2);

/// A write's options: a throttled write is not retried by the SDK but
/// answered at once as `Busy` with the service's wait, which the writer
/// keeps (holding the batch, nothing lost) before it tries again.
pub fn write_options() -> BatchOptions {
    let mut throttling = ThrottlingRetryOptions::default();
    throttling.max_retry_count = Some(0);
    let mut options = OperationOptions::default();
    options.throttling_retry_options = Some(throttling);
    BatchOptions::default().with_operation_options(options)
}

/// A client for the account `location` names.
async fn client(location: &Location) -> Result<CosmosClient, StoreError> {
    let mut throttling = ThrottlingRetryOptions::default();
    throttling.max_retry_count = Some(2);
    throttling.max_retry_wait_time = Some(THROTTLE_WAIT);
    let mut options = OperationOptions::default();
    options.throttling_retry_options = Some(throttling);
    let builder = CosmosClientBuilder::new().with_default_operation_options(options);
    match &location.endpoint {
        Endpoint::Account(url) => {
            let key = location.key()?;
            let endpoint: AccountEndpoint = url.parse().map_err(|_| {
                StoreError::Unavailable("the Cosmos DB account address is not valid".to_owned())
            })?;
            let account = AccountReference::with_authentication_key(
                endpoint,
                azure_core::credentials::Secret::new(key),
            );
            builder
                .build(account, RoutingStrategy::ProximityTo(Region::EAST_US))
                .await
                .map_err(|_| {
                    StoreError::Unavailable("the Cosmos DB account does not answer".to_owned())
                })
        }
        Endpoint::Emulator(name) => emulator(builder, name).await,
    }
}

#[cfg(feature = "emulator")]
async fn emulator(builder: CosmosClientBuilder, name: &str) -> Result<CosmosClient, StoreError> {
    crate::emulator::client(builder, name).await
}

#[cfg(not(feature = "emulator"))]
async fn emulator(_: CosmosClientBuilder, _: &str) -> Result<CosmosClient, StoreError> {
    Err(StoreError::Unavailable(
        "cosmos+emulator:// needs whocomes built with the Cosmos DB emulator (tests only)"
            .to_owned(),
    ))
}

/// The container `location` names, made (with its database) when missing.
pub async fn container(location: &Location) -> Result<ContainerClient, StoreError> {
    let client = client(location).await?;
    let unavailable = |what: &str, status: u16| {
        StoreError::Unavailable(format!("cannot make the Cosmos DB {what} ({status})"))
    };
    match client.create_database(&location.database, None).await {
        Ok(_) => {}
        Err(error) if error.status().is_conflict() => {}
        Err(error) if !error.is_from_wire() => {
            return Err(StoreError::Unavailable(
                "the Cosmos DB account does not answer".to_owned(),
            ));
        }
        Err(error) => {
            return Err(unavailable(
                "database",
                u16::from(error.status().status_code()),
            ));
        }
    }
    let database = client.database_client(location.database.as_str());
    let properties =
        ContainerProperties::new(location.container.clone(), PARTITION_KEY_PATH.into());
    match database.create_container(properties, None).await {
        Ok(_) => {}
        Err(error) if error.status().is_conflict() => {}
        Err(error) => {
            return Err(unavailable(
                "container",
                u16::from(error.status().status_code()),
            ));
        }
    }
    database
        .container_client(location.container.as_str(), None)
        .await
        .map_err(|error| unavailable("container", u16::from(error.status().status_code())))
}
