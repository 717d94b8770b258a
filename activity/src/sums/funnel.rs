//! A site's funnel: the steps it names, each the paths that take it, as a
//! site owner writes them (`NAME=PATH[,PATH…]`), and the checks that refuse
//! a funnel the tab could not draw or a hit could never take.
//!
//! A step can name a goal instead of a path: `signup=goal:signup` is taken
//! by a visitor-day that reached the goal `signup` (see `goal::Goal`).
//!
//! whocomes has no funnel of its own: a site that names none sees a card
//! saying how to name one (SPEC §7).

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::request::path::{MAX_PATH_BYTES, clean_path};

/// The most steps a funnel may have: a funnel is a handful of pages in
/// order, and each step is a row of the card.
pub const MAX_FUNNEL_STEPS: usize = 8;

/// The most paths one step may name.
pub const MAX_STEP_PATHS: usize = 16;

/// The longest step name, in characters.
pub const MAX_STEP_NAME_CHARS: usize = 40;

/// One step of the path through the site: a name and the paths that count
/// as taking it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunnelStep {
    /// The step's name on the dashboard.
    pub name: String,
    /// Requesting any of these paths takes the step.
    pub paths: Vec<String>,
}

/// Why a funnel, or one of its steps, is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FunnelError {
    /// A step without `=` between its name and its paths.
    #[error(
        "a funnel step is NAME=PATH[,PATH…] (e.g. signup=/signup,/signup/done); {0:?} has no `=`"
    )]
    NoEquals(String),
    /// A step whose name is empty, too long or not printable.
    #[error(
        "a funnel step's name is 1 to {MAX_STEP_NAME_CHARS} printable characters; {0:?} is not"
    )]
    BadName(String),
    /// A step naming no path, or too many.
    #[error("the funnel step {name:?} names {count} paths; a step names 1 to {MAX_STEP_PATHS}")]
    PathCount {
        /// The step.
        name: String,
        /// How many paths it named.
        count: usize,
    },
    /// A path a hit could never keep.
    #[error("the funnel step {name:?} has the path {path:?}: {why}")]
    BadPath {
        /// The step.
        name: String,
        /// The path as given.
        path: String,
        /// What is wrong with it.
        why: String,
    },
    /// Two steps with one name.
    #[error("two funnel steps are named {0:?}; each step needs its own name")]
    SameName(String),
    /// More steps than the card draws.
    #[error("the funnel has {0} steps; at most {MAX_FUNNEL_STEPS} are drawn")]
    TooManySteps(usize),
}

impl FromStr for FunnelStep {
    type Err = FunnelError;

    /// Reads `NAME=PATH[,PATH…]`: surrounding spaces of the name and of each
    /// path are ignored.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (name, paths) = text
            .split_once('=')
            .ok_or_else(|| FunnelError::NoEquals(text.to_owned()))?;
        let step = FunnelStep {
            name: name.trim().to_owned(),
            paths: paths
                .split(',')
                .map(str::trim)
                .filter(|path| !path.is_empty())
                .map(str::to_owned)
                .collect(),
        };
        step.check()?;
        Ok(step)
    }
}

impl fmt::Display for FunnelStep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.name, self.paths.join(","))
    }
}

impl FunnelStep {
    /// Checks the name and every path.
    pub fn check(&self) -> Result<(), FunnelError> {
        let name = &self.name;
        let chars = name.chars().count();
        if chars == 0 || chars > MAX_STEP_NAME_CHARS || name.chars().any(char::is_control) {
            return Err(FunnelError::BadName(name.clone()));
        }
        if self.paths.is_empty() || self.paths.len() > MAX_STEP_PATHS {
            return Err(FunnelError::PathCount {
                name: name.clone(),
                count: self.paths.len(),
            });
        }
        for path in &self.paths {
            if let Some(why) = path_problem(path) {
                return Err(FunnelError::BadPath {
                    name: name.clone(),
                    path: path.clone(),
                    why,
                });
            }
        }
        Ok(())
    }
}

/// How a funnel step names a goal instead of a path: `goal:NAME`.
pub const GOAL_STEP: &str = "goal:";

/// The goal a step's `path` names (`goal:signup`), if it names one.
pub fn step_goal(path: &str) -> Option<&str> {
    path.strip_prefix(GOAL_STEP)
}

/// What keeps `path` from being a path a hit keeps (or `goal:NAME` a goal),
/// if anything.
fn path_problem(path: &str) -> Option<String> {
    if let Some(goal) = step_goal(path) {
        return crate::request::goal::Goal::new(goal)
            .err()
            .map(|error| error.to_string())
            .or_else(|| {
                (goal.trim() != goal).then(|| "write the goal without spaces around it".to_owned())
            });
    }
    if !path.starts_with('/') {
        return Some("a path starts with / (or a goal is goal:NAME)".to_owned());
    }
    if path.contains(['?', '#']) {
        return Some(
            "hits keep paths without query or fragment, so a step cannot name one".to_owned(),
        );
    }
    if path.len() > MAX_PATH_BYTES {
        return Some(format!(
            "hits keep at most {MAX_PATH_BYTES} bytes of a path"
        ));
    }
    let kept = clean_path(path.as_bytes());
    if kept != path {
        return Some(format!("a hit keeps it as {kept:?}; write that"));
    }
    None
}

/// Checks a whole funnel: every step, names unique, at most
/// [`MAX_FUNNEL_STEPS`]. No step at all is a funnel too: none configured.
pub fn check_funnel(steps: &[FunnelStep]) -> Result<(), FunnelError> {
    if steps.len() > MAX_FUNNEL_STEPS {
        return Err(FunnelError::TooManySteps(steps.len()));
    }
    let mut names = BTreeSet::new();
    for step in steps {
        step.check()?;
        if !names.insert(step.name.as_str()) {
            return Err(FunnelError::SameName(step.name.clone()));
        }
    }
    Ok(())
}

/// Whether two funnels count the same: the same paths in the same steps, in
/// the same order. Names are only drawn, so a renamed step counts alike.
pub fn count_alike(a: &[FunnelStep], b: &[FunnelStep]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(a, b)| a.paths == b.paths)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(text: &str) -> Result<FunnelStep, FunnelError> {
        text.parse()
    }

    #[test]
    fn a_step_is_a_name_and_its_paths() {
        let read = step(" sign up = /signup , /signup/done,").expect("a good step");
        assert_eq!(read.name, "sign up");
        assert_eq!(read.paths, ["/signup", "/signup/done"]);
        assert_eq!(read.to_string(), "sign up=/signup,/signup/done");
        assert_eq!(step("home=/").expect("the root").paths, ["/"]);
    }

    #[test]
    fn a_bad_step_says_what_is_wrong() {
        let said = |text: &str| step(text).expect_err(text).to_string();
        assert!(said("/pricing").contains("has no `=`"));
        assert!(said("=/pricing").contains("name"));
        assert!(said("pricing=").contains("names 0 paths"));
        assert!(said("pricing=pricing").contains("starts with /"));
        assert!(said("pricing=/pricing?plan=pro").contains("without query"));
        assert!(
            said("pricing=/a b").contains("%20"),
            "{}",
            said("pricing=/a b")
        );
        assert!(said("me=/me@example").contains("%40"));
        let long = format!("long=/{}", "a".repeat(MAX_PATH_BYTES));
        assert!(said(&long).contains("at most 256 bytes"));
        let many = format!("many={}", vec!["/x"; MAX_STEP_PATHS + 1].join(","));
        assert!(said(&many).contains("names 17 paths"));
        let name = format!("{}=/", "n".repeat(MAX_STEP_NAME_CHARS + 1));
        assert!(said(&name).contains("name"));
    }

    #[test]
    fn a_funnel_has_unique_names_and_a_handful_of_steps() {
        let steps: Vec<FunnelStep> = ["home=/", "pricing=/pricing", "home=/signup"]
            .iter()
            .map(|text| step(text).expect("good"))
            .collect();
        assert_eq!(
            check_funnel(&steps),
            Err(FunnelError::SameName("home".to_owned()))
        );
        assert_eq!(check_funnel(&steps[..2]), Ok(()));
        assert_eq!(check_funnel(&[]), Ok(()), "no funnel is allowed");
        let many: Vec<FunnelStep> = (0..=MAX_FUNNEL_STEPS)
            .map(|n| step(&format!("s{n}=/{n}")).expect("good"))
            .collect();
        assert_eq!(
            check_funnel(&many),
            Err(FunnelError::TooManySteps(MAX_FUNNEL_STEPS + 1))
        );
        assert_eq!(check_funnel(&many[..MAX_FUNNEL_STEPS]), Ok(()));
    }

    #[test]
    fn renaming_a_step_counts_alike_and_moving_a_path_does_not() {
        let funnel = |texts: &[&str]| -> Vec<FunnelStep> {
            texts.iter().map(|text| step(text).expect("good")).collect()
        };
        let a = funnel(&["home=/", "buy=/buy"]);
        let renamed = funnel(&["start=/", "order=/buy"]);
        let moved = funnel(&["home=/,/buy", "buy=/buy"]);
        assert!(count_alike(&a, &renamed));
        assert!(!count_alike(&a, &moved));
        assert!(!count_alike(&a, &a[..1]));
    }
}
