//! The paths an hour keeps. A client chooses its paths freely, and every
//! new path of an hour would be a new hourly row (and a visitor-day's path
//! row): a scanner asking a catch-all site for random paths could fill the
//! disk. So the writer keeps at most `most` distinct paths per store and
//! hour — the first ones it sees, and after a restart the ones the store
//! already has — and counts the requests for any other under
//! [`OTHER_PATHS`]: every total stays exact, only the tail loses its name.
//! The folds of [`answered_path`](crate::request::path::answered_path) (none starts
//! with `/`) are always kept.
//!
//! Each writer keeps its own count: several servers writing one PostgreSQL
//! store keep at most `most` paths an hour each.
//!
//! Goals are bounded the same way: at most [`GOALS_PER_HOUR`] distinct goals
//! per store and hour, the rest counted under `(other goals)` (a handler
//! that names goals from what a client sent cannot make more). The goals'
//! count starts from none after a restart.

use std::collections::HashSet;

use chrono::{DateTime, Utc};

use crate::port::rows::{Seen, hour_of};
use crate::port::store::ActivityStore;
use crate::request::goal::Goal;
use crate::request::hit::StoreName;
use crate::request::path::OTHER_PATHS;

/// Hours whose paths are remembered: the current one, the one before (late
/// hits at the turn of the hour), and a few more for an import, whose
/// lines move through time.
const HOURS_KEPT: usize = 4;

/// The most distinct goals a store-hour keeps by name.
pub const GOALS_PER_HOUR: usize = 100;

/// The paths admitted per store and hour, for the last few hours seen.
#[derive(Debug)]
pub(crate) struct PathBudget {
    most: usize,
    hours: Vec<HourPaths>,
}

#[derive(Debug)]
struct HourPaths {
    store: StoreName,
    hour: DateTime<Utc>,
    paths: HashSet<String>,
    goals: HashSet<Goal>,
}

impl PathBudget {
    /// At most `most` paths per store and hour (at least one).
    pub(crate) fn new(most: usize) -> Self {
        Self {
            most: most.max(1),
            hours: Vec::with_capacity(HOURS_KEPT + 1),
        }
    }

    /// Renames to [`OTHER_PATHS`] every hit whose path its hour cannot
    /// keep. An hour seen for the first time starts from the paths `store`
    /// keeps for it (for its own name; none if it cannot say).
    pub(crate) async fn admit(&mut self, store: &dyn ActivityStore, seen: &mut [Seen]) {
        for item in seen {
            let Seen::Hit(hit) = item else { continue };
            let named = hit.path.starts_with('/');
            if !named && hit.goal.is_none() {
                continue;
            }
            let hour = hour_of(hit.at);
            let index = match self.find(&hit.store, hour) {
                Some(index) => index,
                None => self.open(store, hit.store.clone(), hour).await,
            };
            if let Some(goal) = hit.goal.as_mut() {
                let kept = &mut self.hours[index].goals;
                if !kept.contains(goal) {
                    if kept.len() < GOALS_PER_HOUR {
                        kept.insert(goal.clone());
                    } else {
                        *goal = Goal::other();
                    }
                }
            }
            if !named {
                continue;
            }
            let kept = &mut self.hours[index].paths;
            if kept.contains(&hit.path) {
                continue;
            }
            if kept.len() < self.most {
                kept.insert(hit.path.clone());
            } else {
                OTHER_PATHS.clone_into(&mut hit.path);
            }
        }
    }

    fn find(&self, store: &StoreName, hour: DateTime<Utc>) -> Option<usize> {
        self.hours
            .iter()
            .position(|kept| kept.hour == hour && kept.store == *store)
    }

    /// Starts remembering an hour (forgetting the oldest beyond
    /// [`HOURS_KEPT`]); returns its index.
    async fn open(
        &mut self,
        store: &dyn ActivityStore,
        name: StoreName,
        hour: DateTime<Utc>,
    ) -> usize {
        let paths = if *store.name() == name {
            match store.paths_in_hour(hour).await {
                Ok(paths) => paths,
                Err(error) => {
                    tracing::debug!(%error, "cannot read an hour's paths; counting them from none");
                    Vec::new()
                }
            }
        } else {
            Vec::new()
        };
        if self.hours.len() >= HOURS_KEPT
            && let Some(oldest) = (0..self.hours.len()).min_by_key(|&i| self.hours[i].hour)
        {
            self.hours.swap_remove(oldest);
        }
        self.hours.push(HourPaths {
            store: name,
            hour,
            // The store's own folds are not paths of the budget.
            paths: paths
                .into_iter()
                .filter(|path| path.starts_with('/'))
                .collect(),
            goals: HashSet::new(),
        });
        self.hours.len() - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::port::rows::{Batch, HourRow};
    use crate::port::store::{MemoryStore, Retention};
    use crate::request::evidence::{Evidence, Shape};
    use crate::request::hit::Hit;
    use crate::request::kind::Kind;
    use crate::visitor::address::Network;
    use crate::visitor::token::VisitorToken;
    use chrono::TimeZone as _;

    fn name() -> StoreName {
        StoreName::parse("sqlite").expect("name")
    }

    fn hit(minute: u32, path: &str) -> Seen {
        Seen::Hit(Hit {
            at: Utc.with_ymd_and_hms(2026, 12, 3, 10, minute, 0).unwrap(),
            visitor: VisitorToken::parse("0123456789abcdef0123456789abcdef").expect("token"),
            network: Network::of(None),
            country: None,
            path: path.to_owned(),
            store: name(),
            kind: Kind::Bot,
            campaign: None,
            goal: None,
            source: None,
            shape: Shape::Api,
            evidence: Evidence::default(),
            bot_class: None,
        })
    }

    fn paths(seen: &[Seen]) -> Vec<&str> {
        seen.iter()
            .map(|item| match item {
                Seen::Hit(hit) => hit.path.as_str(),
                _ => "",
            })
            .collect()
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(future)
    }

    #[test]
    fn an_hour_keeps_its_first_paths_and_counts_the_rest_as_other() {
        let store = MemoryStore::new(name(), Retention::default());
        let mut budget = PathBudget::new(2);
        let mut seen = vec![
            hit(1, "/a"),
            hit(2, "/b"),
            hit(3, "/c"),
            hit(4, "/a"),
            hit(5, crate::request::path::NOT_FOUND),
        ];
        block_on(budget.admit(&store, &mut seen));
        assert_eq!(
            paths(&seen),
            [
                "/a",
                "/b",
                OTHER_PATHS,
                "/a",
                crate::request::path::NOT_FOUND
            ]
        );
        let batch = Batch::fold_all(&seen);
        assert_eq!(batch.hits, 5, "every request still counted");
        assert_eq!(batch.hours.len(), 4);
    }

    #[test]
    fn an_hour_keeps_its_first_goals_and_counts_the_rest_as_other_goals() {
        let store = MemoryStore::new(name(), Retention::default());
        let mut budget = PathBudget::new(10);
        let mut seen: Vec<Seen> = (0..GOALS_PER_HOUR + 5)
            .map(|n| match hit(1, crate::request::path::NOT_FOUND) {
                Seen::Hit(hit) => Seen::Hit(Hit {
                    goal: Some(Goal::new(&format!("goal {n}")).expect("a label")),
                    ..hit
                }),
                other => other,
            })
            .collect();
        block_on(budget.admit(&store, &mut seen));
        let goals: Vec<String> = seen
            .iter()
            .filter_map(|item| match item {
                Seen::Hit(hit) => hit.goal.as_ref().map(ToString::to_string),
                _ => None,
            })
            .collect();
        assert_eq!(goals.len(), GOALS_PER_HOUR + 5, "every goal still counted");
        assert_eq!(
            goals[GOALS_PER_HOUR - 1],
            format!("goal {}", GOALS_PER_HOUR - 1)
        );
        assert!(goals[GOALS_PER_HOUR..].iter().all(|g| g == "(other goals)"));
        assert_eq!(Batch::fold_all(&seen).hits, (GOALS_PER_HOUR + 5) as u64);
    }

    #[test]
    fn after_a_restart_the_hour_starts_from_what_the_store_keeps() {
        let store = MemoryStore::new(name(), Retention::default());
        let hour = Utc.with_ymd_and_hms(2026, 12, 3, 10, 0, 0).unwrap();
        let kept = |path: &str| HourRow {
            store: name(),
            hour,
            path: path.to_owned(),
            requests: 1,
            bots: 1,
            self_reads: 0,
        };
        let batch = Batch {
            hours: vec![kept("/x"), kept("/y")],
            hits: 2,
            ..Batch::default()
        };
        block_on(store.record(&batch)).expect("records");
        let mut budget = PathBudget::new(2);
        let mut seen = vec![hit(10, "/y"), hit(11, "/new")];
        block_on(budget.admit(&store, &mut seen));
        assert_eq!(paths(&seen), ["/y", OTHER_PATHS]);
    }

    #[test]
    fn a_new_hour_has_its_own_paths_and_old_hours_are_forgotten() {
        let store = MemoryStore::new(name(), Retention::default());
        let mut budget = PathBudget::new(1);
        for hour in 0..10 {
            let mut seen = vec![Seen::Hit(Hit {
                at: Utc.with_ymd_and_hms(2026, 12, 3, hour, 0, 0).unwrap(),
                ..match hit(0, &format!("/{hour}")) {
                    Seen::Hit(hit) => hit,
                    _ => unreachable!(),
                }
            })];
            block_on(budget.admit(&store, &mut seen));
            assert_eq!(paths(&seen), [format!("/{hour}").as_str()]);
        }
        assert!(budget.hours.len() <= HOURS_KEPT);
    }
}
