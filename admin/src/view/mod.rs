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
mod filters;
mod goals;
mod page;
mod toggles;
mod visitors;
mod visits;

use leptos::prelude::*;

use crate::api::{read_access, read_overview};
use toggles::{Toggles, toggle};

pub use address::ChartChoice;
pub use page::TabPage;

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
    // The notes' form reads the overview again after a change.
    provide_context(session);
    let access = Resource::new(move || session.get(), |_| read_access());
    let overview = Resource::new(
        move || (toggle(toggles.span), toggle(toggles.filter), session.get()),
        |(span, filter, _)| {
            let (days, last) = span.call();
            read_overview(days, last, filter.to_query())
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
