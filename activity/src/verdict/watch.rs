//! The signs that need time (SPEC §3), kept in a short memory while
//! requests are taken in arrival order: a file fetched before its page, a
//! form posted at once, a rate no reader keeps. [`Watch::see`] is the one
//! way in, for the live writer, `explain` and `import` alike.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use chrono::{DateTime, NaiveDate, Utc};

use crate::request::evidence::{Evidence, INSTANT_POST, RATE_PAGES, RATE_WINDOW, Shape};
use crate::request::hit::Hit;
use crate::request::mark::FilesMark;
use crate::request::seen::Seen;
use crate::visitor::token::VisitorToken;

/// The writer's short memory of each recent visitor-day: when it last
/// loaded a page, its page requests in the current rate window, and
/// whether it already fetched one of the page's files (so that a file
/// fetched before the visitor-day's first hit — a log out of order, a page
/// kept open past midnight — still marks it). Held in memory only, keyed by
/// a hash of day and token; never stored. Bounded: past [`Watch::MOST`]
/// visitor-days the quiet ones go (the files' memory starts again).
#[derive(Debug, Default)]
pub struct Watch {
    recent: HashMap<u64, Recent>,
    files: HashMap<u64, Evidence>,
    newest: i64,
}

#[derive(Clone, Copy, Debug)]
struct Recent {
    last_page_load: Option<i64>,
    window: i64,
    pages: u16,
    seen: i64,
}

impl Watch {
    /// The most visitor-days remembered at once.
    pub const MOST: usize = 100_000;

    /// Takes in what one request left, in arrival order: a file's mark is
    /// remembered for its visitor-day; a hit gets the signs that need time
    /// added to its evidence. The one way the writer, `explain` and `import`
    /// drive the watch.
    pub fn see(&mut self, seen: &mut Seen) {
        match seen {
            Seen::Hit(hit) => self.see_hit(hit),
            Seen::Files(mark) => self.files(mark),
            Seen::Scripts(mark) => self.scripts(mark),
        }
    }

    /// [`see`](Self::see) for a hit held on its own (a decision's).
    pub fn see_hit(&mut self, hit: &mut Hit) {
        hit.evidence |= self.signs(hit.at.date_naive(), &hit.visitor, hit.at, hit.shape);
    }

    /// Notes that a visitor-day fetched one of the page's files.
    pub fn files(&mut self, mark: &FilesMark) {
        self.remember(mark, Evidence::FILES);
    }

    /// Notes that a visitor-day fetched one of the page's scripts.
    pub fn scripts(&mut self, mark: &FilesMark) {
        self.remember(mark, Evidence::FILES | Evidence::SCRIPTS);
    }

    fn remember(&mut self, mark: &FilesMark, bits: Evidence) {
        if self.files.len() >= Self::MOST {
            self.files.clear();
        }
        *self
            .files
            .entry(day_key(mark.day, &mark.visitor))
            .or_default() |= bits;
    }

    /// The signs of one request of a visitor-day that need memory, in
    /// arrival order: [`Evidence::FILES`] (and [`Evidence::SCRIPTS`]) when
    /// a file came first, [`Evidence::INSTANT_POST`] (a quick POST from a
    /// visitor-day that fetched no script) and [`Evidence::RATE`], or none.
    pub fn signs(
        &mut self,
        day: NaiveDate,
        visitor: &VisitorToken,
        at: DateTime<Utc>,
        shape: Shape,
    ) -> Evidence {
        let key = day_key(day, visitor);
        let files = self.files.get(&key).copied().unwrap_or_default();
        if !shape.is_page() {
            return files;
        }
        let millis = at.timestamp_millis();
        self.newest = self.newest.max(millis);
        if self.recent.len() >= Self::MOST {
            self.forget_quiet();
        }
        let recent = self.recent.entry(key).or_insert(Recent {
            last_page_load: None,
            window: i64::MIN,
            pages: 0,
            seen: millis,
        });
        recent.seen = recent.seen.max(millis);
        let mut signs = files;
        let window = at.timestamp().div_euclid(RATE_WINDOW);
        if window == recent.window {
            recent.pages = recent.pages.saturating_add(1);
        } else {
            recent.window = window;
            recent.pages = 1;
        }
        if recent.pages > RATE_PAGES {
            signs |= Evidence::RATE;
        }
        match shape {
            Shape::PageLoad => recent.last_page_load = Some(millis),
            Shape::FormPost => {
                let since = recent.last_page_load.map(|loaded| millis - loaded);
                let quick =
                    since.is_some_and(|ms| (0..=INSTANT_POST.num_milliseconds()).contains(&ms));
                // The page's scripts were fetched: the quick POST is theirs.
                if quick && !files.has(Evidence::SCRIPTS) {
                    signs |= Evidence::INSTANT_POST;
                }
            }
            Shape::OtherPage | Shape::Api | Shape::Script => {}
        }
        signs
    }

    /// How many visitor-days are remembered.
    pub fn len(&self) -> usize {
        self.recent.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.recent.is_empty()
    }

    /// Forgets visitor-days quiet for a minute; if that is not enough, all.
    fn forget_quiet(&mut self) {
        let horizon = self.newest - 60_000;
        self.recent.retain(|_, recent| recent.seen >= horizon);
        if self.recent.len() >= Self::MOST {
            self.recent.clear();
        }
    }
}

/// A visitor-day's key in a memory of visitor-days (this one, or a
/// caller's own tally of them): a hash of its day and token.
pub fn day_key(day: NaiveDate, visitor: &VisitorToken) -> u64 {
    let mut hasher = DefaultHasher::new();
    (day, visitor.as_str()).hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::request::hit::StoreName;

    fn token() -> VisitorToken {
        VisitorToken::parse(&"ab".repeat(16)).unwrap_or_else(|| unreachable!("a valid token"))
    }

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_764_374_400 + seconds, 0).unwrap_or_default()
    }

    #[test]
    fn a_form_posted_at_once_is_a_sign_and_one_filled_in_is_not() {
        let mut watch = Watch::default();
        let day = at(0).date_naive();
        let t = token();
        assert_eq!(watch.signs(day, &t, at(0), Shape::PageLoad), Evidence::NONE);
        assert_eq!(
            watch.signs(day, &t, at(1), Shape::FormPost),
            Evidence::INSTANT_POST
        );
        assert_eq!(
            watch.signs(day, &t, at(30), Shape::PageLoad),
            Evidence::NONE
        );
        assert_eq!(
            watch.signs(day, &t, at(45), Shape::FormPost),
            Evidence::NONE
        );
        // API requests are neither page loads nor forms.
        assert_eq!(watch.signs(day, &t, at(46), Shape::Api), Evidence::NONE);
    }

    #[test]
    fn a_file_before_the_first_hit_still_marks_the_visitor_day() {
        let mut watch = Watch::default();
        let day = at(0).date_naive();
        let t = token();
        watch.files(&FilesMark {
            store: StoreName::parse("s").unwrap_or_else(|_| unreachable!("a name")),
            day,
            visitor: t.clone(),
        });
        assert_eq!(
            watch.signs(day, &t, at(1), Shape::PageLoad),
            Evidence::FILES
        );
        assert_eq!(watch.signs(day, &t, at(2), Shape::Api), Evidence::FILES);
        let other =
            VisitorToken::parse(&"cd".repeat(16)).unwrap_or_else(|| unreachable!("a token"));
        assert_eq!(
            watch.signs(day, &other, at(3), Shape::PageLoad),
            Evidence::NONE
        );
    }

    #[test]
    fn a_quick_post_after_the_pages_scripts_is_the_pages_script() {
        let mut watch = Watch::default();
        let day = at(0).date_naive();
        let t = token();
        let mark = FilesMark {
            store: StoreName::parse("s").unwrap_or_else(|_| unreachable!("a name")),
            day,
            visitor: t.clone(),
        };
        watch.signs(day, &t, at(0), Shape::PageLoad);
        // A stylesheet alone does not make the POST a script's.
        watch.files(&mark);
        assert_eq!(
            watch.signs(day, &t, at(0), Shape::FormPost),
            Evidence::FILES | Evidence::INSTANT_POST
        );
        watch.scripts(&mark);
        watch.signs(day, &t, at(5), Shape::PageLoad);
        assert_eq!(
            watch.signs(day, &t, at(5), Shape::FormPost),
            Evidence::FILES | Evidence::SCRIPTS
        );
        // A script's request is not a page: it never adds to the rate.
        assert!(!Shape::Script.is_page());
    }

    #[test]
    fn more_pages_in_a_window_than_a_reader_keeps_is_a_sign() {
        let mut watch = Watch::default();
        let day = at(0).date_naive();
        let t = token();
        let signs: Vec<Evidence> = (0..=RATE_PAGES)
            .map(|_| watch.signs(day, &t, at(100), Shape::OtherPage))
            .collect();
        assert!(
            signs[..usize::from(RATE_PAGES)]
                .iter()
                .all(|s| *s == Evidence::NONE)
        );
        assert_eq!(signs[usize::from(RATE_PAGES)], Evidence::RATE);
        // The next window starts again.
        assert_eq!(
            watch.signs(day, &t, at(110), Shape::OtherPage),
            Evidence::NONE
        );
    }

    #[test]
    fn the_watch_stays_bounded() {
        let mut watch = Watch::default();
        let day = at(0).date_naive();
        for n in 0..(Watch::MOST as u64 + 10) {
            let token = VisitorToken::parse(&format!("{n:032x}"))
                .unwrap_or_else(|| unreachable!("a valid token"));
            watch.signs(day, &token, at(n as i64 / 100), Shape::PageLoad);
        }
        assert!(watch.len() <= Watch::MOST);
    }
}
