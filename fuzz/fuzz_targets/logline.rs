//! Access-log lines: never a panic, in either format; what parses has a
//! method of capital letters and a target of visible bytes.
#![no_main]

use activity::logline::{LogFormat, parse};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for format in [LogFormat::Combined, LogFormat::Common] {
        if let Ok(request) = parse(data, format) {
            assert!(request.method.bytes().all(|b| b.is_ascii_uppercase()));
            assert!(request.target.iter().all(u8::is_ascii_graphic));
            assert!((100..=599).contains(&request.status));
        }
    }
});
