//! The hits and tokens the store contract writes: visitor `n`'s token and
//! address, and a page load of a kind. People 1 to 3 fetched the page's
//! files; 4 and 5 did not.

use chrono::{DateTime, Utc};

use crate::request::bot_class::BotClass;
use crate::request::evidence::{Evidence, Shape};
use crate::request::hit::{Hit, StoreName};
use crate::request::kind::Kind;
use crate::request::source::Source;
use crate::visitor::address::Network;
use crate::visitor::token::VisitorToken;

/// Visitor `n`'s token.
pub(super) fn token(n: u8) -> VisitorToken {
    VisitorToken::parse(&format!("{n:032x}")).unwrap_or_else(|| panic!("a test token: {n}"))
}

/// A page load by visitor `n`.
pub(super) fn hit(
    store: &StoreName,
    at: DateTime<Utc>,
    visitor: u8,
    path: &str,
    kind: Kind,
    source: Option<&str>,
) -> Hit {
    Hit {
        at,
        visitor: token(visitor),
        network: Network::of(Some(std::net::IpAddr::from([203, 0, 113, visitor]))),
        country: crate::testing::sample::country(visitor.into()),
        path: path.to_owned(),
        store: store.clone(),
        kind,
        campaign: None,
        goal: None,
        source: source.map(|s| match Source::try_from(s.to_owned()) {
            Ok(source) => source,
            Err(error) => panic!("a test source: {error}"),
        }),
        shape: Shape::PageLoad,
        // People here fetched the page's files, except visitors 4 and 5.
        evidence: if kind == Kind::Person && visitor < 4 {
            Evidence::FILES
        } else {
            Evidence::NONE
        },
        bot_class: (kind == Kind::Bot).then_some(BotClass::Scanner),
    }
}

/// `hit`, marked as reaching the goal `name`.
pub(super) fn goal(hit: Hit, name: &str) -> Hit {
    Hit {
        goal: Some(crate::request::goal::Goal::new(name).unwrap_or_else(|e| panic!("{name}: {e}"))),
        ..hit
    }
}
