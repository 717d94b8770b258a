//! Where a request's peer address is: axum keeps it as
//! `ConnectInfo<SocketAddr>` when the app is served with
//! `into_make_service_with_connect_info::<SocketAddr>()` (as
//! [`Whocomes::serve`](crate::Whocomes::serve) does); a bare `SocketAddr`
//! (hyper-util, tests) is read too.

use std::net::{IpAddr, SocketAddr};

use axum::extract::ConnectInfo;

/// The peer's address in a request's extensions, for
/// [`RecorderConfig::peer_address`](activity::recording::RecorderConfig::peer_address).
pub fn connect_info(extensions: &http::Extensions) -> Option<IpAddr> {
    extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.ip())
        .or_else(|| extensions.get::<SocketAddr>().map(SocketAddr::ip))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axums_connect_info_and_a_bare_address_are_both_read() {
        let mut extensions = http::Extensions::new();
        assert_eq!(connect_info(&extensions), None);
        extensions.insert(SocketAddr::from(([192, 0, 2, 1], 1)));
        assert_eq!(connect_info(&extensions), Some([192, 0, 2, 1].into()));
        extensions.insert(ConnectInfo(SocketAddr::from(([198, 51, 100, 7], 2))));
        assert_eq!(connect_info(&extensions), Some([198, 51, 100, 7].into()));
    }
}
