//! Reads every store for one range and sums what the tab's cards show,
//! with the pure reports of `activity::report`. A store that cannot be read
//! is reported on its card; the others are still drawn.

use std::collections::BTreeMap;
use std::sync::Arc;

use activity::report::{self, KindCounts, MergedVisitor};
use activity::rows::{HourRow, VisitorDay};
use activity::source::SourceGroup;
use activity::store::ActivityStore;
use chrono::{DateTime, Days, NaiveDate, NaiveTime, Utc};

use crate::model::{
    DayKinds, Overview, SourceRow, StoreLine, StoreStatus, Totals, VisitorRow, WriterStatus,
};
use crate::server::Admin;

/// How many paths the top-paths card lists.
pub const TOP_PATHS: usize = 10;
/// How many visitor rows the table shows (the export has them all).
pub const VISITOR_ROWS: usize = 500;

/// The first day of a range of `range` days ending `today`.
pub fn first_day(today: NaiveDate, range: u16) -> NaiveDate {
    today - Days::new(u64::from(range.max(1)) - 1)
}

/// The start of a UTC day.
pub fn midnight_of(day: NaiveDate) -> DateTime<Utc> {
    day.and_time(NaiveTime::MIN).and_utc()
}

/// What one store gave for the range and the period before it.
struct StoreRead {
    hours: Vec<HourRow>,
    visitors: Vec<VisitorDay>,
    /// Days whose visitor rows have expired: their counts by kind.
    expired: Vec<(NaiveDate, KindCounts)>,
    error: Option<String>,
}

async fn read(store: &dyn ActivityStore, since: NaiveDate) -> StoreRead {
    let (hours, visitors, expired) = futures::join!(
        store.hours_since(midnight_of(since)),
        store.visitors_since(since),
        store.expired_kinds_since(since)
    );
    match (hours, visitors, expired) {
        (Ok(hours), Ok(visitors), Ok(expired)) => StoreRead {
            hours,
            visitors,
            expired,
            error: None,
        },
        (Err(error), _, _) | (_, Err(error), _) | (_, _, Err(error)) => StoreRead {
            hours: Vec::new(),
            visitors: Vec::new(),
            expired: Vec::new(),
            error: Some(error.to_string()),
        },
    }
}

/// Adds `more` to `sum`.
fn add(sum: &mut KindCounts, more: &KindCounts) {
    sum.people += more.people;
    sum.scanners += more.scanners;
    sum.own_reads += more.own_reads;
}

/// The overview of the `range` days ending `now`'s day, over every store.
pub async fn overview(admin: &Admin, range: u16, now: DateTime<Utc>) -> Overview {
    let today = now.date_naive();
    let first = first_day(today, range);
    let previous_first = first_day(first - Days::new(1), range);
    let stores = admin.stores();
    let reads =
        futures::future::join_all(stores.iter().map(|s| read(s.as_ref(), previous_first))).await;

    let dates: Vec<NaiveDate> = first.iter_days().take_while(|d| *d <= today).collect();
    let merged = report::merge_visitors(reads.iter().flat_map(|r| r.visitors.iter()));
    let (current, previous): (Vec<MergedVisitor>, Vec<MergedVisitor>) =
        merged.into_iter().partition(|v| v.day >= first);
    // Days still with visitor rows, merged across stores; days whose rows
    // have expired, from what each store kept (summed: the tokens are gone).
    let mut by_day = report::daily_kinds(&current);
    let mut previous_expired = KindCounts::default();
    for (day, kinds) in reads.iter().flat_map(|r| r.expired.iter()) {
        if *day >= first {
            add(by_day.entry(*day).or_default(), kinds);
        } else {
            add(&mut previous_expired, kinds);
        }
    }
    let all_hours = || reads.iter().flat_map(|r| r.hours.iter());
    let in_range = |hour: &&HourRow| hour.hour >= midnight_of(first);

    Overview {
        range,
        days: dates
            .iter()
            .map(|day| DayKinds {
                day: *day,
                kinds: by_day.get(day).copied().unwrap_or_default(),
            })
            .collect(),
        totals: Totals {
            visitors: by_day.values().fold(KindCounts::default(), |mut sum, day| {
                add(&mut sum, day);
                sum
            }),
            requests: all_hours().filter(in_range).map(|h| h.requests).sum(),
        },
        previous: Totals {
            visitors: {
                let mut sum = kinds_of(&previous);
                add(&mut sum, &previous_expired);
                sum
            },
            requests: all_hours()
                .filter(|h| !in_range(h))
                .map(|h| h.requests)
                .sum(),
        },
        store_lines: stores
            .iter()
            .zip(&reads)
            .map(|(store, read)| store_line(store.name().to_string(), &read.hours, &dates))
            .collect(),
        sources: source_rows(&current),
        funnel: report::funnel(&current, admin.funnel()),
        top_paths: report::top_paths(all_hours().filter(in_range), TOP_PATHS),
        last_five_minutes: admin.recorder().map_or(0, |stats| stats.recent(now, 300)),
        stores: statuses(stores, &reads).await,
        writer: admin
            .recorder()
            .map_or_else(WriterStatus::default, |stats| {
                let snapshot = stats.snapshot();
                WriterStatus {
                    queued: snapshot.queued,
                    dropped: snapshot.dropped,
                    written: snapshot.written,
                    lost: snapshot.lost,
                }
            }),
    }
}

fn kinds_of(visitors: &[MergedVisitor]) -> KindCounts {
    let days = report::daily_kinds(visitors);
    days.values()
        .fold(KindCounts::default(), |sum, day| KindCounts {
            people: sum.people + day.people,
            scanners: sum.scanners + day.scanners,
            own_reads: sum.own_reads + day.own_reads,
        })
}

fn store_line(store: String, hours: &[HourRow], dates: &[NaiveDate]) -> StoreLine {
    let mut per_day: BTreeMap<NaiveDate, u64> = BTreeMap::new();
    for hour in hours {
        *per_day.entry(hour.hour.date_naive()).or_default() += hour.requests;
    }
    StoreLine {
        store,
        requests: dates
            .iter()
            .map(|day| per_day.get(day).copied().unwrap_or(0))
            .collect(),
    }
}

fn source_rows(visitors: &[MergedVisitor]) -> Vec<SourceRow> {
    let sources = report::source_groups(visitors);
    let mut rows = Vec::new();
    for group in SourceGroup::ALL {
        let page_loads = sources.groups.get(&group).copied().unwrap_or(0);
        rows.push(SourceRow {
            label: group.label().to_owned(),
            tag: false,
            page_loads,
        });
        if group == SourceGroup::Tagged {
            rows.extend(sources.tags.iter().map(|(tag, page_loads)| SourceRow {
                label: tag.clone(),
                tag: true,
                page_loads: *page_loads,
            }));
        }
    }
    rows
}

async fn statuses(stores: &[Arc<dyn ActivityStore>], reads: &[StoreRead]) -> Vec<StoreStatus> {
    let mut statuses = Vec::with_capacity(stores.len());
    for (store, read) in stores.iter().zip(reads) {
        let availability = store.availability().await;
        let cost = store.cost();
        statuses.push(StoreStatus {
            store: store.name().to_string(),
            available: availability.available,
            availability: availability.reason,
            retention: availability.retention,
            operations: cost.operations,
            failures: cost.failures,
            milliseconds: u64::try_from(cost.time.as_millis()).unwrap_or(u64::MAX),
            read_error: read.error.clone(),
        });
    }
    statuses
}

/// The visitor-days of the range, newest day first, at most
/// [`VISITOR_ROWS`] (from each store, then the newest of them); and how
/// many there are in all.
pub async fn visitors(admin: &Admin, range: u16, now: DateTime<Utc>) -> (Vec<VisitorRow>, usize) {
    let first = first_day(now.date_naive(), range);
    let reads = futures::future::join_all(
        admin
            .stores()
            .iter()
            .map(|s| async move { s.latest_visitors(first, VISITOR_ROWS).await }),
    )
    .await;
    let mut total = 0;
    let mut rows: Vec<VisitorDay> = Vec::new();
    for (page, all) in reads.into_iter().flatten() {
        rows.extend(page);
        total += usize::try_from(all).unwrap_or(usize::MAX);
    }
    rows.sort_by(|a, b| b.day.cmp(&a.day).then(b.last_seen.cmp(&a.last_seen)));
    let shown = rows
        .into_iter()
        .take(VISITOR_ROWS)
        .map(visitor_row)
        .collect();
    (shown, total)
}

fn visitor_row(row: VisitorDay) -> VisitorRow {
    let mut paths = row.top_paths.clone();
    paths.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.path.cmp(&b.path)));
    VisitorRow {
        store: row.store.to_string(),
        day: row.day,
        visitor: row.visitor.to_string(),
        network: row.network.to_string(),
        first_seen: row.first_seen.format("%H:%M:%S").to_string(),
        last_seen: row.last_seen.format("%H:%M:%S").to_string(),
        requests: row.requests,
        bots: row.bots,
        self_reads: row.self_reads,
        top_paths: paths.into_iter().take(5).map(|p| p.path).collect(),
        sources: row.sources.iter().map(|s| s.source.to_string()).collect(),
    }
}

#[cfg(test)]
mod tests {
    use activity::StoreName;
    use activity::rows::Batch;
    use activity::store::{MemoryStore, Retention};
    use chrono::{Duration, TimeZone as _};

    use super::*;
    use crate::server::AdminConfig;

    fn memory(name: &str) -> Arc<MemoryStore> {
        Arc::new(MemoryStore::new(
            StoreName::parse(name).expect("a name"),
            Retention::default(),
        ))
    }

    fn admin(stores: Vec<Arc<dyn ActivityStore>>) -> Admin {
        Admin::new(AdminConfig {
            stores,
            ..AdminConfig::default()
        })
        .expect("no password")
    }

    /// One day of made-up rows for `store`, a given number of visitor-days.
    fn day(store: &MemoryStore, day: NaiveDate, visitors: u32) -> Batch {
        activity::sample::day_rows(store.name(), day, visitors, 3)
    }

    #[tokio::test]
    async fn days_past_the_visitor_retention_still_count_by_kind() {
        let now = Utc
            .with_ymd_and_hms(2026, 11, 29, 12, 0, 0)
            .single()
            .expect("a time");
        let store = memory("sqlite");
        let old = now.date_naive() - Days::new(40);
        let batch = day(&store, old, 50);
        let expected = report::daily_kinds(&report::merge_visitors(&batch.visitors))[&old];
        store.record(&batch).await.expect("kept");
        store.enforce_retention(now).await.expect("expires");
        assert!(store.visitors_since(old).await.expect("reads").is_empty());

        let admin = admin(vec![store]);
        let long = overview(&admin, 90, now).await;
        let shown = long.days.iter().find(|d| d.day == old).expect("in range");
        assert_eq!(shown.kinds, expected);
        assert_eq!(long.totals.visitors, expected);
        // In the 30-day view it is the previous period.
        let short = overview(&admin, 30, now).await;
        assert_eq!(short.previous.visitors, expected);
        assert_eq!(short.totals.visitors.total(), 0);
    }

    #[tokio::test]
    async fn a_visitor_on_two_stores_counts_once_merged_and_on_each_line() {
        let now = Utc
            .with_ymd_and_hms(2026, 11, 29, 12, 0, 0)
            .single()
            .expect("a time");
        let (one, two) = (memory("one"), memory("two"));
        let today = now.date_naive();
        // The same made-up visitors (same key, same addresses) on both stores.
        one.record(&day(&one, today, 20)).await.expect("kept");
        two.record(&day(&two, today, 20)).await.expect("kept");
        let admin = admin(vec![one, two]);
        let view = overview(&admin, 7, now + Duration::minutes(1)).await;
        let today_kinds = view.days.last().expect("today").kinds;
        assert_eq!(today_kinds.total(), 20, "each visitor once");
        let lines: Vec<u64> = view
            .store_lines
            .iter()
            .map(|l| *l.requests.last().expect("today"))
            .collect();
        assert_eq!(lines.len(), 2);
        assert!(
            lines[0] > 0 && lines[0] == lines[1],
            "each store's own requests: {lines:?}"
        );
        assert_eq!(view.totals.requests, lines[0] + lines[1]);
    }
}
