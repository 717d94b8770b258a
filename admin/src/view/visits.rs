//! The Visits card: of the people who loaded a page, how many pages they
//! read, how many read one and left, how long they stayed, where they came
//! in and where they went out; and the Campaigns card beside it. Defined in
//! ACCURACY.md, "Visits".

use leptos::prelude::*;

use activity::filter::Dimension;

use super::filters::FilterLink;
use super::toggles::Toggles;
use crate::model::{CampaignRow, PageCount, VisitFigures, VisitTotals};

/// One rate with the previous period's beside it; a dash where nothing
/// was loaded.
#[component]
fn Rate(
    label: &'static str,
    now: Option<String>,
    before: Option<String>,
    note: &'static str,
) -> impl IntoView {
    let dash = || "–".to_owned();
    view! {
        <div class="figure">
            <span class="figure-label">{label}</span>
            <strong class="figure-value" data-figure=label>{now.unwrap_or_else(dash)}</strong>
            <span class="figure-previous">"previous period: " {before.unwrap_or_else(dash)}</span>
            <span class="card-note">{note}</span>
        </div>
    }
}

/// A list of pages with the people visitor-days on each.
#[component]
fn Pages(
    title: &'static str,
    dimension: Dimension,
    pages: Vec<PageCount>,
    toggles: Toggles,
) -> impl IntoView {
    let rows = pages
        .into_iter()
        .map(|page| {
            view! {
                <tr>
                    <th scope="row">
                        <FilterLink toggles dimension value=page.path.clone()>
                            <code>{page.path}</code>
                        </FilterLink>
                    </th>
                    <td>{page.visitor_days}</td>
                </tr>
            }
        })
        .collect_view();
    let kind = if dimension == Dimension::EntryPage {
        "entry"
    } else {
        "exit"
    };
    view! {
        <table data-pages=kind>
            <caption>{title}</caption>
            <thead><tr><th scope="col">"Page"</th><th scope="col">"Visitor-days"</th></tr></thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// People's visits over the range.
#[component]
pub(crate) fn VisitsCard(visits: VisitFigures, toggles: Toggles) -> impl IntoView {
    let VisitFigures {
        sums,
        previous,
        entries,
        exits,
        campaigns,
    } = visits;
    let rate = |of: fn(&VisitTotals) -> Option<String>| (of(&sums), of(&previous));
    let (pages_now, pages_before) = rate(VisitTotals::pages_per_visitor_day);
    let (bounce_now, bounce_before) = rate(VisitTotals::bounce_rate);
    let (stay_now, stay_before) = rate(VisitTotals::time_per_visit);
    let empty = sums.visitor_days == 0;
    view! {
        <section class="card visits-card" aria-labelledby="visits-title">
            <h2 id="visits-title">"Visits"</h2>
            <p class="card-note">
                "People's visitor-days that loaded a page: their page loads, the share that loaded one page "
                "and left, and time on site per visit (the gaps under 30 minutes between page loads; a "
                "longer gap starts another visit). A person on two networks is two visitor-days."
            </p>
            <div class="figures-card">
                <Rate label="Pages per visitor-day" now=pages_now before=pages_before
                    note="page loads, not API calls" />
                <Rate label="One-page visitor-days" now=bounce_now before=bounce_before
                    note="the bounce rate: read one page and left" />
                <Rate label="Time per visit" now=stay_now before=stay_before
                    note="the last page's reading time is not known, so not counted" />
            </div>
            {if empty {
                view! { <p class="card-note">"No people loaded a page in this range yet."</p> }.into_any()
            } else {
                view! {
                    <div class="card-pair">
                        <Pages title="Entry pages" dimension=Dimension::EntryPage pages=entries toggles />
                        <Pages title="Exit pages" dimension=Dimension::ExitPage pages=exits toggles />
                    </div>
                }
                .into_any()
            }}
        </section>
        <CampaignsCard rows=campaigns toggles />
    }
}

/// People by the campaign their first tagged page load's link named.
#[component]
fn CampaignsCard(rows: Vec<CampaignRow>, toggles: Toggles) -> impl IntoView {
    let empty = rows.is_empty();
    let label = |value: Option<String>| value.unwrap_or_else(|| "–".to_owned());
    let rows = rows
        .into_iter()
        .map(|row| {
            let campaign = row.campaign;
            let key = label(campaign.name.clone());
            let name = match campaign.name {
                Some(name) => view! {
                    <FilterLink toggles dimension=Dimension::UtmCampaign value=name.clone()>{name}</FilterLink>
                }
                .into_any(),
                None => view! { "–" }.into_any(),
            };
            view! {
                <tr data-campaign=key>
                    <th scope="row">{name}</th>
                    <td>{label(campaign.source)}</td>
                    <td>{label(campaign.medium)}</td>
                    <td>{row.visitor_days}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card campaigns-card" aria-labelledby="campaigns-title">
            <h2 id="campaigns-title">"Campaigns"</h2>
            <p class="card-note">
                "People's visitor-days by the campaign of their first page load whose link named one ("
                <code>"utm_campaign"</code>", "<code>"utm_source"</code>", "<code>"utm_medium"</code>"). "
                "A value is kept only when it reads as a label: 64 letters, digits, spaces or "
                <code>"-_.+"</code>" at most, no run of six digits; anything else is kept as "
                <code>"(dropped)"</code>", and nothing else of the address is."
            </p>
            {if empty {
                view! {
                    <p class="card-note">
                        "No people came by a campaign's link in this range. Add "
                        <code>"?utm_source=newsletter&utm_medium=email&utm_campaign=spring"</code>
                        " to the links you send."
                    </p>
                }
                .into_any()
            } else {
                view! {
                    <table>
                        <thead><tr>
                            <th scope="col">"Campaign"</th><th scope="col">"Source"</th>
                            <th scope="col">"Medium"</th><th scope="col">"Visitor-days"</th>
                        </tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                }
                .into_any()
            }}
        </section>
    }
}
