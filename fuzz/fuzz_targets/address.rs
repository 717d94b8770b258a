//! Addresses as written in headers and logs: never a panic; what parses is
//! an address whose network never keeps a whole one.
#![no_main]

use activity::address::{Network, parse_address};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(ip) = parse_address(text) {
        let network = Network::of(Some(ip));
        assert!(network.as_str().ends_with('x'), "a network, not an address");
        assert_eq!(Network::parse(network.as_str()), Some(network));
    }
    let _ = Network::parse(text);
});
