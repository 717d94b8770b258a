//! Made-up hits for benchmarks: a deterministic mix of visitors, paths and
//! kinds, spread over an hour. Nothing here is real traffic.

use chrono::{DateTime, Duration, Utc};

use crate::address::Network;
use crate::classify::Kind;
use crate::hit::{Hit, StoreName};
use crate::source::Source;
use crate::token::{VisitorKey, visitor_token};

/// `count` hits for `store`, starting at `start`: about 5,000 visitors, 60
/// paths, one in five a bot, one in fifty a self-read, one in ten with a source.
pub fn hits(store: &StoreName, start: DateTime<Utc>, count: usize, seed: u64) -> Vec<Hit> {
    let key =
        VisitorKey::from_bytes(vec![42; 32]).unwrap_or_else(|_| unreachable!("a non-empty key"));
    let mut state = seed | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|i| {
            let visitor = next() % 5_000;
            let ip = std::net::IpAddr::from([10, (visitor >> 8) as u8, visitor as u8, 7]);
            let at = start + Duration::milliseconds((i as i64 * 3_600_000) / count.max(1) as i64);
            let roll = next() % 100;
            let kind = match roll {
                0..=1 => Kind::SelfRead,
                2..=21 => Kind::Bot,
                _ => Kind::Person,
            };
            let source = (roll % 10 == 3).then(|| Source::Referrer("news.example.org".to_owned()));
            Hit {
                at,
                visitor: visitor_token(&key, at.date_naive(), Some(ip)),
                network: Network::of(Some(ip)),
                path: format!("/page/{}", next() % 60),
                store: store.clone(),
                kind,
                source,
            }
        })
        .collect()
}
