//! Claimed crawlers, verified (SPEC §3): an agent that claims a crawler
//! whose operator publishes its address ranges (Googlebot, bingbot, GPTBot,
//! …) is checked against those ranges with the full address, before it is
//! cut. From inside, a verified crawler; from outside, a scanner wearing the
//! crawler's name. The ranges are data (`activity/data/crawler-ranges.txt`,
//! written by `scripts/refresh-crawler-ranges` from the operators' files,
//! with their source), compiled once into one prefix set per operator; an
//! operator can load a fresher file of the same format at start.
//!
//! Only an agent that already matched a bot word is looked at, so a
//! browser's request pays nothing here.

use std::net::IpAddr;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use ipnet::{IpNet, Ipv4Net, Ipv6Net};
use prefix_trie::PrefixSet;

/// The ranges shipped with whocomes (see the file's header for its source).
pub const SHIPPED: &str = include_str!("../../data/crawler-ranges.txt");

/// Why a ranges file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RangesError {
    /// A line is neither a comment, a `crawler` line nor a range.
    #[error("line {line}: '{text}' is not an address range in CIDR form (like 66.249.64.0/27)")]
    NotARange {
        /// The line's number, from 1.
        line: usize,
        /// The line, cut to 60 characters.
        text: String,
    },
    /// A range comes before any `crawler NAME WORD…` line.
    #[error("line {line}: a range before any 'crawler NAME WORD…' line")]
    NoCrawler {
        /// The line's number, from 1.
        line: usize,
    },
    /// A `crawler` line names no agent word.
    #[error("line {line}: 'crawler' needs a name and at least one agent word")]
    NoWords {
        /// The line's number, from 1.
        line: usize,
    },
    /// The file names no crawler at all.
    #[error("the file names no crawler ('crawler NAME WORD…' lines)")]
    Empty,
    /// The agent words could not be compiled into a matcher.
    #[error("cannot compile the crawlers' agent words: {0}")]
    Words(String),
}

/// One operator's crawler: its name and address ranges.
#[derive(Clone)]
struct Crawler {
    name: String,
    v4: PrefixSet<Ipv4Net>,
    v6: PrefixSet<Ipv6Net>,
    ranges: usize,
}

/// What an agent and an address say of a claimed crawler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim<'a> {
    /// The agent claims no crawler with published ranges.
    None,
    /// It claims crawler `name` and comes from its ranges.
    Verified(&'a str),
    /// It claims crawler `name` and comes from outside its ranges (or from
    /// an address nobody knows).
    Outside(&'a str),
}

/// The crawlers with published ranges, compiled.
#[derive(Clone)]
pub struct Crawlers {
    words: AhoCorasick,
    /// For each word, the index of its crawler.
    owner: Vec<usize>,
    crawlers: Vec<Crawler>,
}

impl std::fmt::Debug for Crawlers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.crawlers.iter().map(|c| (&c.name, c.ranges)))
            .finish()
    }
}

impl Crawlers {
    /// Reads a ranges file (the format of [`SHIPPED`]).
    pub fn parse(text: &str) -> Result<Self, RangesError> {
        let mut words: Vec<String> = Vec::new();
        let mut owner = Vec::new();
        let mut crawlers: Vec<Crawler> = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(rest) = line.strip_prefix("crawler ") {
                let mut parts = rest.split_whitespace();
                let (Some(name), claims) = (parts.next(), parts) else {
                    return Err(RangesError::NoWords { line: number });
                };
                let before = words.len();
                for word in claims {
                    words.push(word.to_owned());
                    owner.push(crawlers.len());
                }
                if words.len() == before {
                    return Err(RangesError::NoWords { line: number });
                }
                crawlers.push(Crawler {
                    name: name.to_owned(),
                    v4: PrefixSet::new(),
                    v6: PrefixSet::new(),
                    ranges: 0,
                });
                continue;
            }
            let range: IpNet = line.parse().map_err(|_| RangesError::NotARange {
                line: number,
                text: line.chars().take(60).collect(),
            })?;
            let crawler = crawlers
                .last_mut()
                .ok_or(RangesError::NoCrawler { line: number })?;
            match range.trunc() {
                IpNet::V4(net) => crawler.v4.insert(net),
                IpNet::V6(net) => crawler.v6.insert(net),
            };
            crawler.ranges += 1;
        }
        if crawlers.is_empty() {
            return Err(RangesError::Empty);
        }
        let words = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&words)
            .map_err(|error| RangesError::Words(error.to_string()))?;
        Ok(Self {
            words,
            owner,
            crawlers,
        })
    }

    /// The ranges shipped with whocomes.
    pub fn shipped() -> Self {
        match Self::parse(SHIPPED) {
            Ok(crawlers) => crawlers,
            Err(error) => unreachable!("the shipped crawler ranges parse: {error}"),
        }
    }

    /// The crawlers and how many ranges each has, for a start-up line.
    pub fn summary(&self) -> Vec<(&str, usize)> {
        self.crawlers
            .iter()
            .map(|crawler| (crawler.name.as_str(), crawler.ranges))
            .collect()
    }

    /// The crawler `agent` claims to be (its word followed by `/` or `-`),
    /// checked against `client`'s full address.
    pub fn check(&self, agent: &str, client: Option<IpAddr>) -> Claim<'_> {
        let bytes = agent.as_bytes();
        let claimed = self
            .words
            .find_iter(agent)
            .find(|hit| matches!(bytes.get(hit.end()), Some(b'/' | b'-')))
            .map(|hit| &self.crawlers[self.owner[hit.pattern().as_usize()]]);
        let Some(crawler) = claimed else {
            return Claim::None;
        };
        let inside = match client.map(crate::visitor::address::canonical) {
            Some(IpAddr::V4(v4)) => crawler.v4.get_spm(&Ipv4Net::from(v4)).is_some(),
            Some(IpAddr::V6(v6)) => crawler.v6.get_spm(&Ipv6Net::from(v6)).is_some(),
            None => false,
        };
        if inside {
            Claim::Verified(&crawler.name)
        } else {
            Claim::Outside(&crawler.name)
        }
    }
}

impl Default for Crawlers {
    fn default() -> Self {
        Self::shipped()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOGLEBOT: &str =
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

    fn ip(text: &str) -> Option<IpAddr> {
        text.parse().ok()
    }

    #[test]
    fn a_claimed_crawler_is_verified_by_its_operators_ranges() {
        let crawlers = Crawlers::shipped();
        assert_eq!(
            crawlers.check(GOOGLEBOT, ip("66.249.66.1")),
            Claim::Verified("googlebot")
        );
        assert_eq!(
            crawlers.check(GOOGLEBOT, ip("203.0.113.7")),
            Claim::Outside("googlebot")
        );
        assert_eq!(
            crawlers.check(GOOGLEBOT, ip("::ffff:66.249.66.1")),
            Claim::Verified("googlebot")
        );
        assert_eq!(crawlers.check(GOOGLEBOT, None), Claim::Outside("googlebot"));
        assert_eq!(
            crawlers.check(
                "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)",
                ip("157.55.39.1")
            ),
            Claim::Verified("bing")
        );
        assert_eq!(
            crawlers.check("Mozilla/5.0 (compatible; GPTBot/1.1)", ip("8.8.8.8")),
            Claim::Outside("openai")
        );
        // Naming a crawler is not claiming to be it.
        assert_eq!(
            crawlers.check("FeedFetcher (like Googlebot)", ip("203.0.113.7")),
            Claim::None
        );
        assert_eq!(crawlers.check("curl/8.5", ip("203.0.113.7")), Claim::None);
    }

    #[test]
    fn a_file_that_does_not_parse_says_which_line() {
        let bad = "# ranges\ncrawler googlebot Googlebot\n66.249.64.0/27\n66.249.64.0/99\n";
        let error = Crawlers::parse(bad).err();
        assert_eq!(
            error,
            Some(RangesError::NotARange {
                line: 4,
                text: "66.249.64.0/99".into()
            })
        );
        assert_eq!(
            error.map(|e| e.to_string()).unwrap_or_default(),
            "line 4: '66.249.64.0/99' is not an address range in CIDR form (like 66.249.64.0/27)"
        );
        assert_eq!(
            Crawlers::parse("10.0.0.0/8\n").err(),
            Some(RangesError::NoCrawler { line: 1 })
        );
        assert_eq!(
            Crawlers::parse("crawler lonely\n").err(),
            Some(RangesError::NoWords { line: 1 })
        );
        assert_eq!(
            Crawlers::parse("# nothing\n").err(),
            Some(RangesError::Empty)
        );
    }

    #[test]
    fn the_shipped_file_holds_every_operator_it_names() {
        let crawlers = Crawlers::shipped();
        let names: Vec<&str> = crawlers.summary().iter().map(|(name, _)| *name).collect();
        for name in ["googlebot", "bing", "openai", "duckduckbot", "perplexity"] {
            assert!(names.contains(&name), "{name} in {names:?}");
        }
        assert!(crawlers.summary().iter().all(|(_, ranges)| *ranges > 0));
    }
}
