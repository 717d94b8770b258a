//! The chart card: the SVG (stacked kinds, or lines by store) and the same
//! numbers as a table, for screen readers always and for everyone on
//! "Show as table". The server draws the chart at [`chart::DEFAULT_WIDTH`];
//! in the browser it is drawn again at its card's width, and again when the
//! window's width changes, so its words keep their size on a phone. The
//! legend is a list above the chart, never a box over its bars.

use chrono::NaiveDate;
use leptos::prelude::*;

use super::address::ChartChoice;
use super::toggles::toggle;
use crate::api::client::address;
use crate::api::{Annotate, RemoveNote};
use crate::chart::{self, LegendMark};
use crate::model::{DayKinds, Host, NoteRow, StoreLine, store_label};
use crate::words::Setting;
use leptos_router::hooks::use_location;

/// The chart and its table.
#[component]
pub(crate) fn ChartCard(
    days: Vec<DayKinds>,
    lines: Vec<StoreLine>,
    chart_choice: Signal<ChartChoice>,
    table: Signal<bool>,
    host: Host,
    loopback_as_people: bool,
    notes: Vec<NoteRow>,
    signed_in: bool,
) -> impl IntoView {
    let dates: Vec<NaiveDate> = days.iter().map(|d| d.day).collect();
    let width = RwSignal::new(chart::DEFAULT_WIDTH);
    let frame = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let measure = move || {
            if let Some(frame) = frame.get_untracked() {
                let now = u32::try_from(frame.client_width()).unwrap_or(0);
                if now > 0 && now != width.get_untracked() {
                    width.set(now);
                }
            }
        };
        if frame.get().is_some() {
            measure();
            let listening = window_event_listener(leptos::ev::resize, move |_| measure());
            on_cleanup(move || listening.remove());
        }
    });
    let svg = {
        let (days, dates, lines, notes) =
            (days.clone(), dates.clone(), lines.clone(), notes.clone());
        Memo::new(move |_| match toggle(chart_choice) {
            ChartChoice::Kinds => chart::stacked_kinds(&days, &notes, width.get()),
            ChartChoice::Stores => chart::store_lines(&dates, &lines, &notes, width.get()),
        })
    };
    let label = move || match toggle(chart_choice) {
        ChartChoice::Kinds => {
            "Visitors per day, stacked: people, scanners and crawlers, the site's own reads"
        }
        ChartChoice::Stores => "Requests per day, one line per store",
    };
    let table_class = move || {
        if toggle(table) {
            "figures"
        } else {
            "figures visually-hidden"
        }
    };
    let legend = {
        let lines = lines.clone();
        move || match toggle(chart_choice) {
            ChartChoice::Kinds => chart::kinds_legend(),
            ChartChoice::Stores => chart::store_legend(&lines),
        }
    };
    let kinds_table = (days.clone(), notes.clone());
    let last_day = dates.last().copied();
    let lines_table = (dates.clone(), lines.clone());
    view! {
        <figure class="card chart-card">
            <ul class="chart-legend" aria-label="Legend">
                {move || legend().into_iter().map(legend_entry).collect_view()}
            </ul>
            <div class="chart-frame" node_ref=frame>
                {move || match svg.get() {
                    Ok(svg) => view! { <div class="chart" role="group" aria-label=label inner_html=svg></div> }.into_any(),
                    Err(error) => view! { <p class="admin-error">"The chart could not be drawn: " {error}</p> }.into_any(),
                }}
            </div>
            <figcaption class="chart-note">
                "A visitor-day is one address (kept only as a daily token) on one day; "
                "the three kinds add up to the total, because each visitor-day is given exactly one kind. "
                {if loopback_as_people {
                    view! {
                        "Visits from this machine count as people here ("
                        <code>{Setting::OwnReadsAsPeople.as_set(host)}</code>
                        "); bots and scanners are under scanners and crawlers."
                    }
                    .into_any()
                } else {
                    view! {
                        "Visits from this machine count as the site's own reads ("
                        {Setting::verb(host)} " " <code>{Setting::OwnReadsAsPeople.as_set(host)}</code>
                        " to count them as people); bots and scanners are under scanners and crawlers."
                    }
                    .into_any()
                }}
            </figcaption>
            <div class=table_class>
                {move || match toggle(chart_choice) {
                    ChartChoice::Kinds => kinds_table_view(&kinds_table.0, &kinds_table.1).into_any(),
                    ChartChoice::Stores => lines_table_view(&lines_table.0, &lines_table.1).into_any(),
                }}
            </div>
            {signed_in.then(|| view! { <NotesForm notes last_day /> })}
        </figure>
    }
}

/// The signed-in admin's notes of the range, each with a button that
/// removes it, and a form that adds one. Without JavaScript the forms post
/// to the tab's functions; with it, the overview is read again.
#[component]
fn NotesForm(notes: Vec<NoteRow>, last_day: Option<NaiveDate>) -> impl IntoView {
    let annotate = ServerAction::<Annotate>::new();
    let remove = ServerAction::<RemoveNote>::new();
    let session = use_context::<RwSignal<u32>>();
    Effect::new(move |_| {
        let added = matches!(annotate.value().get(), Some(Ok(())));
        let removed = matches!(remove.value().get(), Some(Ok(())));
        if let (true, Some(session)) = (added || removed, session) {
            session.update(|n| *n += 1);
        }
    });
    let refused = move || match (annotate.value().get(), remove.value().get()) {
        (Some(Err(error)), _) | (_, Some(Err(error))) => Some(error.sentence()),
        _ => None,
    };
    let tab = use_location().pathname;
    let day = NodeRef::<leptos::html::Input>::new();
    let text = NodeRef::<leptos::html::Input>::new();
    let listed = notes
        .into_iter()
        .map(|note| {
            let id = note.id;
            view! {
                <li data-note-id=id.to_string()>
                    <time datetime=note.day.to_string()>{note.day.to_string()}</time>
                    " " {note.text}
                    <form method="post" action=move || address(&tab.get(), "remove-note")
                        on:submit=move |event| {
                            event.prevent_default();
                            remove.dispatch(RemoveNote { id });
                        }>
                        <input type="hidden" name="id" value=id.to_string() />
                        <button type="submit" class="remove-note">"Remove"</button>
                    </form>
                </li>
            }
        })
        .collect_view();
    view! {
        <details class="notes">
            <summary>"Notes on the chart"</summary>
            <ul class="note-list">{listed}</ul>
            <form method="post" action=move || address(&tab.get(), "annotate") class="add-note"
                on:submit=move |event| {
                    event.prevent_default();
                    let day = day.get().map(|input| input.value()).unwrap_or_default();
                    let text = text.get().map(|input| input.value()).unwrap_or_default();
                    annotate.dispatch(Annotate { day, text });
                }>
                <label>"Day " <input type="date" name="day" required value=last_day.map(|d| d.to_string()) node_ref=day /></label>
                <label>"Note " <input type="text" name="text" required maxlength="200" placeholder="Released 0.3" node_ref=text /></label>
                <button type="submit">"Add note"</button>
            </form>
            {move || refused().map(|message| view! { <p class="admin-error" role="alert">{message}</p> })}
        </details>
    }
}

/// One entry of the legend: its mark, drawn as a small SVG (the page's CSP
/// allows no inline style), then its words.
fn legend_entry(entry: chart::LegendEntry) -> impl IntoView {
    let colour = entry.colour;
    let mark = match entry.mark {
        LegendMark::Swatch => view! {
            <rect x="1" y="1" width="12" height="12" rx="2" fill=colour />
        }
        .into_any(),
        LegendMark::LineCircles => view! {
            <line x1="0" y1="7" x2="22" y2="7" stroke=colour.clone() stroke-width="2" />
            <circle cx="11" cy="7" r="3" fill=colour />
        }
        .into_any(),
        LegendMark::LineTriangles => view! {
            <line x1="0" y1="7" x2="22" y2="7" stroke=colour.clone() stroke-width="2" />
            <polygon points="11,3 15,10 7,10" fill=colour />
        }
        .into_any(),
    };
    let width = if entry.mark == LegendMark::Swatch {
        "14"
    } else {
        "22"
    };
    view! {
        <li>
            <svg class="legend-mark" width=width height="14" aria-hidden="true">{mark}</svg>
            {entry.label}
        </li>
    }
}

fn kinds_table_view(days: &[DayKinds], notes: &[NoteRow]) -> impl IntoView + use<> {
    let noted = !notes.is_empty();
    let rows = days
        .iter()
        .rev()
        .map(|d| {
            let said: Vec<&str> = notes
                .iter()
                .filter(|note| note.day == d.day)
                .map(|note| note.text.as_str())
                .collect();
            let said = said.join("; ");
            view! {
                <tr>
                    <th scope="row">{d.day.to_string()}</th>
                    <td>{d.kinds.people}</td>
                    <td>{d.kinds.bots}</td>
                    <td>{d.kinds.self_reads}</td>
                    <td>{d.kinds.total()}</td>
                    {noted.then(|| view! { <td class="note-cell">{said}</td> })}
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="kinds-table">
            <caption>"Visitors per day by kind"</caption>
            <thead>
                <tr>
                    <th scope="col">"Day (UTC)"</th>
                    <th scope="col">"People"</th>
                    <th scope="col">"Scanners and crawlers"</th>
                    <th scope="col">"Own reads"</th>
                    <th scope="col">"Total"</th>
                    {noted.then(|| view! { <th scope="col">"Notes"</th> })}
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

fn lines_table_view(dates: &[NaiveDate], lines: &[StoreLine]) -> impl IntoView + use<> {
    let head = lines
        .iter()
        .map(|line| view! { <th scope="col">{store_label(&line.store, line.demo)}</th> })
        .collect_view();
    let rows = dates
        .iter()
        .enumerate()
        .rev()
        .map(|(i, day)| {
            let cells = lines
                .iter()
                .map(|line| view! { <td>{line.requests.get(i).copied().unwrap_or(0)}</td> })
                .collect_view();
            view! {
                <tr>
                    <th scope="row">{day.to_string()}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="stores-table">
            <caption>"Requests per day by store"</caption>
            <thead>
                <tr>
                    <th scope="col">"Day (UTC)"</th>
                    {head}
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}
