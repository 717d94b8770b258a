//! The tab's cards and visitor table in the page's types: what
//! [`Reading`](reading::Reading) sums, put in the page's words. A store that
//! cannot be read is reported on its card; the others are still drawn. Only
//! a signed-in reader sees where a store is and its errors in full.

use std::collections::BTreeMap;

use activity::bot_class::BotClass;
use activity::country::{self, Country};
use activity::filter::{Filter, group_word};
use activity::goal::Goal;
use activity::report::{BotCount, SourceReport};
use activity::rows::VisitorDay;
use activity::source::SourceGroup;
use activity::summary::GoalTotal;
use activity::visits::VisitSums;
use chrono::{DateTime, NaiveDate, Utc};
use reading::{RangeFigures, StoreFigures};

use crate::model::{
    BotRow, CampaignRow, CountryRow, DayKinds, GoalRow, NoteRow, Overview, PageCount, SourceRow,
    StoreLine, StoreStatus, TOP_COUNTRIES, Totals, VisitFigures, VisitTotals, VisitorRow,
    WriterStatus,
};
use crate::server::Admin;
use crate::span::Span;

/// How many visitor rows the table shows (the export has them all).
pub const VISITOR_ROWS: usize = 500;

/// The overview of `span` (today being `now`'s day), over every store, of
/// the visitor-days `filter` lets through.
/// `details`: the reader is signed in, and may see where each store is and
/// its errors in full; anybody else reads availability in plain words that
/// name no host, port, database, file or error.
pub async fn overview(
    admin: &Admin,
    span: Span,
    now: DateTime<Utc>,
    details: bool,
    filter: &Filter,
) -> Overview {
    let today = now.date_naive();
    let figures = admin
        .reading()
        .filtered(span.days(), span.last(today), filter)
        .await;
    let RangeFigures {
        days,
        sums,
        previous,
        requests,
        previous_requests,
        funnel,
        top_paths,
        stores,
        current,
        ..
    } = figures;
    Overview {
        span,
        days: days
            .into_iter()
            .map(|(day, kinds)| DayKinds { day, kinds })
            .collect(),
        totals: Totals {
            visitors: sums.kinds,
            requests,
        },
        previous: Totals {
            visitors: previous.kinds,
            requests: previous_requests,
        },
        store_lines: stores
            .iter()
            .map(|store| StoreLine {
                store: store.name.to_string(),
                demo: admin.is_demo(&store.name),
                requests: store.requests.clone(),
            })
            .collect(),
        sources: source_rows(&sums.sources),
        countries: country_rows(&sums.countries, sums.no_country),
        visits: visit_figures(&sums.visits, &previous.visits),
        goals: goal_rows(&sums.goals),
        funnel,
        top_paths,
        bots: bot_rows(&sums.bots),
        last_five_minutes: admin
            .recorder()
            .map_or(0, |stats| stats.counted_recently(now, 300)),
        stores: stores
            .into_iter()
            .map(|store| status(admin, store, details))
            .collect(),
        writer: writer_status(admin),
        notices: admin
            .notices()
            .filter(|_| details)
            .map(|notices| notices.status()),
        host: admin.host(),
        loopback_as_people: admin.loopback_as_people(),
        current,
        filter_covers: admin
            .first_visitor_day(now)
            .filter(|kept| !filter.is_empty() && *kept > span.first(today)),
        notes: notes(admin, span.first(today), span.last(today)).await,
        signed_in: details,
    }
}

/// The owner's notes on the days from `first` to `last`, kept in the
/// site's own store; none if it cannot be read (its card says why).
pub async fn notes(admin: &Admin, first: NaiveDate, last: NaiveDate) -> Vec<NoteRow> {
    let Some(store) = admin.stores().first() else {
        return Vec::new();
    };
    match activity::annotations::between(store.as_ref(), first, last).await {
        Ok(notes) => notes
            .into_iter()
            .map(|note| NoteRow {
                id: note.id,
                day: note.day,
                text: note.text,
            })
            .collect(),
        Err(error) => {
            tracing::warn!("the chart's notes could not be read: {error}");
            Vec::new()
        }
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
                verified: count.verified,
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
        waiting: snapshot.waiting(),
        next_write_in: snapshot
            .next_write_at
            .map(|at| ((at - Utc::now()).num_milliseconds().max(0) as u64).div_ceil(1000)),
        lost: snapshot.lost,
        marks_queued: snapshot.marks_queued,
        marks_done: snapshot.marks_written + snapshot.marks_lost,
        settled: snapshot.settled(),
        untrusted_forwarding: snapshot.untrusted_forwarding,
        without_peer: snapshot.without_peer,
        connections_open: admin.connections().map(|c| c.open()),
        connections_refused: admin.connections().map_or(0, |c| c.refused_count()),
        sign_ins_refused: admin.sign_ins_refused(),
        counting: admin.recorder().is_some(),
        held_rows: snapshot.held_rows,
        held_bytes: snapshot.held_bytes,
        held_for: snapshot
            .held_since
            .map(|at| (Utc::now() - at).num_seconds().max(0).unsigned_abs()),
        journal_bytes: snapshot.journal_bytes,
        recovered: snapshot.recovered,
    }
}

/// What a stranger reads about a store: whether it keeps activity, in
/// words that say nothing of where.
const KEEPING: &str = "Keeping activity.";
const NOT_KEEPING: &str =
    "Not keeping activity right now (the server log says why; signed in, the tab does too).";
const NOT_READ: &str = "could not be read just now";

/// People by country, most first (then by code), at most
/// [`TOP_COUNTRIES`] named; then the rest summed, then those of no known
/// country. Rows of no one are left out.
fn country_rows(countries: &BTreeMap<Country, u64>, no_country: u64) -> Vec<CountryRow> {
    let mut named: Vec<(&Country, &u64)> = countries.iter().filter(|(_, n)| **n > 0).collect();
    named.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let rest: u64 = named.iter().skip(TOP_COUNTRIES).map(|(_, n)| **n).sum();
    let others = named.len().saturating_sub(TOP_COUNTRIES);
    let mut rows: Vec<CountryRow> = named
        .into_iter()
        .take(TOP_COUNTRIES)
        .map(|(country, visitor_days)| CountryRow {
            code: Some(country.to_string()),
            name: country.name().unwrap_or(country.as_str()).to_owned(),
            visitor_days: *visitor_days,
        })
        .collect();
    if rest > 0 {
        rows.push(CountryRow {
            code: None,
            name: format!("{others} other countries"),
            visitor_days: rest,
        });
    }
    if no_country > 0 {
        rows.push(CountryRow {
            code: None,
            name: "No country known".to_owned(),
            visitor_days: no_country,
        });
    }
    rows
}

/// Every goal reached, most people first (then most visitor-days, then by
/// name).
fn goal_rows(goals: &BTreeMap<Goal, GoalTotal>) -> Vec<GoalRow> {
    let mut rows: Vec<GoalRow> = goals
        .iter()
        .map(|(goal, total)| GoalRow {
            goal: goal.to_string(),
            visitor_days: total.visitor_days,
            requests: total.requests,
        })
        .collect();
    rows.sort_by(|a, b| {
        b.visitor_days
            .people
            .cmp(&a.visitor_days.people)
            .then(b.visitor_days.total().cmp(&a.visitor_days.total()))
            .then(a.goal.cmp(&b.goal))
    });
    rows
}

fn source_rows(sources: &SourceReport) -> Vec<SourceRow> {
    let mut rows = Vec::new();
    for group in SourceGroup::ALL {
        let visitor_days = sources.groups.get(&group).copied().unwrap_or(0);
        rows.push(SourceRow {
            label: group.label().to_owned(),
            tag: false,
            filter: group_word(group).to_owned(),
            visitor_days,
        });
        if group == SourceGroup::Tagged {
            rows.extend(sources.tags.iter().map(|(tag, visitor_days)| SourceRow {
                label: tag.clone(),
                tag: true,
                filter: format!("tag:{tag}"),
                visitor_days: *visitor_days,
            }));
        }
    }
    rows
}

/// A store's card: its availability and cost, and why it could not be read.
fn status(admin: &Admin, store: StoreFigures, details: bool) -> StoreStatus {
    let read_error = store.error.map(|error| error.to_string());
    if let Some(error) = &read_error {
        tracing::warn!(store = %store.name, %error, "the Admin tab could not read a store");
    }
    let availability = store.availability;
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
    StoreStatus {
        store: store.name.to_string(),
        demo: admin.is_demo(&store.name),
        available: availability.available,
        availability: reason,
        retention: availability.retention,
        operations: store.cost.operations,
        failures: store.cost.failures,
        milliseconds: u64::try_from(store.cost.time.as_millis()).unwrap_or(u64::MAX),
        read_error,
        read_at: store
            .read_at
            .map(|at| at.format("%Y-%m-%d %H:%M:%S UTC").to_string()),
    }
}

/// The visitor-days of `span`, newest day first, at most [`VISITOR_ROWS`];
/// and how many there are in all.
pub async fn visitors(admin: &Admin, span: Span, now: DateTime<Utc>) -> (Vec<VisitorRow>, usize) {
    let today = now.date_naive();
    let (since, until) = (span.first(today), span.call().1);
    let (rows, total) = admin
        .reading()
        .latest_visitors(since, until, VISITOR_ROWS)
        .await;
    (rows.into_iter().map(visitor_row).collect(), total)
}

fn visitor_row(row: VisitorDay) -> VisitorRow {
    let mut paths = row.top_paths.clone();
    paths.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.path.cmp(&b.path)));
    VisitorRow {
        store: row.store.to_string(),
        day: row.day,
        visitor: row.visitor.to_string(),
        network: row.network.to_string(),
        country: row
            .country
            .map_or_else(|| country::UNKNOWN.to_owned(), |c| c.to_string()),
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

/// How many entry (and exit) pages the Visits card lists.
const TOP_ENTRY_PAGES: usize = 10;

/// How many campaigns the Campaigns card lists.
const TOP_CAMPAIGNS: usize = 20;

/// People's visits over the range, and the sums of the period before.
fn visit_figures(sums: &VisitSums, previous: &VisitSums) -> VisitFigures {
    let totals = |sums: &VisitSums| VisitTotals {
        visitor_days: sums.visitor_days,
        page_loads: sums.page_loads,
        one_page: sums.one_page,
        visits: sums.visits,
        stay_ms: sums.stay_ms,
    };
    let pages = |pages| {
        VisitSums::top(pages, TOP_ENTRY_PAGES)
            .into_iter()
            .map(|(path, visitor_days)| PageCount { path, visitor_days })
            .collect()
    };
    VisitFigures {
        sums: totals(sums),
        previous: totals(previous),
        entries: pages(&sums.entries),
        exits: pages(&sums.exits),
        campaigns: VisitSums::top(&sums.campaigns, TOP_CAMPAIGNS)
            .into_iter()
            .map(|(campaign, visitor_days)| CampaignRow {
                campaign,
                visitor_days,
            })
            .collect(),
    }
}
