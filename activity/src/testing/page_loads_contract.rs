//! The store contract's part on page loads: a visitor-day's page loads
//! written in several batches, in an order that is not time's, some of
//! them tagged with a campaign, must read
//! back as [`PageLoads::merge`] adds the same batches in the same order —
//! the check of each store's twin of the rule (for SQL, the upsert in
//! `stores/sql/src/upsert.rs`).

use chrono::{Duration, NaiveDate, TimeZone, Utc};

use crate::port::rows::{Batch, VisitorDay};
use crate::port::store::ActivityStore;
use crate::request::campaign::{Campaign, DROPPED};
use crate::request::evidence::Shape;
use crate::request::kind::Kind;

use super::contract_hits::{hit, token};

/// A request written: visitor, minute, path, whether a page load, and its
/// campaign's name.
type Written = (u8, i64, &'static str, bool, Option<&'static str>);

/// Visitors 7 to 9 on `day`, each given its page loads batch by batch.
pub(super) async fn page_loads_contract(store: &dyn ActivityStore, day: NaiveDate) {
    let name = store.name().clone();
    let at = |minute: i64| {
        Utc.from_utc_datetime(&day.and_hms_opt(8, 0, 0).unwrap_or_default())
            + Duration::minutes(minute)
    };
    // (visitor, minute, path, a page load?, its campaign's name) per batch,
    // in the order written.
    let batches: [&[Written]; 5] = [
        // Visitor 7's middle first, then its start, its end and a part that
        // overlaps; its first campaign comes in the second batch, tied in
        // time with another; visitor 8's API calls before and after its one
        // page, which is tagged; visitor 9 never loads a page.
        &[
            (7, 40, "/c", true, Some("later")),
            (7, 50, "/d", true, None),
            (8, 5, "/api/a", false, None),
        ],
        &[
            (7, 0, "/b", true, Some("zebra")),
            (7, 0, "/a", true, Some("apple")),
            (7, 20, "/a", true, None),
            (9, 1, "/api", false, None),
        ],
        &[
            (7, 300, "/e", true, Some("evening")),
            (7, 310, "/e", true, None),
            (8, 10, "/home", true, Some(DROPPED)),
        ],
        &[
            (7, 45, "/f", true, None),
            (7, 320, "/g", true, None),
            (8, 12, "/api/b", false, None),
        ],
        &[(7, 320, "/a", true, None), (9, 2, "/api", false, None)],
    ];
    let mut expected: Vec<VisitorDay> = Vec::new();
    for rows in batches {
        let hits: Vec<_> = rows
            .iter()
            .map(|(visitor, minute, path, page, campaign)| {
                let mut hit = hit(&name, at(*minute), *visitor, path, Kind::Person, None);
                if !page {
                    hit.shape = Shape::Api;
                }
                hit.campaign = campaign.map(|name| Campaign {
                    source: Some("newsletter".to_owned()),
                    medium: (name != DROPPED).then(|| "email".to_owned()),
                    name: Some(name.to_owned()),
                });
                hit
            })
            .collect();
        let batch = Batch::fold(&hits);
        store
            .record(&batch)
            .await
            .unwrap_or_else(|e| panic!("records page loads: {e}"));
        for row in batch.visitors {
            match expected.iter_mut().find(|kept| kept.visitor == row.visitor) {
                Some(kept) => kept.absorb(row),
                None => expected.push(row),
            }
        }
    }
    let kept = store
        .visitors_since(day)
        .await
        .unwrap_or_else(|e| panic!("reads visitors: {e}"));
    for n in 7..=9 {
        let pages = |rows: &[VisitorDay]| {
            rows.iter()
                .find(|row| row.day == day && row.visitor == token(n))
                .map(|row| row.pages.clone())
        };
        let want = pages(&expected);
        assert!(want.is_some(), "visitor {n} was written");
        assert_eq!(
            pages(&kept),
            want,
            "visitor {n}'s page loads add up as the rule adds them"
        );
    }
    let seven = pages_of(&kept, day, 7);
    assert_eq!(seven.count, 10);
    assert_eq!(
        seven.entry.map(|page| (page.at, page.path)),
        Some((at(0), "/a".to_owned()))
    );
    assert_eq!(
        seven.exit.map(|page| (page.at, page.path)),
        Some((at(320), "/g".to_owned()))
    );
    assert_eq!(
        seven
            .campaign
            .map(|at| (at.at, at.campaign.name.unwrap_or_default())),
        Some((at(0), "apple".to_owned())),
        "the first campaign, the smaller of two at once"
    );
    let eight = pages_of(&kept, day, 8);
    assert_eq!(
        eight
            .campaign
            .map(|at| (at.campaign.medium, at.campaign.name)),
        Some((None, Some(DROPPED.to_owned())))
    );
    assert_eq!((eight.count, eight.visits, eight.stay_ms), (1, 1, 0));
    assert_eq!(pages_of(&kept, day, 9).entry, None, "no page, no entry");
}

fn pages_of(rows: &[VisitorDay], day: NaiveDate, n: u8) -> crate::port::page_loads::PageLoads {
    rows.iter()
        .find(|row| row.day == day && row.visitor == token(n))
        .map(|row| row.pages.clone())
        .unwrap_or_default()
}
