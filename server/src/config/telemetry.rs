//! Logging: human-readable lines on stderr, filtered by `--log` / `WHOCOMES_LOG`.
//!
//! Nothing here logs requests: an access log would write addresses, user
//! agents and query strings, which whocomes promises never to keep.

use anyhow::Context as _;
use tracing_subscriber::EnvFilter;

/// Installs the global subscriber. Fails with a readable message when the
/// filter does not parse, instead of silently logging nothing.
pub fn init(filter: &str) -> anyhow::Result<()> {
    let filter = EnvFilter::try_new(filter)
        .with_context(|| format!("--log / WHOCOMES_LOG is not a valid log filter: {filter:?}"))?;
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init()
        .map_err(|error| anyhow::anyhow!("cannot install the logger: {error}"))
}
