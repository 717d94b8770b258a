//! The bot words against real user agents from `../shared/corpus/user-agents/`:
//! crawlers must be flagged (at least 99 % of the crawler-user-agents
//! instances) and real browsers must not (none of them).
//!
//! The corpus is third-party data kept beside the repository, never in it;
//! without it these tests print why they skip.
//!
//! They print their figures; `scripts/test` runs tests with `--show-output`.
#![allow(clippy::print_stdout)]

use std::path::PathBuf;

use whocomes_activity::bots::BotPatterns;

fn corpus_dir() -> Option<PathBuf> {
    whocomes_activity::corpus::folder(env!("CARGO_MANIFEST_DIR"), "user-agents")
}

fn patterns() -> BotPatterns {
    BotPatterns::new(BotPatterns::default_words()).expect("the default words compile")
}

/// Every `instances` string of crawler-user-agents.json. The file is JSON;
/// serde_json reads it, and only the instances are used.
fn crawler_instances(dir: &std::path::Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("crawler-user-agents.json")).expect("readable");
    let entries: Vec<serde_json::Value> = serde_json::from_str(&text).expect("valid JSON");
    entries
        .iter()
        .filter_map(|entry| entry["instances"].as_array())
        .flatten()
        .filter_map(|instance| instance.as_str().map(str::to_owned))
        .collect()
}

#[test]
fn at_least_99_percent_of_crawler_instances_are_bots() {
    let Some(dir) = corpus_dir() else { return };
    let bots = patterns();
    let instances = crawler_instances(&dir);
    let missed: Vec<&String> = instances
        .iter()
        .filter(|ua| bots.find(ua).is_none())
        .collect();
    let flagged = instances.len() - missed.len();
    let share = flagged as f64 / instances.len() as f64;
    println!(
        "crawler-user-agents.json: {flagged} of {} instances flagged as bots ({:.2} %)",
        instances.len(),
        share * 100.0
    );
    for agent in missed.iter().take(40) {
        println!("  missed: {agent}");
    }
    assert!(
        instances.len() >= 2000,
        "the corpus has its 2,116 instances"
    );
    assert!(share >= 0.99, "only {:.2} % flagged", share * 100.0);
}

#[test]
fn no_real_browser_is_a_bot() {
    let Some(dir) = corpus_dir() else { return };
    let bots = patterns();
    let mut total = 0;
    let mut wrong = Vec::new();
    for file in [
        "browser-user-agents-top-desktop.txt",
        "browser-user-agents-top-mobile.txt",
        "browser-user-agents-uap-core.txt",
    ] {
        let text = std::fs::read_to_string(dir.join(file)).expect("readable");
        for agent in text.lines().filter(|line| !line.trim().is_empty()) {
            total += 1;
            if let Some(sign) = bots.find(agent) {
                wrong.push(format!("{sign:?} in {agent}"));
            }
        }
    }
    println!("browsers: {} of {total} flagged as bots", wrong.len());
    for line in &wrong {
        println!("  wrongly flagged: {line}");
    }
    assert_eq!(total, 743, "the three browser files hold 743 agents");
    assert!(wrong.is_empty(), "{} browsers flagged as bots", wrong.len());
}

/// Every flagged crawler instance gets a class (most of this list's old
/// and obscure crawlers name no purpose: `other`); how they spread is
/// printed, and the crawlers everyone knows land in their class.
#[test]
fn flagged_crawlers_are_classed() {
    use whocomes_activity::bot_class::{BotClass, BotClasses};
    use whocomes_activity::classify::KindReason;
    let Some(dir) = corpus_dir() else { return };
    let bots = patterns();
    let classes = BotClasses::new_default().expect("the classes compile");
    let mut spread: std::collections::BTreeMap<BotClass, usize> = std::collections::BTreeMap::new();
    let mut classed = Vec::new();
    for agent in crawler_instances(&dir) {
        if bots.find(&agent).is_none() {
            continue;
        }
        let reason = KindReason::BotWord(String::new());
        let (class, _) = classes
            .class_of(&reason, Some(&agent))
            .expect("a bot has a class");
        *spread.entry(class).or_default() += 1;
        classed.push((agent, class));
    }
    println!(
        "bot classes of {} flagged crawler instances:",
        classed.len()
    );
    for (class, count) in &spread {
        println!("  {:>5}  {}", count, class.as_str());
    }
    assert!(
        spread.len() >= 9,
        "the crawlers spread over the classes: {spread:?}"
    );
    for (name, expected) in [
        ("googlebot", BotClass::SearchEngine),
        ("bingbot", BotClass::SearchEngine),
        ("yandexbot", BotClass::SearchEngine),
        ("gptbot", BotClass::AiCrawler),
        ("ccbot", BotClass::AiCrawler),
        ("claudebot", BotClass::AiCrawler),
        ("chatgpt-user", BotClass::AiAssistant),
        ("ahrefsbot", BotClass::SeoTool),
        ("semrushbot", BotClass::SeoTool),
        ("facebookexternalhit", BotClass::LinkPreview),
        ("twitterbot", BotClass::LinkPreview),
        ("feedly", BotClass::FeedReader),
        ("uptimerobot", BotClass::Monitor),
        ("curl/", BotClass::Script),
        ("python-requests", BotClass::Script),
    ] {
        let named: Vec<&(String, BotClass)> = classed
            .iter()
            .filter(|(agent, _)| agent.to_ascii_lowercase().contains(name))
            .collect();
        assert!(!named.is_empty(), "the corpus names {name}");
        // An agent may name another bot as well (a feed gateway that says
        // "Googlebot"): the class of most of them is the one expected.
        let right = named.iter().filter(|(_, class)| *class == expected).count();
        for (agent, class) in named.iter().filter(|(_, class)| *class != expected) {
            println!("  {name} as {}: {agent}", class.as_str());
        }
        assert!(
            right * 10 >= named.len() * 9,
            "{name}: {right} of {} as {}",
            named.len(),
            expected.as_str()
        );
    }
}
