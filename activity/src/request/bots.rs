//! Bot user agents: a list of words, compiled once into one automaton.
//!
//! The default words are a data file (`bots.txt`) rather than code, so the
//! list can be read and extended without reading Rust. Matching is one pass
//! of an Aho–Corasick automaton over the agent, case-insensitively.
//!
//! Two shapes catch what no word does: an agent with no parenthesised
//! platform and no browser or device-profile name (`Zabbix`, `Viber`), and
//! `(compatible; …)` naming something other than a browser
//! (`Mozilla/5.0 (compatible; Attracta)`). Real browsers, old phones
//! included, have neither shape.

use std::sync::Arc;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};

use crate::request::known_agents::{Known, KnownAgents};

const DEFAULT_WORDS: &str = include_str!("bots.txt");

/// Names that contain a bot word but belong to people's devices (the CUBOT
/// phone brand contains "bot").
const NOT_BOTS: &[&str] = &["cubot"];

/// Names a browser's agent carries; an agent with none of them and no
/// parenthesised platform is not a browser.
const BROWSER_NAMES: &[&str] = &[
    "mozilla",
    "opera",
    "midp",
    "profile/",
    "ucweb",
    "cldc",
    "safari",
    "applewebkit",
];

/// Browsers that say `(compatible; NAME`: anything else saying it is a tool.
const COMPATIBLE_BROWSERS: &[&str] = &["msie", "konqueror"];

/// What in a user agent shows it is a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BotSign<'a> {
    /// It contains one of the bot words.
    Word(&'a str),
    /// It has a shape no browser's agent has (described in words).
    Shape(&'static str),
}

/// A compiled set of bot words, with the decisions already made (shared
/// by clones: they are decisions of the same words).
#[derive(Clone, Debug)]
pub struct BotPatterns {
    words: Vec<String>,
    automaton: AhoCorasick,
    exceptions: AhoCorasick,
    verdicts: Arc<KnownAgents>,
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
    pub fn new(words: Vec<String>) -> Result<Self, BotWordsError> {
        if words.iter().any(|word| word.trim().is_empty()) {
            return Err(BotWordsError::Empty);
        }
        let automaton = case_insensitive(&words)?;
        let exceptions = case_insensitive(NOT_BOTS)?;
        Ok(Self {
            words,
            automaton,
            exceptions,
            verdicts: Arc::new(KnownAgents::new()),
        })
    }

    /// What shows `agent` is a bot, if anything: a bot word (the leftmost,
    /// longest first), else a shape no browser has. Decided once per agent
    /// and kept (a bounded set, keyed by a hash of the agent).
    pub fn find(&self, agent: &str) -> Option<BotSign<'_>> {
        let verdict = self.verdicts.get_or(agent, || {
            if let Some(index) = self.word_index(agent) {
                return Known::Word(index);
            }
            shape_of(agent).map_or(Known::None, Known::Shape)
        });
        match verdict {
            Known::None => None,
            Known::Word(index) => Some(BotSign::Word(self.words[index].as_str())),
            Known::Shape(shape) => Some(BotSign::Shape(shape)),
        }
    }

    /// The bot word `agent` contains, if any (the leftmost, longest first).
    pub fn find_word(&self, agent: &str) -> Option<&str> {
        self.word_index(agent)
            .map(|index| self.words[index].as_str())
    }

    /// The index of [`find_word`](Self::find_word)'s word in the list.
    fn word_index(&self, agent: &str) -> Option<usize> {
        let mut found = self.automaton.find_iter(agent).peekable();
        found.peek()?;
        let exceptions: Vec<_> = self.exceptions.find_iter(agent).collect();
        found
            .find(|hit| {
                !exceptions
                    .iter()
                    .any(|ex| ex.start() <= hit.start() && hit.end() <= ex.end())
            })
            .map(|hit| hit.pattern().as_usize())
    }

    /// The words this set matches.
    pub fn words(&self) -> &[String] {
        &self.words
    }
}

/// The shape that shows a non-browser agent, if it has one.
fn shape_of(agent: &str) -> Option<&'static str> {
    let lower = agent.to_ascii_lowercase();
    if !lower.contains('(') && !BROWSER_NAMES.iter().any(|name| lower.contains(name)) {
        return Some("names no browser");
    }
    let (_, after) = lower.split_once("(compatible")?;
    let named = match after.strip_prefix(';') {
        Some(rest) => rest.trim_start(),
        None if after.starts_with(')') => "",
        None => return None,
    };
    (!COMPATIBLE_BROWSERS
        .iter()
        .any(|browser| named.starts_with(browser)))
    .then_some("says it is compatible but names no browser")
}

/// Why a list of bot words cannot be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BotWordsError {
    /// An empty word would match every agent.
    #[error("a bot word is empty; it would match every user agent")]
    Empty,
    /// The pattern compiler refused the words.
    #[error("cannot compile the bot words: {0}")]
    Compile(String),
}

fn case_insensitive<S: AsRef<[u8]>>(words: &[S]) -> Result<AhoCorasick, BotWordsError> {
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostLongest)
        // A full DFA: one table lookup per byte; the word list is small
        // enough for its table to stay in cache.
        .kind(Some(AhoCorasickKind::DFA))
        .build(words)
        .map_err(|error| BotWordsError::Compile(error.to_string()))
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
        assert_eq!(bots.find(googlebot), Some(BotSign::Word("bot")));
        assert_eq!(bots.find("curl/8.5.0"), Some(BotSign::Word("curl")));
        assert_eq!(
            bots.find("python-requests/2.31"),
            Some(BotSign::Word("python"))
        );
        let headless = "Mozilla/5.0 HeadlessChrome/120.0";
        assert_eq!(bots.find(headless), Some(BotSign::Word("headless")));
        assert_eq!(bots.find("Viber"), Some(BotSign::Shape("names no browser")));
        assert_eq!(
            bots.find("Mozilla/5.0 (compatible; Attracta)"),
            Some(BotSign::Shape("says it is compatible but names no browser"))
        );
        let msie = "Mozilla/4.0 (compatible; MSIE 8.0; Windows NT 6.1; Trident/4.0)";
        assert_eq!(bots.find(msie), None);
    }

    #[test]
    fn browsers_are_not_bots() {
        let bots = patterns();
        for agent in [
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
            "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            "Nokia6230/2.0 (04.44) Profile/MIDP-2.0 Configuration/CLDC-1.1",
            "Mozilla/5.0 (Linux; Android 13; CUBOT KINGKONG 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36",
        ] {
            assert_eq!(bots.find(agent), None, "{agent}");
        }
    }

    #[test]
    fn a_kept_decision_is_the_one_made_fresh() {
        let bots = patterns();
        let unkept = patterns();
        for agent in [
            "curl/8.5.0",
            "Viber",
            "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
            "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        ] {
            // Asked of patterns that have kept nothing yet.
            let fresh = unkept.find(agent);
            assert_eq!(bots.find(agent), fresh, "{agent}");
            assert_eq!(bots.find(agent), fresh, "{agent}, kept");
        }
        // Other words are other patterns, with decisions of their own.
        let other = BotPatterns::new(vec!["firefox".into()]).expect("compiles");
        let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
        assert_eq!(bots.find(firefox), None);
        assert_eq!(other.find(firefox), Some(BotSign::Word("firefox")));
    }

    #[test]
    fn empty_words_are_refused() {
        assert!(BotPatterns::new(vec!["bot".into(), " ".into()]).is_err());
    }
}
