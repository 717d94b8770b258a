//! The data folder as servers share it. Starting is done under a lock
//! (`DATA_DIR/start.lock`): two servers started at once on a fresh folder
//! do not both make day keys or both run the migrations — the second waits
//! for the first and then reads what it made. A serving server leaves a
//! mark (`DATA_DIR/serving-PID`) that a clean stop removes: a mark whose
//! process is gone says the last run stopped uncleanly (killed, crashed,
//! the machine lost power), and what that can lose is said in the log.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long a start waits for another server's start to finish.
const WAIT: Duration = Duration::from_secs(60);

/// The start lock, held until dropped.
#[derive(Debug)]
pub struct StartLock {
    _file: File,
}

/// Takes the start lock of `data_dir` (making the folder if need be),
/// waiting while another server holds it. An error says why the folder
/// cannot be written (a read-only folder has nothing to race on).
pub async fn lock(data_dir: &Path) -> Result<StartLock, String> {
    std::fs::create_dir_all(data_dir)
        .map_err(|error| format!("cannot make the data folder: {error}"))?;
    let file = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(data_dir.join("start.lock"))
        .map_err(|error| format!("cannot write in the data folder: {error}"))?;
    let started = Instant::now();
    let mut told = false;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(StartLock { _file: file }),
            Err(std::fs::TryLockError::WouldBlock) if started.elapsed() < WAIT => {
                if !told {
                    tracing::info!(
                        "another server is starting on this data folder; waiting for it"
                    );
                    told = true;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(format!(
                    "another server has held the data folder's start lock for over {} s",
                    WAIT.as_secs()
                ));
            }
            Err(std::fs::TryLockError::Error(error)) => {
                return Err(format!("cannot lock the data folder: {error}"));
            }
        }
    }
}

/// This server's mark in the data folder, removed by [`Serving::stopped`].
#[derive(Debug)]
pub struct Serving {
    path: PathBuf,
}

impl Serving {
    /// Says in the log if an earlier run on `data_dir` stopped uncleanly
    /// (its mark is there and its process is gone; the mark is then
    /// removed), and leaves this server's mark. Call it under the
    /// [`StartLock`]. `None` if the mark cannot be written.
    pub fn begin(data_dir: &Path, flush: Duration) -> Option<Self> {
        for (pid, mark) in marks(data_dir) {
            if process_is_gone(pid) {
                tracing::warn!(
                    pid,
                    "the last run on this data folder did not stop cleanly (killed, crashed or the power went): \
                     the hits it had not yet written are lost — at most what arrived in its last {} ms, \
                     or everything it held for a store that was failing",
                    flush.as_millis()
                );
                let _ = std::fs::remove_file(mark);
            }
        }
        let path = data_dir.join(format!("serving-{}", std::process::id()));
        std::fs::write(&path, b"").ok()?;
        Some(Self { path })
    }

    /// The server stopped cleanly, having written what it held.
    pub fn stopped(self) {
        drop(self);
    }
}

/// The mark goes whenever the server does not go on: a clean stop, or a
/// start that failed after the mark was left (it served nothing, so it
/// lost nothing). Only a process that is killed or crashes leaves it.
impl Drop for Serving {
    fn drop(&mut self) {
        if let Err(error) = std::fs::remove_file(&self.path) {
            tracing::warn!(%error, "cannot remove this server's mark from the data folder");
        }
    }
}

/// The `serving-PID` marks in `data_dir`.
fn marks(data_dir: &Path) -> Vec<(u32, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(data_dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name();
            let pid = name.to_str()?.strip_prefix("serving-")?.parse().ok()?;
            Some((pid, entry.path()))
        })
        .collect()
}

/// Whether no process `pid` runs (on Linux, `/proc` says; elsewhere a mark
/// of another process is taken as a run that ended without removing it).
fn process_is_gone(pid: u32) -> bool {
    if pid == std::process::id() {
        return false;
    }
    let proc = Path::new("/proc");
    if proc.join("self").exists() {
        !proc.join(pid.to_string()).exists()
    } else {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_second_start_waits_for_the_first() {
        let folder = tempfile::tempdir().expect("a folder");
        let first = lock(folder.path()).await.expect("locks");
        let waiting = tokio::spawn({
            let path = folder.path().to_owned();
            async move { lock(&path).await.map(|_| Instant::now()) }
        });
        tokio::time::sleep(Duration::from_millis(300)).await;
        let released = Instant::now();
        drop(first);
        let got = waiting.await.expect("runs").expect("locks after");
        assert!(got >= released, "the second waited for the first");
    }

    #[test]
    fn a_mark_without_its_process_is_an_unclean_stop() {
        let folder = tempfile::tempdir().expect("a folder");
        // No process has this number (above the kernel's pid_max).
        std::fs::write(folder.path().join("serving-4194305"), b"").expect("written");
        let serving = Serving::begin(folder.path(), Duration::from_secs(1)).expect("marks");
        assert!(
            !folder.path().join("serving-4194305").exists(),
            "the old mark goes"
        );
        assert!(serving.path.exists());
        serving.stopped();
        assert!(marks(folder.path()).is_empty());
    }
}
