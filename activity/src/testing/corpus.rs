//! Finding the third-party corpus (`../shared/corpus/`, kept beside the
//! repository, never in it) for the tests that replay it.
//!
//! A stranger's plain clone has no corpus: those tests skip, each printing
//! one line that starts with `SKIPPED:` (the test command counts them).
//! Under CI (`CI=true`) the corpus is promised, so a missing one fails the
//! test instead of skipping it.

use std::path::{Path, PathBuf};

/// Whether this run is CI's (`CI=true`), where nothing may be skipped.
pub fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|value| value.eq_ignore_ascii_case("true"))
}

/// The corpus folder `part` (e.g. `access-logs`) beside the workspace whose
/// member's manifest folder is `manifest_dir`; `None`, with a `SKIPPED:`
/// line on stderr, when it is not there. Panics under CI.
pub fn folder(manifest_dir: &str, part: &str) -> Option<PathBuf> {
    let workspace = Path::new(manifest_dir)
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").is_file())
        .unwrap_or(Path::new(manifest_dir));
    let folder = workspace.join("../shared/corpus").join(part);
    if folder.is_dir() {
        return Some(folder);
    }
    assert!(
        !under_ci(),
        "CI=true and the corpus is missing at {}: these tests must run",
        folder.display()
    );
    eprintln!(
        "SKIPPED: no corpus at {} (a plain clone has none; CI does)",
        folder.display()
    );
    None
}
