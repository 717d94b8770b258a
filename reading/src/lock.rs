//! The read side's one way to take a lock: a mutex's guard, the data as it
//! was left if a holder panicked (each lock here guards counts and kept
//! summaries, never a half-done step).

/// A mutex's guard, even from a holder that panicked.
pub(crate) fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
