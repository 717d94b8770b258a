//! Sums what the tab's cards show for one range from the day summaries
//! (`summaries.rs` keeps them), and reads the visitor table's page. A store
//! that cannot be read is reported on its card; the others are still drawn.

use std::collections::BTreeMap;
use std::sync::Arc;

use activity::bot_class::BotClass;
use activity::report::{self, BotCount, KindCounts, SourceReport};
use activity::rows::VisitorDay;
use activity::source::SourceGroup;
use activity::summary::DaySummary;
use chrono::{DateTime, Days, NaiveDate, Utc};

use crate::model::{
    BotRow, DayKinds, Overview, SourceRow, StoreLine, StoreStatus, Totals, VisitorRow, WriterStatus,
};
use crate::server::Admin;
use crate::server::summaries::Marks;

/// How many paths the top-paths card lists.
pub const TOP_PATHS: usize = 10;
/// How many visitor rows the table shows (the export has them all).
pub const VISITOR_ROWS: usize = 500;

/// The first day of a range of `range` days ending `today`.
pub fn first_day(today: NaiveDate, range: u16) -> NaiveDate {
    today - Days::new(u64::from(range.max(1)) - 1)
}

/// The overview of the `range` days ending `now`'s day, over every store.
/// `details`: the reader is signed in, and may see where each store is and
/// its errors in full; anybody else reads availability in plain words that
/// name no host, port, database, file or error.
pub async fn overview(admin: &Admin, range: u16, now: DateTime<Utc>, details: bool) -> Overview {
    let today = now.date_naive();
    let first = first_day(today, range);
    let previous_first = first_day(first - Days::new(1), range);
    let stores = admin.stores();
    let steps = admin.funnel();
    let marks = Marks::read(stores, previous_first).await;
    let (summaries, summary_error) = match admin
        .summary_cache()
        .summaries(stores, &marks, previous_first, today, steps)
        .await
    {
        Ok(summaries) => (summaries, None),
        Err(error) => (Vec::new(), Some(error.to_string())),
    };
    let (current, previous): (Vec<Arc<DaySummary>>, Vec<Arc<DaySummary>>) =
        summaries.into_iter().partition(|s| s.day >= first);
    let sum = |days: &[Arc<DaySummary>]| {
        let mut sum = DaySummary::empty(today, steps.len());
        for day in days {
            sum.add_counts(day);
        }
        sum
    };
    let (now_sum, before_sum) = (sum(&current), sum(&previous));
    let dates: Vec<NaiveDate> = first.iter_days().take_while(|d| *d <= today).collect();
    let kinds_on: BTreeMap<NaiveDate, KindCounts> =
        current.iter().map(|s| (s.day, s.kinds)).collect();

    Overview {
        range,
        days: dates
            .iter()
            .map(|day| DayKinds {
                day: *day,
                kinds: kinds_on.get(day).copied().unwrap_or_default(),
            })
            .collect(),
        totals: Totals {
            visitors: now_sum.kinds,
            requests: requests_between(&marks, first, today),
        },
        previous: Totals {
            visitors: before_sum.kinds,
            requests: requests_between(&marks, previous_first, first - Days::new(1)),
        },
        store_lines: stores
            .iter()
            .zip(&marks.requests)
            .map(|(store, requests)| StoreLine {
                store: store.name().to_string(),
                demo: admin.is_demo(store.name()),
                requests: dates
                    .iter()
                    .map(|day| {
                        requests
                            .as_ref()
                            .and_then(|r| r.get(day).copied())
                            .unwrap_or(0)
                    })
                    .collect(),
            })
            .collect(),
        sources: source_rows(&now_sum.sources),
        funnel: report::funnel_of_counts(steps, &now_sum.steps),
        top_paths: report::top_of(current.iter().flat_map(|s| &s.paths), TOP_PATHS),
        bots: bot_rows(&now_sum.bots),
        last_five_minutes: admin.recorder().map_or(0, |stats| stats.recent(now, 300)),
        stores: statuses(admin, &marks, summary_error.as_deref(), details).await,
        writer: writer_status(admin),
    }
}

/// Every bot class of the closed list, in its order, with the range's figures.
fn bot_rows(bots: &BTreeMap<BotClass, BotCount>) -> Vec<BotRow> {
    BotClass::ALL
        .into_iter()
        .map(|class| {
            let count = bots.get(&class).copied().unwrap_or_default();
            BotRow {
                class: class.as_str().to_owned(),
                label: class.label().to_owned(),
                requests: count.requests,
                visitor_days: count.visitor_days,
            }
        })
        .collect()
}

/// The writer's and the edge's figures since this server started.
fn writer_status(admin: &Admin) -> WriterStatus {
    let snapshot = admin
        .recorder()
        .map(|stats| stats.snapshot())
        .unwrap_or_default();
    WriterStatus {
        queued: snapshot.queued,
        dropped: snapshot.dropped,
        written: snapshot.written,
        lost: snapshot.lost,
        untrusted_forwarding: snapshot.untrusted_forwarding,
        connections_open: admin.connections().map(|c| c.open()),
        connections_refused: admin.connections().map_or(0, |c| c.refused_count()),
        sign_ins_refused: admin.sign_ins_refused(),
    }
}

/// What a stranger reads about a store: whether it keeps activity, in
/// words that say nothing of where.
const KEEPING: &str = "Keeping activity.";
const NOT_KEEPING: &str =
    "Not keeping activity right now (the server log says why; signed in, the tab does too).";
const NOT_READ: &str = "could not be read just now";

/// All requests from `first` to `last`, over every store that could be read.
fn requests_between(marks: &Marks, first: NaiveDate, last: NaiveDate) -> u64 {
    marks
        .requests
        .iter()
        .flatten()
        .flat_map(|days| days.range(first..=last).map(|(_, requests)| requests))
        .sum()
}

fn source_rows(sources: &SourceReport) -> Vec<SourceRow> {
    let mut rows = Vec::new();
    for group in SourceGroup::ALL {
        let visitor_days = sources.groups.get(&group).copied().unwrap_or(0);
        rows.push(SourceRow {
            label: group.label().to_owned(),
            tag: false,
            visitor_days,
        });
        if group == SourceGroup::Tagged {
            rows.extend(sources.tags.iter().map(|(tag, visitor_days)| SourceRow {
                label: tag.clone(),
                tag: true,
                visitor_days: *visitor_days,
            }));
        }
    }
    rows
}

/// Each store's card: its availability and cost, and why it could not be
/// read (its own error, else the summaries' error).
async fn statuses(
    admin: &Admin,
    marks: &Marks,
    summary_error: Option<&str>,
    details: bool,
) -> Vec<StoreStatus> {
    let stores = admin.stores();
    let mut statuses = Vec::with_capacity(stores.len());
    for (store, error) in stores.iter().zip(&marks.errors) {
        let availability = store.availability().await;
        let cost = store.cost();
        let read_error = error.clone().or_else(|| summary_error.map(str::to_owned));
        if let Some(error) = &read_error {
            tracing::warn!(store = %store.name(), %error, "the Admin tab could not read a store");
        }
        let (reason, read_error) = if details {
            (availability.reason, read_error)
        } else {
            let reason = if availability.available {
                KEEPING
            } else {
                NOT_KEEPING
            };
            (reason.to_owned(), read_error.map(|_| NOT_READ.to_owned()))
        };
        statuses.push(StoreStatus {
            store: store.name().to_string(),
            demo: admin.is_demo(store.name()),
            available: availability.available,
            availability: reason,
            retention: availability.retention,
            operations: cost.operations,
            failures: cost.failures,
            milliseconds: u64::try_from(cost.time.as_millis()).unwrap_or(u64::MAX),
            read_error,
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
        evidence: row.evidence.words().join("; "),
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
    use activity::store::ActivityStore;

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
        let long = overview(&admin, 90, now, true).await;
        let shown = long.days.iter().find(|d| d.day == old).expect("in range");
        assert_eq!(shown.kinds, expected);
        assert_eq!(long.totals.visitors, expected);
        // In the 30-day view it is the previous period.
        let short = overview(&admin, 30, now, true).await;
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
        let view = overview(&admin, 7, now + Duration::minutes(1), true).await;
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
