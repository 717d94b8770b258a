//! [`AdminTab`]: the tab as one component. The range and the toggles are
//! signals; the figures come from the server functions of [`crate::api`];
//! the charts are drawn from them on the server for the first paint and in
//! the browser after each change.

mod cards;
mod charts;
mod controls;
mod visitors;

use leptos::prelude::*;

use crate::api::{read_access, read_overview};
use crate::model::DEFAULT_RANGE;

pub use controls::ChartChoice;

/// What the reader has switched on; each toggle keeps the range.
#[derive(Clone, Copy)]
pub(crate) struct Toggles {
    pub range: RwSignal<u16>,
    pub chart: RwSignal<ChartChoice>,
    pub sources: RwSignal<bool>,
    pub funnel: RwSignal<bool>,
    pub table: RwSignal<bool>,
}

/// A toggle's value as the cards render. A reader who leaves while the
/// server renders the cards disposes the toggles before the last steps of
/// the render read them; those steps then get the default (the page is
/// thrown away) instead of panicking the request's task.
pub(crate) fn toggle<T: Clone + Default + Send + Sync + 'static>(signal: RwSignal<T>) -> T {
    signal.try_get().unwrap_or_default()
}

/// The Admin tab. Mount it at a route of your app (e.g. `/admin`) and add
/// [`Admin::layer`](crate::server::Admin::layer) to the server's router.
#[component]
pub fn AdminTab() -> impl IntoView {
    #[cfg(feature = "ssr")]
    crate::server::csp::send();
    let toggles = Toggles {
        range: RwSignal::new(DEFAULT_RANGE),
        chart: RwSignal::new(ChartChoice::Kinds),
        sources: RwSignal::new(false),
        funnel: RwSignal::new(false),
        table: RwSignal::new(false),
    };
    // Bumped on sign-in and sign-out, so what depends on the session reloads.
    let session = RwSignal::new(0u32);
    let access = Resource::new(move || session.get(), |_| read_access());
    let overview = Resource::new(
        move || (toggles.range.get(), session.get()),
        |(days, _)| read_overview(days),
    );

    view! {
        <section class="admin-tab" aria-labelledby="admin-title">
            <h1 id="admin-title">"Who comes"</h1>
            <controls::Controls toggles />
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
            <visitors::VisitorSection range=toggles.range access session />
        </section>
    }
}
