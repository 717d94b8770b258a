//! Once per episode: a condition that starts to hold opens an episode (the
//! owner is told once), and the episode ends (told once more, "recovered")
//! only after the condition has not held for a number of looks in a row,
//! so a condition that flaps is one episode, not a message an hour. The
//! open episodes are kept with what was sent (`outbox.rs`), so a restart
//! neither tells nor forgets one twice.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// The episodes open now, by topic (`spike`, `drop`, `store-down:NAME`…).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Episodes {
    open: BTreeMap<String, Open>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Open {
    since: DateTime<Utc>,
    /// Looks in a row without the condition.
    calm: u32,
}

/// What one look changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// An episode began.
    Raised,
    /// The episode that began at `since` is over.
    Recovered {
        /// When it began.
        since: DateTime<Utc>,
    },
}

impl Episodes {
    /// One look at `topic`'s condition at `now`: `holds` says whether it
    /// holds, `calm_looks` how many looks in a row without it end an
    /// episode (at least one).
    pub fn look(
        &mut self,
        topic: &str,
        holds: bool,
        calm_looks: u32,
        now: DateTime<Utc>,
    ) -> Option<Change> {
        match (self.open.get_mut(topic), holds) {
            (None, false) => None,
            (None, true) => {
                self.open.insert(
                    topic.to_owned(),
                    Open {
                        since: now,
                        calm: 0,
                    },
                );
                Some(Change::Raised)
            }
            (Some(open), true) => {
                open.calm = 0;
                None
            }
            (Some(open), false) => {
                open.calm += 1;
                if open.calm < calm_looks.max(1) {
                    return None;
                }
                let since = open.since;
                self.open.remove(topic);
                Some(Change::Recovered { since })
            }
        }
    }

    /// Whether `topic` has an episode open.
    pub fn is_open(&self, topic: &str) -> bool {
        self.open.contains_key(topic)
    }

    /// The topics with an episode open, and since when.
    pub fn open(&self) -> impl Iterator<Item = (&str, DateTime<Utc>)> {
        self.open
            .iter()
            .map(|(topic, open)| (topic.as_str(), open.since))
    }
}
