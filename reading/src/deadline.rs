//! How long the tab waits for a store. A store that does not answer (a
//! pool whose connections are all taken, a server that stopped answering
//! without closing) must not hold a reader's page open without end: each
//! read the tab makes is given [`READ_DEADLINE`], after which the page is
//! drawn without it, that store's card says it did not answer in time,
//! and the log names the read.

use std::time::Duration;

use activity::store::StoreError;

/// How long one of the tab's reads of the stores may take.
pub const READ_DEADLINE: Duration = Duration::from_secs(10);

/// `read`, or [`StoreError::Busy`] if it takes longer than [`READ_DEADLINE`].
pub async fn within<T>(
    what: &'static str,
    read: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    match tokio::time::timeout(READ_DEADLINE, read).await {
        Ok(result) => result,
        Err(_) => {
            tracing::warn!(
                read = what,
                "a store did not answer within {} s; the tab is drawn without it",
                READ_DEADLINE.as_secs()
            );
            Err(StoreError::Busy { retry_after: None })
        }
    }
}
