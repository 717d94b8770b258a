//! Which kind of bot a bot is: a closed list of classes, decided from the
//! agent's words (the data file `bot_classes.txt`, beside `bots.txt`) and
//! from what the request did (a probe path makes a scanner, whatever agent
//! it shows). Only the class would ever be kept, never the agent.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use serde::{Deserialize, Serialize};

use crate::request::kind::{KindReason, is_absent};

const DEFAULT_CLASSES: &str = include_str!("bot_classes.txt");

/// The kinds of bot, a closed list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BotClass {
    /// A search engine's crawler.
    SearchEngine,
    /// A crawler collecting pages for AI models or AI search.
    AiCrawler,
    /// An AI assistant fetching a page because a person asked it to.
    AiAssistant,
    /// An SEO or marketing tool.
    SeoTool,
    /// A chat or social network unfurling a shared link.
    LinkPreview,
    /// A feed reader.
    FeedReader,
    /// An uptime, performance or status monitor.
    Monitor,
    /// A script or an HTTP library.
    Script,
    /// A scanner: probing for files a site like this never has, or a
    /// security or internet-wide survey.
    Scanner,
    /// A bot no rule names.
    Other,
}

impl BotClass {
    /// Every class, in the order a card lists them.
    pub const ALL: [BotClass; 10] = [
        Self::SearchEngine,
        Self::AiCrawler,
        Self::AiAssistant,
        Self::SeoTool,
        Self::LinkPreview,
        Self::FeedReader,
        Self::Monitor,
        Self::Script,
        Self::Scanner,
        Self::Other,
    ];

    /// The class's identifier, as in `bot_classes.txt` and JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SearchEngine => "search-engine",
            Self::AiCrawler => "ai-crawler",
            Self::AiAssistant => "ai-assistant",
            Self::SeoTool => "seo-tool",
            Self::LinkPreview => "link-preview",
            Self::FeedReader => "feed-reader",
            Self::Monitor => "monitor",
            Self::Script => "script",
            Self::Scanner => "scanner",
            Self::Other => "other",
        }
    }

    /// The class in words, for a page.
    pub fn label(self) -> &'static str {
        match self {
            Self::SearchEngine => "Search engines",
            Self::AiCrawler => "AI crawlers",
            Self::AiAssistant => "AI assistants fetching for a person",
            Self::SeoTool => "SEO and marketing tools",
            Self::LinkPreview => "Link previews",
            Self::FeedReader => "Feed readers",
            Self::Monitor => "Monitors",
            Self::Script => "Scripts and HTTP libraries",
            Self::Scanner => "Scanners",
            Self::Other => "Other bots",
        }
    }

    /// The class named `text` (its identifier).
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|class| class.as_str() == text)
    }

    /// The class's bit in a [`ClassSet`].
    pub fn bit(self) -> u16 {
        1 << (self as u16)
    }
}

impl std::fmt::Display for BotClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The bot classes a visitor-day's requests showed, as bits (kept as one
/// small integer on its row).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct ClassSet(pub u16);

impl ClassSet {
    /// Adds a class.
    pub fn insert(&mut self, class: BotClass) {
        self.0 |= class.bit();
    }

    /// Whether `class` is in the set.
    pub fn contains(self, class: BotClass) -> bool {
        self.0 & class.bit() != 0
    }

    /// The classes in the set, in [`BotClass::ALL`]'s order.
    pub fn iter(self) -> impl Iterator<Item = BotClass> {
        BotClass::ALL.into_iter().filter(move |c| self.contains(*c))
    }

    /// Whether it holds no class.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl std::ops::BitOrAssign for ClassSet {
    fn bitor_assign(&mut self, other: Self) {
        self.0 |= other.0;
    }
}

/// Why a line of the classes file cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ClassesError {
    /// Not `class: word, word`, or an unknown class.
    #[error("line {0} of the bot classes is not `class: word, …` with a known class")]
    Line(usize),
    /// The words do not compile.
    #[error("the bot class words do not compile: {0}")]
    Compile(String),
}

/// The class words, compiled once into one automaton.
#[derive(Clone, Debug)]
pub struct BotClasses {
    /// For each pattern, its class's place in the file and the class.
    classes: Vec<(usize, BotClass, String)>,
    automaton: AhoCorasick,
}

impl BotClasses {
    /// The classes of `bot_classes.txt`.
    pub fn new_default() -> Result<Self, ClassesError> {
        Self::from_text(DEFAULT_CLASSES)
    }

    /// Classes from text in the format of `bot_classes.txt`.
    pub fn from_text(text: &str) -> Result<Self, ClassesError> {
        let mut classes = Vec::new();
        let mut place = 0;
        for (number, line) in text.lines().enumerate() {
            let line = line.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let (class, words) = line.split_once(':').ok_or(ClassesError::Line(number + 1))?;
            let class = BotClass::parse(class.trim()).ok_or(ClassesError::Line(number + 1))?;
            for word in words.split(',').map(str::trim).filter(|w| !w.is_empty()) {
                classes.push((place, class, word.to_ascii_lowercase()));
            }
            place += 1;
        }
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .kind(Some(AhoCorasickKind::DFA))
            .build(classes.iter().map(|(_, _, word)| word.as_str()))
            .map_err(|error| ClassesError::Compile(error.to_string()))?;
        Ok(Self { classes, automaton })
    }

    /// The class of a bot's agent by its words alone, and the word that
    /// decided; `None` when no line names it.
    pub fn by_agent(&self, agent: &str) -> Option<(BotClass, &str)> {
        self.automaton
            .find_overlapping_iter(agent)
            .map(|found| &self.classes[found.pattern().as_usize()])
            .min_by_key(|(place, _, word)| (*place, std::cmp::Reverse(word.len())))
            .map(|(_, class, word)| (*class, word.as_str()))
    }

    /// The class of a request counted as a bot for `reason`, with what
    /// decided it in words; `None` when the reason is not a bot's.
    pub fn class_of(&self, reason: &KindReason, agent: Option<&str>) -> Option<(BotClass, String)> {
        match reason {
            KindReason::ProbePath(path) => Some((
                BotClass::Scanner,
                format!("asked for {path}, a path only scanners ask for"),
            )),
            KindReason::ProbeExtension(extension) => Some((
                BotClass::Scanner,
                format!("asked for a .{extension} file, which no site serves in public"),
            )),
            KindReason::Software { what, status } => is_absent(*status).then(|| {
                (
                    BotClass::Scanner,
                    format!("asked for {what}, which this site does not have"),
                )
            }),
            KindReason::FalseCrawler(name) => Some((
                BotClass::Scanner,
                format!("claims {name}'s crawler from outside its published ranges"),
            )),
            KindReason::NoUserAgent => Some((BotClass::Script, "sent no user agent".to_owned())),
            KindReason::BotWord(_) | KindReason::BotShape(_) | KindReason::VerifiedCrawler(_) => {
                Some(match agent.and_then(|agent| self.by_agent(agent)) {
                    Some((class, word)) => (class, format!("its agent says \"{word}\"")),
                    None => (BotClass::Other, "no class's word in its agent".to_owned()),
                })
            }
            KindReason::SelfReadMark
            | KindReason::Loopback
            | KindReason::OwnAddress
            | KindReason::Person => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classes() -> BotClasses {
        BotClasses::new_default().expect("the default classes compile")
    }

    #[test]
    fn well_known_agents_get_their_class() {
        let classes = classes();
        for (agent, expected) in [
            (
                "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
                BotClass::SearchEngine,
            ),
            (
                "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)",
                BotClass::AiCrawler,
            ),
            (
                "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot",
                BotClass::AiAssistant,
            ),
            (
                "Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)",
                BotClass::SeoTool,
            ),
            (
                "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
                BotClass::LinkPreview,
            ),
            (
                "LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)",
                BotClass::LinkPreview,
            ),
            (
                "Feedly/1.0 (+http://www.feedly.com/fetcher.html; 3 subscribers)",
                BotClass::FeedReader,
            ),
            (
                "Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
                BotClass::Monitor,
            ),
            ("curl/8.5.0", BotClass::Script),
            ("python-requests/2.31.0", BotClass::Script),
            ("Mozilla/5.0 zgrab/0.x", BotClass::Scanner),
            (
                "Mozilla/5.0 (compatible; Applebot-Extended/0.1)",
                BotClass::AiCrawler,
            ),
        ] {
            assert_eq!(
                classes.by_agent(agent).map(|(class, _)| class),
                Some(expected),
                "{agent}"
            );
        }
        assert_eq!(classes.by_agent("Mozilla/5.0 (compatible; Attracta)"), None);
    }

    #[test]
    fn behaviour_decides_before_the_agent() {
        let classes = classes();
        let browser =
            Some("Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0");
        let probe = KindReason::ProbePath("/wp-login.php".to_owned());
        assert_eq!(
            classes.class_of(&probe, browser).map(|(c, _)| c),
            Some(BotClass::Scanner)
        );
        assert_eq!(
            classes
                .class_of(&KindReason::NoUserAgent, None)
                .map(|(c, _)| c),
            Some(BotClass::Script)
        );
        let shape = KindReason::BotShape("no browser name".to_owned());
        let (class, why) = classes.class_of(&shape, Some("Zabbix")).expect("a bot");
        assert_eq!(class, BotClass::Monitor, "{why}");
        assert_eq!(classes.class_of(&KindReason::Person, browser), None);
    }

    #[test]
    fn every_class_is_in_the_file_and_bad_lines_are_refused() {
        let text = DEFAULT_CLASSES;
        for class in BotClass::ALL {
            if class != BotClass::Other {
                assert!(
                    text.contains(&format!("\n{}:", class.as_str())),
                    "{}",
                    class.as_str()
                );
            }
        }
        assert_eq!(
            BotClasses::from_text("robots: x").err(),
            Some(ClassesError::Line(1))
        );
        assert_eq!(
            BotClasses::from_text("\nscanner x").err(),
            Some(ClassesError::Line(2))
        );
    }
}
