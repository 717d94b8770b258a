//! What a counted request leaves for the writer (SPEC §3, §6): its hit, or
//! the mark that a request for one of the page's own files leaves on its
//! visitor-day. The layer, `import` and `explain` make them from a
//! [`Decision`](crate::request::hit::Decision); the writer's queue carries
//! them.

use crate::request::hit::Hit;
use crate::request::mark::FilesMark;

/// What the writer takes from the queue: a counted request's hit, or the
/// mark a file request leaves on its visitor-day.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Seen {
    /// A counted request.
    Hit(Hit),
    /// One of the page's own files was fetched.
    Files(FilesMark),
    /// One of the page's own scripts was fetched (a file too).
    Scripts(FilesMark),
}

impl From<Hit> for Seen {
    fn from(hit: Hit) -> Self {
        Self::Hit(hit)
    }
}

impl Seen {
    /// A file's mark as the queue carries it: a script's (`scripts`) or
    /// another file's.
    pub fn mark(mark: FilesMark, scripts: bool) -> Self {
        if scripts {
            Self::Scripts(mark)
        } else {
            Self::Files(mark)
        }
    }
}
