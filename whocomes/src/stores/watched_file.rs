//! A store's file as the server opened it: a SQLite file removed or
//! replaced under a running server (`rm activity.db`, a restore copied
//! over it) keeps the old file open, and every write would go to a file no
//! one can read. [`FileWatch`] remembers which file the path named when the
//! store was opened (its device and inode) and says when the path names
//! another file, or none.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Which file a path names: device and inode (Unix); elsewhere nothing is
/// watched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileId(u64, u64);

fn file_id(path: &Path) -> Option<FileId> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        std::fs::metadata(path)
            .ok()
            .map(|meta| FileId(meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

/// The file a store was opened on.
#[derive(Debug)]
pub struct FileWatch {
    path: PathBuf,
    opened: Mutex<Option<FileId>>,
}

impl FileWatch {
    /// Watches `path`, taking the file it names now as the store's.
    pub fn new(path: PathBuf) -> Self {
        let opened = Mutex::new(file_id(&path));
        Self { path, opened }
    }

    /// Whether the path no longer names the file the store has open.
    pub fn replaced(&self) -> bool {
        if cfg!(not(unix)) {
            return false;
        }
        let opened = *self
            .opened
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        opened.is_some() && file_id(&self.path) != opened
    }

    /// The store was opened again: the file the path names now is its.
    pub fn reopened(&self) {
        *self
            .opened
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = file_id(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(unix)]
    fn a_removed_or_replaced_file_is_noticed() {
        let folder = tempfile::tempdir().expect("a folder");
        let path = folder.path().join("activity.db");
        std::fs::write(&path, b"one").expect("written");
        // Held open, as the store holds it (so its inode is not reused).
        let _open = std::fs::File::open(&path).expect("opens");
        let watch = FileWatch::new(path.clone());
        assert!(!watch.replaced());
        std::fs::write(&path, b"written in place").expect("written");
        assert!(!watch.replaced(), "the same file, written to");
        std::fs::remove_file(&path).expect("removed");
        assert!(watch.replaced(), "removed");
        let copy = folder.path().join("copy");
        std::fs::write(&copy, b"a copy").expect("written");
        std::fs::rename(&copy, &path).expect("moved over");
        assert!(watch.replaced(), "replaced by another file");
        watch.reopened();
        assert!(
            !watch.replaced(),
            "the new file is the store's once reopened"
        );
    }
}
