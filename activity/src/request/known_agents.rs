//! The decisions already made, by user agent: whether it is a bot's, and
//! (keyed by the agent with its client hints) what it claims and whether
//! its hints agree (`request::consistency`). Real traffic repeats a few
//! hundred agents, so most requests skip the bot-word automaton and the
//! shape checks (about 300 ns for a browser's agent), and the agent's
//! reading (about 300 ns more).
//!
//! Bounded ([`CAPACITY`] agents, `quick_cache`'s eviction keeps the ones
//! that come back), shared by every request thread. Keyed by a hash of the
//! agent under a key random to this process: the agent's text is not kept,
//! and a client cannot aim its agent at another agent's entry.

use std::hash::BuildHasher as _;

/// How many agents' decisions are kept.
pub(crate) const CAPACITY: usize = 4_096;

/// What [`BotPatterns::find`](crate::request::bots::BotPatterns::find) decided,
/// without borrowing from the patterns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Known {
    /// No sign of a bot.
    None,
    /// The bot word at this index of the word list.
    Word(usize),
    /// A shape no browser's agent has.
    Shape(&'static str),
}

/// Decisions by agent (a [`Known`] bot decision unless said otherwise).
pub(crate) struct KnownAgents<V = Known> {
    cache: quick_cache::sync::Cache<u64, V>,
    hasher: foldhash::quality::RandomState,
}

impl<V: Clone> KnownAgents<V> {
    pub(crate) fn new() -> Self {
        Self {
            cache: quick_cache::sync::Cache::new(CAPACITY),
            hasher: foldhash::quality::RandomState::default(),
        }
    }

    /// The decision for these texts together (an agent and its hints):
    /// kept, or made by `decide` and kept.
    pub(crate) fn get_or_parts(&self, parts: &[Option<&str>], decide: impl FnOnce() -> V) -> V {
        // Each part's length goes into the hash with its bytes.
        let key = self.hasher.hash_one(parts);
        if let Some(verdict) = self.cache.get(&key) {
            return verdict;
        }
        let verdict = decide();
        self.cache.insert(key, verdict.clone());
        verdict
    }

    /// The decision for `agent`: kept, or made by `decide` and kept.
    pub(crate) fn get_or(&self, agent: &str, decide: impl FnOnce() -> V) -> V {
        // The length too, so that two agents must agree on it to collide.
        let key = self.hasher.hash_one(agent) ^ (agent.len() as u64).rotate_left(48);
        if let Some(verdict) = self.cache.get(&key) {
            return verdict;
        }
        let verdict = decide();
        self.cache.insert(key, verdict.clone());
        verdict
    }

    /// How many decisions are kept.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.cache.len()
    }
}

impl<V: Clone> std::fmt::Debug for KnownAgents<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KnownAgents")
            .field("kept", &self.cache.len())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decision_is_made_once_and_kept() {
        let verdicts = KnownAgents::new();
        let made = std::cell::Cell::new(0);
        let decide = || {
            made.set(made.get() + 1);
            Known::Word(3)
        };
        assert_eq!(verdicts.get_or("curl/8.5.0", decide), Known::Word(3));
        assert_eq!(
            verdicts.get_or("curl/8.5.0", || Known::None),
            Known::Word(3)
        );
        assert_eq!(made.get(), 1);
        assert_eq!(verdicts.get_or("curl/8.6.0", || Known::None), Known::None);
    }

    #[test]
    fn a_flood_of_new_agents_stays_bounded() {
        let verdicts = KnownAgents::new();
        for n in 0..CAPACITY * 4 {
            verdicts.get_or(&format!("agent {n}"), || Known::None);
        }
        assert!(verdicts.len() <= CAPACITY, "{} kept", verdicts.len());
    }
}
