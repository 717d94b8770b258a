//! Access-log lines: never a panic, in any format (combined with or
//! without the `whocomes` format's signs, common, Caddy's JSON); what parses
//! has a method of capital letters, a target of visible bytes, a status,
//! and signs whose scheme is http or https; the rules decide it without a
//! panic.
#![no_main]

use activity::logline::{LogFormat, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for format in [LogFormat::Combined, LogFormat::Common, LogFormat::Caddy] {
        if let Ok(request) = parse(data, format) {
            assert!(request.method.bytes().all(|b| b.is_ascii_uppercase()));
            assert!(request.target.iter().all(u8::is_ascii_graphic));
            assert!((100..=599).contains(&request.status));
            if let Some(signs) = &request.signs {
                assert!(signs.scheme == "http" || signs.scheme == "https");
            }
            let view = request.view();
            let _ = activity::consistency::contradiction(&view, true, true);
        }
    }
});
