//! A goal: a name a site gives to what some requests achieve (`signup`,
//! `download`, `purchase`), marked by the site's own handler or by a path
//! the operator names (`--goal signup=/welcome`).
//!
//! A goal's name is a label, checked as a campaign's labels are
//! ([`is_label`]): at most 64 characters of letters, digits, spaces and
//! `-_.+`, no `@`, no run of 6 digits, no IP address. A name made from
//! something about a person (an e-mail, an order number) is refused where it
//! is made, so a store never holds one.
//!
//! A handler marks its request by putting the goal in its response's
//! extensions (with axum: `(Extension(Goal::new("signup")?), body)`); the
//! recording layer reads it there once the answer comes, on a counted request.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::campaign::is_label;

/// What a visitor-day's goals beyond the bound are counted under.
pub const OTHER_GOALS: &str = "(other goals)";

/// The most distinct goals one visitor-day keeps by name; the rest are
/// counted under [`OTHER_GOALS`].
pub const GOALS_PER_VISITOR_DAY: usize = 32;

/// A goal's name, checked: see the module's words.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Goal(String);

/// Why a name is not a goal's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "a goal's name is at most 64 letters, digits, spaces and -_.+, with no @, \
     no run of 6 digits and no IP address"
)]
pub struct GoalError;

impl Goal {
    /// The goal named `name` (trimmed), if the name is a label.
    pub fn new(name: &str) -> Result<Self, GoalError> {
        let name = name.trim();
        if is_label(name) || name == OTHER_GOALS {
            Ok(Self(name.to_owned()))
        } else {
            Err(GoalError)
        }
    }

    /// Where the goals past a visitor-day's bound are counted.
    pub fn other() -> Self {
        Self(OTHER_GOALS.to_owned())
    }

    /// Its name.
    pub fn name(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for Goal {
    type Error = GoalError;

    fn try_from(name: String) -> Result<Self, GoalError> {
        Self::new(&name)
    }
}

impl From<Goal> for String {
    fn from(goal: Goal) -> String {
        goal.0
    }
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for Goal {
    type Err = GoalError;

    fn from_str(name: &str) -> Result<Self, GoalError> {
        Self::new(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_label_is_a_goal_and_what_names_a_person_is_not() {
        for name in ["signup", "download pdf", "plan.pro+yearly", "Anmeldung-2"] {
            assert_eq!(Goal::new(name).map(|g| g.to_string()), Ok(name.to_owned()));
        }
        for name in [
            "",
            "ann@example.com",
            "order 1234567",
            "from 203.0.113.7",
            "a/b",
            &"x".repeat(65),
        ] {
            assert_eq!(Goal::new(name), Err(GoalError), "{name:?}");
        }
    }

    #[test]
    fn a_name_read_back_is_checked_again() {
        assert!(serde_json::from_str::<Goal>("\"signup\"").is_ok());
        assert!(serde_json::from_str::<Goal>("\"ann@example.com\"").is_err());
        assert_eq!(
            serde_json::to_string(&Goal::new("signup").expect("a label")).expect("JSON"),
            "\"signup\""
        );
    }
}
