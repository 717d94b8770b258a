//! Bot user agents: a list of words, compiled once into one automaton.
//!
//! The default words are a data file (`bots.txt`) rather than code, so the
//! list can be read and extended without reading Rust. Matching is one pass
//! of an Aho–Corasick automaton over the agent, case-insensitively.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use crate::rules::RulesError;

const DEFAULT_WORDS: &str = include_str!("bots.txt");

/// Names that contain a bot word but belong to people's devices (the CUBOT
/// phone brand contains "bot").
const NOT_BOTS: &[&str] = &["cubot"];

/// A compiled set of bot words.
#[derive(Clone, Debug)]
pub struct BotPatterns {
    words: Vec<String>,
    automaton: AhoCorasick,
    exceptions: AhoCorasick,
}

impl BotPatterns {
    /// The default words (from `bots.txt`), lowercased, without comments.
    pub fn default_words() -> Vec<String> {
        DEFAULT_WORDS
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(str::to_ascii_lowercase)
            .collect()
    }

    /// Compiles a list of words (matched as case-insensitive substrings).
    pub fn new(words: Vec<String>) -> Result<Self, RulesError> {
        if words.iter().any(|word| word.trim().is_empty()) {
            return Err(RulesError::EmptyBotWord);
        }
        let automaton = case_insensitive(&words)?;
        let exceptions = case_insensitive(NOT_BOTS)?;
        Ok(Self {
            words,
            automaton,
            exceptions,
        })
    }

    /// The bot word `agent` contains, if any (the leftmost, longest first).
    pub fn find(&self, agent: &str) -> Option<&str> {
        let mut found = self.automaton.find_iter(agent).peekable();
        found.peek()?;
        let exceptions: Vec<_> = self.exceptions.find_iter(agent).collect();
        found
            .find(|hit| {
                !exceptions
                    .iter()
                    .any(|ex| ex.start() <= hit.start() && hit.end() <= ex.end())
            })
            .map(|hit| self.words[hit.pattern().as_usize()].as_str())
    }

    /// The words this set matches.
    pub fn words(&self) -> &[String] {
        &self.words
    }
}

fn case_insensitive<S: AsRef<[u8]>>(words: &[S]) -> Result<AhoCorasick, RulesError> {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostLongest)
        .build(words)
        .map_err(|error| RulesError::Patterns(error.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patterns() -> BotPatterns {
        BotPatterns::new(BotPatterns::default_words()).expect("the default words compile")
    }

    #[test]
    fn crawlers_and_clients_are_found_and_named() {
        let bots = patterns();
        let googlebot = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";
        assert_eq!(bots.find(googlebot), Some("google"));
        assert_eq!(bots.find("curl/8.5.0"), Some("curl"));
        assert_eq!(bots.find("python-requests/2.31"), Some("python"));
        assert_eq!(
            bots.find("Mozilla/5.0 HeadlessChrome/120.0"),
            Some("headless")
        );
    }

    #[test]
    fn browsers_are_not_bots() {
        let bots = patterns();
        for agent in [
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
            "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            "Mozilla/5.0 (Linux; Android 13; CUBOT KINGKONG 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
        ] {
            assert_eq!(bots.find(agent), None, "{agent}");
        }
    }

    #[test]
    fn empty_words_are_refused() {
        assert!(BotPatterns::new(vec!["bot".into(), " ".into()]).is_err());
    }
}
