//! The connection flags of `serve` (`--max-connections`, the timeouts),
//! turned into the library's [`ConnectionLimits`]; what each limit does is
//! said where it is enforced, `whocomes/src/connections.rs`.

use std::time::Duration;

use clap::Args;
use whocomes::ConnectionLimits;

/// How connections are limited (`serve`).
#[derive(Clone, Debug, Args)]
pub struct ConnectionArgs {
    /// The most connections open at once; beyond it a new one gets a quick
    /// 503 and is closed (and counted on the Admin tab).
    #[arg(long, env = "WHOCOMES_MAX_CONNECTIONS", default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,

    /// Seconds a client may take to send a request's line and headers,
    /// from when the connection is ready for it (for a kept-alive
    /// connection: from the end of the previous answer).
    #[arg(long, env = "WHOCOMES_HEADER_TIMEOUT", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout: u64,

    /// Seconds a request may take, its body included, before it is answered 408.
    #[arg(long, env = "WHOCOMES_REQUEST_TIMEOUT", default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..))]
    pub request_timeout: u64,

    /// Seconds a connection may stay open with no byte moving either way.
    #[arg(long, env = "WHOCOMES_IDLE_TIMEOUT", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..))]
    pub idle_timeout: u64,
}

impl ConnectionArgs {
    /// The limits these flags set.
    pub fn limits(&self) -> ConnectionLimits {
        ConnectionLimits {
            max_connections: self.max_connections,
            header_timeout: Duration::from_secs(self.header_timeout),
            request_timeout: Duration::from_secs(self.request_timeout),
            idle_timeout: Duration::from_secs(self.idle_timeout),
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    /// The flags' defaults are the library's: an embedder's app is limited
    /// as the binary is.
    #[test]
    fn the_flags_defaults_are_the_librarys() {
        #[derive(Parser)]
        struct Flags {
            #[command(flatten)]
            connections: super::ConnectionArgs,
        }
        let flags = Flags::try_parse_from(["whocomes"]).expect("parses");
        assert_eq!(
            flags.connections.limits(),
            whocomes::ConnectionLimits::default()
        );
    }
}
