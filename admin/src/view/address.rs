//! The tab's view as its page's query, so that a link opens exactly that
//! view (server-rendered) and Back and Forward move between views:
//! `?range=90&chart=stores&sources=on&funnel=on&table=on`, or `from` and
//! `to` for a custom range, and the filter's conditions by their
//! dimensions' words (`&source=linkedin&page=/resume`, in
//! `activity::filter`'s form). What is the default is left out, so a plain
//! `/admin` is the default view; parameters the tab does not know (`ref`)
//! are left out of its links. A filter's values are percent-encoded
//! (`filter::encode`); the rest is digits, dashes and words.

use activity::filter::{Dimension, Filter, encode};

use crate::span::Span;

/// Which chart is shown.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChartChoice {
    /// Visitors per day, stacked by kind (the default).
    #[default]
    Kinds,
    /// Requests per day, one line per store.
    Stores,
}

/// One view of the tab.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Address {
    pub span: Span,
    pub chart: ChartChoice,
    pub sources: bool,
    pub funnel: bool,
    pub table: bool,
    /// Which visitor-days every card counts.
    pub filter: Filter,
}

/// A view, and what of its query could not be read (each bad parameter
/// reads as its default, the rest of the view is still shown).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Read {
    pub address: Address,
    pub problems: Vec<String>,
}

/// A switch's value: `on` or `off` (`1`/`0`, `true`/`false` too).
fn switch(value: Option<String>, name: &'static str, problems: &mut Vec<String>) -> bool {
    match value.as_deref().map(str::trim) {
        None | Some("" | "off" | "0" | "false") => false,
        Some("on" | "1" | "true") => true,
        Some(_) => {
            problems.push(format!("“{name}” is on or off; it is shown off."));
            false
        }
    }
}

impl Address {
    /// The view a page's query asks for; `query` gives a parameter's
    /// value (decoded) by its name.
    pub fn read(query: impl Fn(&str) -> Option<String>) -> Read {
        let mut problems = Vec::new();
        let span = Span::read(
            query("range").as_deref(),
            query("from").as_deref(),
            query("to").as_deref(),
        )
        .unwrap_or_else(|error| {
            problems.push(format!("{error} Showing {}.", Span::default().words()));
            Span::default()
        });
        let chart = match query("chart").as_deref().map(str::trim) {
            None | Some("" | "kinds") => ChartChoice::Kinds,
            Some("stores") => ChartChoice::Stores,
            Some(_) => {
                problems.push("“chart” is kinds or stores; it shows kinds.".to_owned());
                ChartChoice::Kinds
            }
        };
        let mut filter = Filter::none();
        for dimension in Dimension::ALL {
            let Some(value) = query(dimension.word()) else {
                continue;
            };
            match Filter::parse_pair(dimension.word(), &value).and_then(|c| filter.clone().with(c))
            {
                Ok(narrowed) => filter = narrowed,
                Err(error) => problems.push(format!("{error}; that condition is left out.")),
            }
        }
        let address = Self {
            span,
            chart,
            sources: switch(query("sources"), "sources", &mut problems),
            funnel: switch(query("funnel"), "funnel", &mut problems),
            table: switch(query("table"), "table", &mut problems),
            filter,
        };
        Read { address, problems }
    }

    /// Its switches' parameters, as they are written (the span's are
    /// [`Span::query`]).
    pub fn switches(&self) -> Vec<(&'static str, &'static str)> {
        let on = |name, on: bool| on.then_some((name, "on"));
        let chart = (self.chart == ChartChoice::Stores).then_some(("chart", "stores"));
        [
            chart,
            on("sources", self.sources),
            on("funnel", self.funnel),
            on("table", self.table),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The link to it from `path` (the tab's own path).
    pub fn href(&self, path: &str) -> String {
        let span = self.span.query();
        let span = span.iter().map(|(key, value)| (*key, value.as_str()));
        let pairs: Vec<String> = span
            .chain(self.switches())
            .map(|(key, value)| format!("{key}={value}"))
            .chain(
                self.filter
                    .pairs()
                    .into_iter()
                    .map(|(key, value)| format!("{key}={}", encode(&value))),
            )
            .collect();
        if pairs.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{}", pairs.join("&"))
        }
    }

    /// The same view with something changed.
    pub fn with(&self, change: impl FnOnce(&mut Self)) -> Self {
        let mut changed = self.clone();
        change(&mut changed);
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A query's parameters by name (values here need no decoding).
    fn query(text: &str) -> impl Fn(&str) -> Option<String> + '_ {
        move |name| {
            text.split('&')
                .filter_map(|pair| pair.split_once('='))
                .find(|(key, _)| *key == name)
                .map(|(_, value)| value.to_owned())
        }
    }

    #[test]
    fn a_link_opens_the_view_it_was_made_from() {
        let views = [
            "",
            "range=7",
            "range=365&chart=stores&table=on",
            "from=2026-11-01&to=2026-11-15&sources=on&funnel=on",
        ];
        for text in views {
            let read = Address::read(query(text));
            assert!(read.problems.is_empty(), "{text}: {:?}", read.problems);
            let href = read.address.href("/admin");
            assert_eq!(
                href,
                if text.is_empty() {
                    "/admin".to_owned()
                } else {
                    format!("/admin?{text}")
                }
            );
            let again = Address::read(query(href.split_once('?').map_or("", |(_, q)| q)));
            assert_eq!(again.address, read.address);
        }
    }

    #[test]
    fn a_bad_parameter_reads_as_its_default_and_says_so() {
        let read = Address::read(query("range=45&sources=maybe&funnel=on&chart=pie"));
        assert_eq!(read.address.span, Span::default());
        assert!(!read.address.sources);
        assert!(read.address.funnel, "the good parameters still count");
        assert_eq!(read.address.chart, ChartChoice::Kinds);
        assert_eq!(read.problems.len(), 3, "{:?}", read.problems);
        assert!(
            read.problems[0].ends_with("Showing the last 30 days."),
            "{:?}",
            read.problems
        );
        for problem in &read.problems {
            assert!(
                !problem.contains("45") && !problem.contains("maybe") && !problem.contains("pie")
            );
        }
    }

    #[test]
    fn a_switch_flips_one_thing_only() {
        let address = Address::read(query("range=7&table=on")).address;
        let href = address
            .with(|view| view.sources = !view.sources)
            .href("/admin");
        assert_eq!(href, "/admin?range=7&sources=on&table=on");
        let href = address
            .with(|view| view.span = Span::Last(30))
            .href("/stats");
        assert_eq!(href, "/stats?table=on");
        let tagged = Address::read(query("range=7&ref=mail")).address;
        assert_eq!(
            tagged.href("/admin"),
            "/admin?range=7",
            "a tag is not the tab's"
        );
    }

    #[test]
    fn a_filter_is_part_of_the_view_and_a_bad_one_is_left_out() {
        let read = Address::read(query("range=7&source=linkedin&page=/resume&country=!FR"));
        assert!(read.problems.is_empty(), "{:?}", read.problems);
        let href = read.address.href("/admin");
        assert_eq!(
            href,
            "/admin?range=7&page=/resume&source=linkedin&country=!FR"
        );
        let again = Address::read(query(href.split_once('?').map_or("", |(_, q)| q)));
        assert_eq!(again.address, read.address);
        let bad = Address::read(query("page=&source=github"));
        assert_eq!(bad.problems.len(), 1, "{:?}", bad.problems);
        assert_eq!(bad.address.filter.conditions.len(), 1, "the good one stays");
    }
}
