//! Forwarding headers: never a panic; without trusted proxies no header is
//! believed, whatever it says; with them, what is read is a whole address.
#![no_main]

use std::net::IpAddr;

use activity::address::{ForwardedHeader, Network, TrustedProxies};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let values: Vec<&str> = text.split('\n').collect();
    let peer: IpAddr = [10, 0, 0, 1].into();
    let none = TrustedProxies::default();
    assert_eq!(none.client_address(peer, &values), Some(peer));
    for header in [ForwardedHeader::XForwardedFor, ForwardedHeader::Forwarded] {
        let trusted = TrustedProxies::new(vec!["10.0.0.0/8".parse().expect("a CIDR")], header);
        let client = trusted.client_address(peer, &values);
        assert!(Network::of(client).as_str().ends_with('x'));
    }
});
