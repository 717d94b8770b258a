//! Referrers, tags and campaigns: never a panic; a source is a host or a
//! short tag, never a path or a query; a campaign keeps only labels.
#![no_main]

use std::sync::LazyLock;

use activity::Rules;
use activity::campaign::{Campaign, MAX_LABEL_CHARS};
use activity::source::{Source, source_of};
use libfuzzer_sys::fuzz_target;

/// Compiled once: building the rules' automata per input would be the whole run.
static RULES: LazyLock<Rules> = LazyLock::new(Rules::default);

fuzz_target!(|data: &[u8]| {
    let rules = &*RULES;
    let (query, referer) = match data.iter().position(|b| *b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &data[..0]),
    };
    if let Some(campaign) = Campaign::of(query) {
        assert!(campaign.is_clean(), "labels only: {campaign:?}");
        for label in [&campaign.source, &campaign.medium, &campaign.name].into_iter().flatten() {
            assert!(label.chars().count() <= MAX_LABEL_CHARS && !label.contains(['@', '&', '=', '/']));
        }
    }
    let Ok(referer) = std::str::from_utf8(referer) else {
        return;
    };
    match source_of(Some(query), Some(referer), Some("site.example"), rules) {
        Some(Source::Tag(tag)) => assert!(tag.len() <= 40 && !tag.contains(['/', '?', '&', '='])),
        Some(Source::Referrer(host)) => {
            assert!(!host.contains(['/', '?', '#', '@', ' ']), "a host: {host}");
        }
        None => {}
    }
});
