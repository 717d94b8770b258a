//! Request targets: never a panic; the kept path has no query, no `@`, no
//! control character, and a bounded length.
#![no_main]

use activity::path::clean_path;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let path = clean_path(data);
    assert!(
        !path.contains('?') && !path.contains('#'),
        "no query or fragment"
    );
    assert!(!path.contains('@'), "no @");
    assert!(!path.chars().any(char::is_control), "no control characters");
    assert!(path.len() <= 600, "bounded: {}", path.len());
});
