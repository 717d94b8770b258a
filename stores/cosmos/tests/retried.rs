//! A write whose reply is lost, or that reached some of a batch's
//! partitions and not the rest, is retried the way the writer retries
//! (the failed batch merged with what came since) and counts once. The
//! emulator is real; the lost reply is the store's test switch (a batch
//! that applied, then reported as failed), since no real part loses one
//! on demand.

use activity::address::Network;
use activity::bot_class::BotClass;
use activity::evidence::{Evidence, FilesMark, Shape};
use activity::rows::{Batch, Seen};
use activity::source::Source;
use activity::store::{ActivityStore, MemoryStore, Retention};
use activity::{Hit, Kind, StoreName, VisitorToken};
use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use whocomes_cosmos::CosmosStore;

fn name() -> StoreName {
    StoreName::parse("site").expect("a name")
}

/// `visitors` readers over two days, each with a few pages; every fifth a
/// bot, some brought by a referrer; marks of files for a few.
fn traffic(start: DateTime<Utc>, visitors: u32, round: u32) -> Vec<Seen> {
    let mut seen = Vec::new();
    for n in 0..visitors {
        let at = start + Duration::minutes(i64::from(n * 7 + round * 3));
        let visitor = VisitorToken::parse(&format!("{:032x}", n + 1)).expect("a token");
        let bot = n % 5 == 0;
        for (i, path) in ["/", "/pricing", "/docs/start", "/signup"]
            .iter()
            .enumerate()
        {
            if i as u32 > (n + round) % 4 {
                break;
            }
            seen.push(Seen::Hit(Hit {
                at: at + Duration::seconds(i as i64),
                visitor: visitor.clone(),
                network: Network::of(Some(std::net::IpAddr::from([203, 0, 113, (n % 250) as u8]))),
                country: activity::sample::country(n.into()),
                path: (*path).to_owned(),
                store: name(),
                kind: if bot { Kind::Bot } else { Kind::Person },
                campaign: None,
                goal: None,
                source: (i == 0 && n % 3 == 0).then(|| {
                    Source::try_from("news.ycombinator.com".to_owned()).expect("a source")
                }),
                shape: Shape::PageLoad,
                evidence: if bot { Evidence::NONE } else { Evidence::FILES },
                bot_class: bot.then_some(BotClass::Scanner),
            }));
        }
        if n % 7 == 3 {
            seen.push(Seen::Files(FilesMark {
                store: name(),
                day: at.date_naive(),
                visitor,
            }));
        }
    }
    seen
}

async fn compare(cosmos: &CosmosStore, memory: &MemoryStore) {
    let sort = |mut rows: Vec<activity::rows::HourRow>| {
        rows.sort_by(|a, b| (a.hour, &a.path).cmp(&(b.hour, &b.path)));
        rows
    };
    assert_eq!(
        sort(
            cosmos
                .hours_since(DateTime::UNIX_EPOCH)
                .await
                .expect("reads")
        ),
        sort(
            memory
                .hours_since(DateTime::UNIX_EPOCH)
                .await
                .expect("reads")
        ),
        "the same hours"
    );
    let sort = |mut rows: Vec<activity::rows::VisitorDay>| {
        rows.sort_by(|a, b| (a.day, &a.visitor).cmp(&(b.day, &b.visitor)));
        rows
    };
    assert_eq!(
        sort(cosmos.visitors_since(NaiveDate::MIN).await.expect("reads")),
        sort(memory.visitors_since(NaiveDate::MIN).await.expect("reads")),
        "the same visitor-days"
    );
    assert_eq!(
        cosmos.day_requests(NaiveDate::MIN).await.expect("reads"),
        memory.day_requests(NaiveDate::MIN).await.expect("reads")
    );
    assert_eq!(
        cosmos.bot_days_since(NaiveDate::MIN).await.expect("reads"),
        memory.bot_days_since(NaiveDate::MIN).await.expect("reads")
    );
    assert_eq!(
        cosmos.day_marks(NaiveDate::MIN).await.expect("reads"),
        memory.day_marks(NaiveDate::MIN).await.expect("reads")
    );
}

async fn open(emulator: &str) -> CosmosStore {
    CosmosStore::open(
        &format!("cosmos+emulator://{emulator}/?database=whocomes&container=activity"),
        name(),
        Retention::default(),
    )
    .await
    .expect("opens")
}

#[tokio::test]
async fn a_write_retried_after_lost_replies_counts_once() {
    // Late in the day: the batch spans two days' partitions, and each
    // day's part is more than one transactional batch (100 operations).
    let start = Utc
        .with_ymd_and_hms(2026, 12, 1, 23, 0, 0)
        .single()
        .expect("a time");
    let cosmos = open("retried").await;
    let memory = MemoryStore::new(name(), Retention::default());

    let first = Batch::fold_all(&traffic(start, 240, 0));
    memory.record(&first).await.expect("keeps");
    // The first transactional batch applies, its reply is lost.
    cosmos.lose_replies_after_applying(1);
    let error = cosmos.record(&first).await.expect_err("the reply was lost");
    assert!(error.is_transient(), "{error}");

    // Retried with what came since; two more replies lost on the way.
    let second = Batch::fold_all(&traffic(start, 240, 1));
    memory.record(&second).await.expect("keeps");
    let merged = first.clone().merge(second.clone());
    cosmos.lose_replies_after_applying(2);
    cosmos
        .record(&merged)
        .await
        .expect_err("a reply was lost again");
    cosmos.record(&merged).await.expect_err("and again");
    cosmos
        .record(&merged)
        .await
        .expect("the third retry goes through");
    compare(&cosmos, &memory).await;

    // And a plain write after it counts as usual.
    let third = Batch::fold_all(&traffic(start, 240, 2));
    memory.record(&third).await.expect("keeps");
    cosmos.record(&third).await.expect("writes");
    compare(&cosmos, &memory).await;
}
