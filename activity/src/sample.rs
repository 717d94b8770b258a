//! Made-up hits for benchmarks: a deterministic stream of visits, each a
//! short run of requests by one visitor, spread over an hour. Nothing here
//! is real traffic.

use chrono::{DateTime, Duration, Utc};

use crate::address::Network;
use crate::classify::Kind;
use crate::hit::{Hit, StoreName};
use crate::source::Source;
use crate::token::{VisitorKey, visitor_token};

/// Visitors the stream draws from: enough that most visits of a run are a
/// visitor's first of the day.
const VISITORS: u64 = 1_000_000;

/// `count` hits for `store`, starting at `start`, made of visits: a person
/// makes 1 to 6 requests over a few of 60 paths (one visit in ten from a
/// referrer), a bot (one visit in five) 1 to 20 over any of them, one visit
/// in fifty is the site reading itself. Visitors are drawn from a million.
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
    let mut hits = Vec::with_capacity(count);
    while hits.len() < count {
        let visitor = next() % VISITORS;
        let ip = std::net::IpAddr::from([
            10,
            (visitor >> 16) as u8,
            (visitor >> 8) as u8,
            visitor as u8,
        ]);
        let roll = next() % 100;
        let (kind, requests, paths) = match roll {
            0..=1 => (Kind::SelfRead, 1, 1),
            2..=21 => (Kind::Bot, 1 + next() % 20, 60),
            _ => (Kind::Person, 1 + next() % 6, 4),
        };
        let first_path = next() % 60;
        let source = (roll % 10 == 3).then(|| Source::Referrer("news.example.org".to_owned()));
        for request in 0..requests {
            if hits.len() == count {
                break;
            }
            let at = start
                + Duration::milliseconds((hits.len() as i64 * 3_600_000) / count.max(1) as i64);
            hits.push(Hit {
                at,
                visitor: visitor_token(&key, at.date_naive(), Some(ip)),
                network: Network::of(Some(ip)),
                path: format!("/page/{}", (first_path + next() % paths) % 60),
                store: store.clone(),
                kind,
                source: if request == 0 { source.clone() } else { None },
            });
        }
    }
    hits
}

/// Sends `hits` through a writer into `store` the way the server does
/// (default batching), waits until all are written, and says what happened.
#[cfg(feature = "server")]
pub async fn write_through_writer(
    store: std::sync::Arc<dyn crate::store::ActivityStore>,
    hits: Vec<Hit>,
) -> crate::recording::StatsSnapshot {
    let (feed, writer) =
        crate::recording::start_feed(store, crate::recording::RecorderConfig::default());
    for hit in hits {
        if feed.send(hit).await.is_err() {
            break;
        }
    }
    drop(feed);
    writer.finish().await
}

/// Times `runs` runs of [`write_through_writer`], each of `count` fresh hits
/// an hour after the run before (`first` numbers the first run); making the
/// hits is not timed. Panics if a hit is not written: a benchmark that
/// loses hits measures nothing.
#[cfg(feature = "server")]
pub async fn time_ingest(
    store: &std::sync::Arc<dyn crate::store::ActivityStore>,
    count: usize,
    runs: u64,
    first: u64,
) -> std::time::Duration {
    let start = DateTime::<Utc>::from_timestamp(1_764_374_400, 0).unwrap_or_default();
    let mut took = std::time::Duration::ZERO;
    for run in first..first + runs {
        let hits = hits(
            store.name(),
            start + Duration::hours(run as i64),
            count,
            run,
        );
        let began = std::time::Instant::now();
        let stats = write_through_writer(store.clone(), hits).await;
        took += began.elapsed();
        assert_eq!(
            (stats.written, stats.lost),
            (count as u64, 0),
            "every hit written"
        );
    }
    took
}
