//! Runs blocking work (SQLite, PDF rendering) on tokio's blocking pool, never on an async
//! worker, and resumes a panic in the caller.

use crate::error::{Error, Result};

pub async fn run<T: Send + 'static>(f: impl FnOnce() -> Result<T> + Send + 'static) -> Result<T> {
    match tokio::task::spawn_blocking(f).await {
        Ok(result) => result,
        Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
        Err(err) => Err(Error::internal(err)),
    }
}
