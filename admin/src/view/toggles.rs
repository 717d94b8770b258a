//! [`Toggles`]: what the reader asked to see, read once from the page's
//! query and shared by the controls, the cards and the charts; and
//! [`toggle`], a toggle's value as a render reads it.

use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_query_map};

use activity::filter::Filter;

use super::address::{self, Address, ChartChoice};
use crate::span::Span;

/// What the reader asked to see, read from the page's query.
#[derive(Clone, Copy)]
pub(crate) struct Toggles {
    /// The whole view, and what of the query could not be read.
    pub read: Memo<address::Read>,
    /// The tab's own path (links to other views keep it).
    pub path: Memo<String>,
    pub span: Signal<Span>,
    pub chart: Signal<ChartChoice>,
    pub sources: Signal<bool>,
    pub funnel: Signal<bool>,
    pub table: Signal<bool>,
    /// Which visitor-days the cards count.
    pub filter: Signal<Filter>,
}

impl Toggles {
    /// Reads the view from the router's location.
    pub(crate) fn from_location() -> Self {
        let query = use_query_map();
        let location = use_location();
        let read = Memo::new(move |_| query.with(|query| Address::read(|name| query.get(name))));
        let path = Memo::new(move |_| location.pathname.get());
        let part =
            move |of: fn(&Address) -> bool| Signal::derive(move || read.with(|r| of(&r.address)));
        Self {
            read,
            path,
            span: Signal::derive(move || read.with(|r| r.address.span)),
            chart: Signal::derive(move || read.with(|r| r.address.chart)),
            sources: part(|address| address.sources),
            funnel: part(|address| address.funnel),
            table: part(|address| address.table),
            filter: Signal::derive(move || read.with(|r| r.address.filter.clone())),
        }
    }

    /// The link to the current view changed by `change`.
    pub fn href(self, change: impl FnOnce(&mut Address)) -> String {
        let path = self.path.try_get().unwrap_or_default();
        self.read
            .try_with(|read| read.address.with(change).href(&path))
            .unwrap_or(path)
    }
}

/// A toggle's value as the cards render. A reader who leaves while the
/// server renders the cards disposes the toggles before the last steps of
/// the render read them; those steps then get the default (the page is
/// thrown away) instead of panicking the request's task.
pub(crate) fn toggle<T: Clone + Default + Send + Sync + 'static>(signal: Signal<T>) -> T {
    signal.try_get().unwrap_or_default()
}
