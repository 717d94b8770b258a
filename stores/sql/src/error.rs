//! A database error as a [`StoreError`], in words safe to show: sqlx never
//! puts row values or passwords in its messages.

use activity::store::StoreError;

/// The [`StoreError`] of a database error: busy, unreachable, a row that
/// cannot be read, or a statement that failed.
pub fn failed(error: sqlx::Error) -> StoreError {
    match error {
        sqlx::Error::PoolTimedOut => StoreError::Busy { retry_after: None },
        sqlx::Error::Io(_) | sqlx::Error::Tls(_) | sqlx::Error::PoolClosed => {
            StoreError::Unavailable(error.to_string())
        }
        sqlx::Error::ColumnDecode { .. }
        | sqlx::Error::Decode(_)
        | sqlx::Error::ColumnNotFound(_)
        | sqlx::Error::TypeNotFound { .. } => StoreError::Corrupt(error.to_string()),
        _ => StoreError::Failed(error.to_string()),
    }
}

/// A column whose value is not one whocomes writes: the column named,
/// never its value.
pub fn invalid(what: &str) -> StoreError {
    StoreError::Corrupt(format!("an invalid {what}"))
}
