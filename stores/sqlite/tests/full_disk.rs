//! A full disk under a SQLite file: writes fail while it lasts, and a
//! named batch sent again once there is room is added exactly once (no
//! connection left in a transaction the driver lost track of answers "added
//! already" for a batch it never kept). Needs a tmpfs of its own, so root;
//! elsewhere it says it skipped.
#![allow(clippy::print_stdout)]

use std::io::Write;
use std::path::Path;
use std::process::Command;

use activity::StoreName;
use activity::rows::{BatchId, HourRow};
use activity::sample::day_rows;
use activity::store::{ActivityStore, Retention};
use chrono::{DateTime, Utc};
use whocomes_sqlite::SqliteStore;

/// A small tmpfs on a folder of its own, unmounted on drop.
struct Mounted(tempfile::TempDir);

impl Mounted {
    fn new() -> Option<Self> {
        let folder = tempfile::tempdir().expect("a folder");
        Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=16m", "tmpfs"])
            .arg(folder.path())
            .status()
            .is_ok_and(|status| status.success())
            .then_some(Self(folder))
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.0.path()).status();
    }
}

/// Fills the file system holding `folder` to its last byte.
fn fill(folder: &Path) -> std::path::PathBuf {
    let filler = folder.join("filler");
    let mut file = std::fs::File::create(&filler).expect("a filler");
    let block = vec![0u8; 1 << 20];
    while file.write_all(&block).is_ok() {}
    while file.write_all(&block[..4096]).is_ok() {}
    filler
}

async fn requests(store: &SqliteStore) -> u64 {
    let hours: Vec<HourRow> = store
        .hours_since(DateTime::UNIX_EPOCH)
        .await
        .expect("reads");
    hours.iter().map(|hour| hour.requests).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_refused_by_a_full_disk_is_added_once_when_there_is_room() {
    let Some(mounted) = Mounted::new() else {
        println!("SKIPPED: cannot mount a tmpfs here (needs root), so no disk to fill");
        return;
    };
    let name = StoreName::parse("sqlite").expect("a name");
    let path = mounted.0.path().join("activity.db");
    let store = SqliteStore::open(
        path.to_str().expect("UTF-8"),
        name.clone(),
        Retention::default(),
    )
    .await
    .expect("opens");
    let day = Utc::now().date_naive();
    for seed in 0..3u8 {
        let mut batch = day_rows(&name, day, 50, u64::from(seed));
        batch.id = Some(BatchId::from_bytes([seed; 16]));
        store
            .record(&batch)
            .await
            .expect("written while there is room");
    }
    let before = requests(&store).await;

    let filler = fill(mounted.0.path());
    let mut batch = day_rows(&name, day, 200, 99);
    batch.id = Some(BatchId::from_bytes([99; 16]));
    let wanted: u64 = batch.hours.iter().map(|hour| hour.requests).sum();
    let mut refused = 0;
    for _ in 0..6 {
        if store.record(&batch).await.is_err() {
            refused += 1;
        }
    }
    assert!(refused > 0, "a full disk refuses the write");

    std::fs::remove_file(filler).expect("room again");
    store
        .record(&batch)
        .await
        .expect("written once there is room");
    store
        .record(&batch)
        .await
        .expect("sent again, it adds nothing");
    assert_eq!(
        requests(&store).await,
        before + wanted,
        "the batch is added once ({refused} of 6 tries refused while the disk was full)"
    );
    store.close().await;
}
