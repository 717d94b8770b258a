//! Files only their owner may read (keys), written whole or not at all:
//! the new content goes next to the file, is synced, and is renamed over it.

use std::io::Write as _;
use std::path::Path;

/// Replaces `path` with `content`, owner-only (0600 on Unix), creating its
/// folder if needed. A reader never sees half a file.
pub fn replace(path: &Path, content: &[u8]) -> std::io::Result<()> {
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder)?;
    }
    let fresh = path.with_extension("new");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let mut file = options.open(&fresh)?;
    file.write_all(content)?;
    file.sync_all()?;
    std::fs::rename(&fresh, path)
}
