//! [`AdminTab`]: the tab as one component. Its view (the range and the
//! toggles) is the page's query ([`address`]): every control is a link to
//! the view it makes, so a link opens exactly that view, rendered by the
//! server, and Back and Forward move between views. The figures come from
//! the server functions of [`crate::api`]; the charts are drawn from them
//! on the server for the first paint and in the browser after each change.

mod address;
mod cards;
mod charts;
mod controls;
mod page;
mod visitors;

use leptos::prelude::*;
use leptos_router::hooks::{use_location, use_query_map};

use crate::api::{read_access, read_overview};
use crate::span::Span;
use address::Address;

pub use controls::ChartChoice;
pub use page::TabPage;

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
}

impl Toggles {
    /// Reads the view from the router's location.
    fn from_location() -> Self {
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

/// The Admin tab. Mount it at a route of your app (e.g. `/admin`), inside
/// its `<Router>`, and add [`Admin::layer`](crate::server::Admin::layer) to
/// the server's router.
#[component]
pub fn AdminTab() -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::server::csp::send();
    let toggles = Toggles::from_location();
    // The browser calls the tab's functions beside the tab.
    #[cfg(feature = "hydrate")]
    crate::api::client::set_tab(&toggles.path.get_untracked());
    // Bumped on sign-in and sign-out, so what depends on the session reloads.
    let session = RwSignal::new(0u32);
    let access = Resource::new(move || session.get(), |_| read_access());
    let overview = Resource::new(
        move || (toggle(toggles.span), session.get()),
        |(span, _)| {
            let (days, last) = span.call();
            read_overview(days, last)
        },
    );
    let problems = move || toggles.read.with(|read| read.problems.clone());

    view! {
        <section class="admin-tab" aria-labelledby="admin-title">
            // The tab's look, served beside it: wherever it is mounted.
            <link rel="stylesheet" href=crate::style::href(&toggles.path.get_untracked()) />
            <h1 id="admin-title">"Who comes"</h1>
            <controls::Controls toggles />
            {move || {
                let problems = problems();
                (!problems.is_empty()).then(|| view! {
                    <div class="admin-error view-problems" role="alert">
                        {problems.into_iter().map(|problem| view! { <p>{problem}</p> }).collect_view()}
                    </div>
                })
            }}
            <Transition fallback=|| view! { <p class="loading">"Counting…"</p> }>
                {move || Suspend::new(async move {
                    match overview.await {
                        Ok(overview) => cards::Cards(cards::CardsProps { overview, toggles }).into_any(),
                        Err(error) => view! {
                            <p class="admin-error" role="alert">{error.sentence()}</p>
                        }
                        .into_any(),
                    }
                })}
            </Transition>
            <visitors::VisitorSection span=toggles.span access session />
        </section>
    }
}
