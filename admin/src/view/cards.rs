//! The cards of one overview: headline figures beside the previous period,
//! the chart, sources and funnel (toggled), goals, top paths, and each store's
//! health with the writer's counters. Every card says in a line what it shows;
//! while no people are counted the tab says why, and demo data says it is.

use leptos::prelude::*;

use activity::filter::Dimension;

use super::charts::ChartCard;
use super::filters::{FilterBar, FilterLink};
use super::goals::GoalsCard;
use super::toggles::{Toggles, toggle};
use super::visits::VisitsCard;
use crate::chart;
use crate::model::{
    CountryRow, Host, NoticesStatus, Overview, SourceRow, StoreLine, StoreStatus, WriterStatus,
    store_label,
};
use crate::span::Span;
use crate::words::{Setting, capitalised, counted, none_or};

/// One headline figure with the previous period's beside it.
#[component]
fn Figure(label: &'static str, now: u64, before: u64, note: &'static str) -> impl IntoView {
    view! {
        <div class="figure">
            <span class="figure-label">{label}</span>
            <strong class="figure-value" data-figure=label>{now}</strong>
            <span class="figure-previous">"previous period: " {before}</span>
            <span class="card-note">{note}</span>
        </div>
    }
}

/// What the cards show, in a line: "The last 30 days (UTC), beside the
/// 30 days before."
fn status(span: Span) -> String {
    let before = match span.days() {
        1 => "the day before".to_owned(),
        days => format!("the {days} days before"),
    };
    format!("{} (UTC), beside {before}.", capitalised(&span.words()))
}

/// Every card of an overview.
#[component]
pub(crate) fn Cards(overview: Overview, toggles: Toggles) -> impl IntoView {
    let Overview {
        span,
        days,
        totals,
        previous,
        store_lines,
        sources,
        countries,
        visits,
        goals,
        funnel,
        top_paths,
        bots,
        last_five_minutes,
        stores,
        writer,
        notices,
        host,
        loopback_as_people,
        current,
        filter_covers,
        notes,
        signed_in,
    } = overview;
    let no_people = totals.visitors.people == 0;
    let last_day = days.last().map(|day| day.day);
    let store_lines_for_card = store_lines.clone();
    let self_reads = totals.visitors.self_reads;
    let demo_stores: Vec<String> = stores
        .iter()
        .filter(|store| store.demo)
        .map(|store| store.store.clone())
        .collect();
    view! {
        // Whether a changed day was still being summed (shown as it was).
        <p class="range-status" aria-live="polite" data-current=current.to_string()>
            {status(span)}
        </p>
        <FilterBar toggles covers=filter_covers.zip(last_day) />
        <ProxyTrap untrusted_forwarding=writer.untrusted_forwarding host />
        <NoPeer without_peer=writer.without_peer />
        {(!demo_stores.is_empty()).then(|| view! { <DemoNotice stores=demo_stores host /> })}
        {no_people.then(|| view! { <NoPeopleYet during=span.during() self_reads host loopback_as_people /> })}
        <div class="card figures-card">
            <Figure label="Visitor-days" now=totals.visitors.total() before=previous.visitors.total()
                note="one address on one day, whatever it asked for" />
            <Figure label="People" now=totals.visitors.people before=previous.visitors.people
                note="visitor-days with a browser's evidence: neither bots nor the site itself" />
            <Figure label="Scanners and crawlers" now=totals.visitors.bots before=previous.visitors.bots
                note="a bot agent, probing for files a site like this never has, or a browser's agent with none of a browser's evidence" />
            <Figure label="Own reads" now=totals.visitors.self_reads before=previous.visitors.self_reads
                note="the site reading itself: this machine, or the self-read mark" />
            <Figure label="Requests" now=totals.requests before=previous.requests
                note="counted requests: pages and API calls, not files" />
            <div class="figure">
                <span class="figure-label">"Last five minutes"</span>
                <strong class="figure-value" data-figure="Last five minutes">{last_five_minutes}</strong>
                <span class="card-note">"requests this server counted, written or waiting"</span>
            </div>
        </div>
        {freshness(&writer).map(|words| view! { <p class="freshness" role="status">{words}</p> })}
        <ChartCard days lines=store_lines chart_choice=toggles.chart table=toggles.table host loopback_as_people notes signed_in />
        <Show when=move || toggle(toggles.sources)>
            <div class="card-pair">
                <SourcesCard rows=sources.clone() toggles />
                <WhereFromCard rows=countries.clone() toggles />
            </div>
        </Show>
        <VisitsCard visits toggles />
        <GoalsCard rows=goals people=totals.visitors.people host toggles />
        <Show when=move || toggle(toggles.funnel)>
            <FunnelCard steps=funnel.clone() host />
        </Show>
        <BotsCard rows=bots toggles />
        <TopPathsCard paths=top_paths toggles />
        <StoresCard stores lines=store_lines_for_card writer notices />
    }
}

/// What the tab says while no people have been counted: why this
/// machine's visits are not people, how to see them as people, where bots
/// went, and how to see a filled tab at once.
#[component]
fn NoPeopleYet(
    during: String,
    self_reads: u64,
    host: Host,
    loopback_as_people: bool,
) -> impl IntoView {
    let this_machine = if loopback_as_people {
        view! {
            <p data-own-machine="people">
                "Visits from this machine (127.0.0.1 or ::1) are counted as people here, as "
                <code>{Setting::OwnReadsAsPeople.as_set(host)}</code> " asks: a page opened in a browser "
                "on it counts once the browser has fetched the page's files."
            </p>
        }
        .into_any()
    } else {
        view! {
            <p data-own-machine="own-reads">
                "Visits from this machine (127.0.0.1 or ::1) are counted as the site's own reads, not as people: "
                "that is how a site's health checks and the owner's previews stay out of its count."
            </p>
            <p>
                "To be counted as a person, open the site from another machine, or for a trial on this one "
                {Setting::verb(host)} " " <code>{Setting::OwnReadsAsPeople.as_set(host)}</code> "."
            </p>
        }
        .into_any()
    };
    view! {
        <div class="empty-state" role="note" data-empty-state="">
            <p>
                <strong>{format!("No people counted {during} yet.")}</strong>
                {(self_reads > 0).then(|| format!(
                    " {self_reads} visitor-day{} came from the site itself.",
                    if self_reads == 1 { "" } else { "s" }
                ))}
            </p>
            {this_machine}
            <p>
                "Bots and scanners are never people: they are under scanners and crawlers "
                "(an agent that says it is a bot, or probes such as /wp-login.php). "
                "Nor is a script with a browser's agent: a visitor-day counts as people only once it "
                "fetches one of the page's files (its stylesheet, script or favicon), as every browser does."
            </p>
            {(host == Host::Binary).then(|| view! {
                <p>
                    "To see a filled tab now, serve with " <code>"--demo"</code> " (" <code>"scripts/serve --demo"</code> "): "
                    "90 days of made-up visits, kept apart in a store named demo."
                </p>
            })}
        </div>
    }
}

/// Says which stores hold made-up visits, and how to leave them out.
#[component]
fn DemoNotice(stores: Vec<String>, host: Host) -> impl IntoView {
    view! {
        <p class="demo-notice" role="note" data-demo-notice="">
            <strong>"Demo data: "</strong>
            "the store named " {stores.join(", ")} " holds made-up visits (written by "
            <code>"whocomes demo"</code> "), counted together with this site's own. "
            {match host {
                Host::Binary => view! { "Serve without " <code>"--demo"</code> " to leave them out." }.into_any(),
                Host::Embedded => view! { "Leave " <code>"AdminConfig::demo"</code> " unset and that store out of the stores read to leave them out." }.into_any(),
            }}
        </p>
    }
}

#[component]
fn SourcesCard(rows: Vec<SourceRow>, toggles: Toggles) -> impl IntoView {
    let rows = rows
        .into_iter()
        .map(|row| {
            let class = if row.tag {
                "source-tag"
            } else {
                "source-group"
            };
            view! {
                <tr class=class>
                    <th scope="row">
                        <FilterLink toggles dimension=Dimension::Source value=row.filter>{row.label}</FilterLink>
                    </th>
                    <td>{row.visitor_days}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card sources-card" aria-labelledby="sources-title">
            <h2 id="sources-title">"Where they came from"</h2>
            <p class="card-note">
                "People's visitor-days by where their page loads came from: the referrer's site, or the link's own tag (one that came from two places counts under each). "
                "A link in a PDF or an app sends no referrer, so it reads as typed."
            </p>
            <table>
                <thead><tr><th scope="col">"Source"</th><th scope="col">"Visitor-days"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
}

/// People by country: where their addresses' blocks are registered.
#[component]
fn WhereFromCard(rows: Vec<CountryRow>, toggles: Toggles) -> impl IntoView {
    let empty = rows.is_empty();
    let rows = rows
        .into_iter()
        .map(|row| {
            let code = row.code.clone().unwrap_or_default();
            view! {
                <tr data-country=code>
                    <th scope="row">
                        {match row.code {
                            Some(code) => view! {
                                <FilterLink toggles dimension=Dimension::Country value=code.clone()>
                                    <span class="country-code">{code}</span> " " {row.name}
                                </FilterLink>
                            }
                            .into_any(),
                            None => view! { {row.name} }.into_any(),
                        }}
                    </th>
                    <td>{row.visitor_days}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card where-card" aria-labelledby="where-title">
            <h2 id="where-title">"Where from"</h2>
            <p class="card-note">
                "People's visitor-days by the country their address is registered in (an offline table, "
                "looked up before the address is cut; only the country is kept). A relay or a VPN reads as "
                "its own country. Data: NRO and the regional registries, CC BY 4.0."
            </p>
            {if empty {
                view! { <p class="card-note">"No people in this range yet."</p> }.into_any()
            } else {
                view! {
                    <table>
                        <thead><tr><th scope="col">"Country"</th><th scope="col">"Visitor-days"</th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                }
                .into_any()
            }}
        </section>
    }
}

/// The funnel's steps, or, for a site that named none, how to name them.
#[component]
fn FunnelCard(steps: Vec<activity::report::FunnelCount>, host: Host) -> impl IntoView {
    if steps.is_empty() {
        return view! {
            <section class="card funnel-card" aria-labelledby="funnel-title">
                <h2 id="funnel-title">"The path through"</h2>
                <p class="card-note funnel-unset">
                    "No funnel is set. Name its steps in order, each with the paths that take it: "
                    <code>{Setting::Funnel.as_set(host)}</code>
                    {(host == Host::Binary).then(|| view! {
                        " (or "<code>"WHOCOMES_FUNNEL=\"landing=/;pricing=/pricing;signup=/signup\""</code>")"
                    })}
                    "."
                </p>
            </section>
        }
        .into_any();
    }
    let rows = steps
        .into_iter()
        .map(|step| {
            view! {
                <tr>
                    <th scope="row">{step.name}</th>
                    <td>{step.visitors}</td>
                    <td>{format!("{:.0} %", step.share_of_first * 100.0)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card funnel-card" aria-labelledby="funnel-title">
            <h2 id="funnel-title">"The path through"</h2>
            <p class="card-note">"Visitor-days of people that reached each step, and their share of the first step."</p>
            <table>
                <thead><tr><th scope="col">"Step"</th><th scope="col">"Visitor-days"</th><th scope="col">"Share of first"</th></tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
    .into_any()
}

/// Which bots came: requests and visitor-days per class of the closed list.
#[component]
fn BotsCard(rows: Vec<crate::model::BotRow>, toggles: Toggles) -> impl IntoView {
    let rows = rows
        .into_iter()
        .map(|row| {
            let class = row.class.clone();
            view! {
                <tr data-bot-class=row.class>
                    <th scope="row">
                        <FilterLink toggles dimension=Dimension::BotClass value=class>{row.label}</FilterLink>
                    </th>
                    <td>{row.requests}</td>
                    <td>{row.visitor_days}</td>
                    <td data-verified="">{row.verified}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card bots-card" aria-labelledby="bots-title">
            <h2 id="bots-title">"Which bots"</h2>
            <p class="card-note">
                "Scanners and crawlers by class, from their agent or from what they did: a probe \
                 for files a site like this never has, or a browser's agent that never fetched a \
                 page's files, counts as a scanner. One visitor-day can show several classes. \
                 A crawler that claims an operator who publishes its addresses (Googlebot, bingbot, \
                 GPTBot, …) is verified against them: from elsewhere it is a scanner. \
                 No agent text is kept."
            </p>
            <table>
                <thead><tr>
                    <th scope="col">"Class"</th><th scope="col">"Requests"</th>
                    <th scope="col">"Visitor-days"</th><th scope="col">"Verified by address"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
}

#[component]
fn TopPathsCard(paths: Vec<activity::report::PathTotal>, toggles: Toggles) -> impl IntoView {
    let rows = paths
        .into_iter()
        .map(|path| {
            view! {
                <tr>
                    <th scope="row">
                        <FilterLink toggles dimension=Dimension::Page value=path.path.clone()>
                            <code>{path.path}</code>
                        </FilterLink>
                    </th>
                    <td>{path.requests}</td>
                    <td>{path.people}</td>
                    <td>{path.bots}</td>
                    <td>{path.self_reads}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <section class="card paths-card" aria-labelledby="paths-title">
            <h2 id="paths-title">"Top paths"</h2>
            <p class="card-note">"Counted requests per path, without query strings."</p>
            <table>
                <thead><tr>
                    <th scope="col">"Path"</th><th scope="col">"Requests"</th><th scope="col">"People"</th>
                    <th scope="col">"Bots"</th><th scope="col">"Own reads"</th>
                </tr></thead>
                <tbody>{rows}</tbody>
            </table>
        </section>
    }
}

#[component]
fn StoresCard(
    stores: Vec<StoreStatus>,
    lines: Vec<StoreLine>,
    writer: WriterStatus,
    notices: Option<NoticesStatus>,
) -> impl IntoView {
    let items = stores
        .into_iter()
        .enumerate()
        .map(|(index, store)| {
            let state = if store.available { "available" } else { "unavailable" };
            let name = store.store.clone();
            let label = store_label(&store.store, store.demo);
            let line = lines
                .iter()
                .find(|line| line.store == store.store)
                .and_then(|line| chart::sparkline(&line.requests, index).ok())
                .map(|svg| {
                    let described = format!("{label}: requests per day over the range");
                    view! { <span class="sparkline" role="img" aria-label=described inner_html=svg></span> }
                });
            let cost = store_cost(&store);
            view! {
                <li class=state data-store=name data-demo=store.demo.to_string()>
                    <strong class="store-name">{label}</strong>
                    {line}
                    <dl class="facts">
                        <dt>"State"</dt>
                        <dd>
                            {store.availability}
                            {store.read_error.map(|error| view! { <span class="admin-error">" Not read: " {error}</span> })}
                            {store.read_at.map(|at| {
                                let said = format!(" Its figures are as it was last read, at {at}.");
                                view! { <span class="read-at" data-read-at=at>{said}</span> }
                            })}
                        </dd>
                        <dt>"Kept"</dt>
                        <dd>{capitalised(&store.retention)} "."</dd>
                        <dt>"Cost since this server started"</dt>
                        <dd class="cost">{cost}</dd>
                    </dl>
                </li>
            }
        })
        .collect_view();
    view! {
        <section class="card stores-card" aria-labelledby="stores-title">
            <h2 id="stores-title">"Stores"</h2>
            <p class="card-note">"Where the counts are kept, for how long, what keeping them has cost, and each store's requests per day."</p>
            <ul>{items}</ul>
            <dl class="facts server-facts" data-connections-refused=writer.connections_refused.to_string() data-sign-ins-refused=writer.sign_ins_refused.to_string()>
                // Lines only for the figures this server gave the tab.
                {writer.counting.then(|| view! {
                    <dt>"Hits from this server"</dt>
                    <dd class="writer">{writer_sentence(&writer)}</dd>
                })}
                {held_sentence(&writer).map(|said| view! {
                    <dt>"Held for the store"</dt>
                    <dd class="held" data-held-rows=writer.held_rows.to_string() data-journal-bytes=writer.journal_bytes.to_string()>{said}</dd>
                })}
                {writer.connections_open.is_some().then(|| view! {
                    <dt>"Connections"</dt>
                    <dd class="edge">{connections_sentence(&writer)}</dd>
                })}
                <dt>"Sign-ins"</dt>
                <dd>{sign_ins_sentence(&writer)}</dd>
                {notices.map(|notices| view! {
                    <dt>"Alerts"</dt>
                    <dd class="notices" data-notices-sent=notices.sent.to_string() data-notices-waiting=notices.waiting.to_string()>
                        {notices_sentence(&notices)}
                    </dd>
                })}
            </dl>
        </section>
    }
}

/// What a store's work has cost: `12 reads and writes, none failed, 34 ms.`
fn store_cost(store: &StoreStatus) -> String {
    format!(
        "{}, {} failed, {} ms.",
        counted(store.operations, "read or write", "reads and writes"),
        none_or(store.failures, |n| n.to_string()),
        store.milliseconds
    )
}

/// What the figures above do not count yet: `4 requests wait for the next
/// write, in at most 10 s.` (`None` when nothing waits).
fn freshness(writer: &WriterStatus) -> Option<String> {
    if writer.waiting == 0 {
        return None;
    }
    let waiting = counted(writer.waiting, "request waits", "requests wait");
    Some(match writer.next_write_in {
        Some(seconds) => format!(
            "{waiting} for the next write, in at most {} s; the figures above count what is written.",
            seconds.max(1)
        ),
        None => format!("{waiting} for the next write; the figures above count what is written."),
    })
}

/// The writer's figures: `1 hit queued, 1 written; none dropped, none lost.`
fn writer_sentence(writer: &WriterStatus) -> String {
    format!(
        "{} queued, {} written; {} dropped, {} lost.",
        counted(writer.queued, "hit", "hits"),
        writer.written,
        none_or(writer.dropped, |n| format!("{n} (the queue was full)")),
        none_or(writer.lost, |n| format!(
            "{n} (the store was down too long)"
        )),
    )
}

/// What the writer holds for the store: `1204 rows (1.3 MB), the oldest
/// from 4 min ago; 2.1 MB in the journal on disk.` (`None` when it holds
/// nothing and took nothing up from a journal.)
fn held_sentence(writer: &WriterStatus) -> Option<String> {
    if !writer.counting || (writer.held_rows == 0 && writer.recovered == 0) {
        return None;
    }
    let mut said = Vec::new();
    if writer.held_rows > 0 {
        let mut held = format!(
            "{} ({})",
            counted(writer.held_rows, "row", "rows"),
            size(writer.held_bytes)
        );
        if let Some(seconds) = writer.held_for {
            held.push_str(&format!(", the oldest from {} ago", duration(seconds)));
        }
        if writer.journal_bytes > 0 {
            held.push_str(&format!(
                "; {} in the journal on disk",
                size(writer.journal_bytes)
            ));
        }
        said.push(format!("{held}."));
    }
    if writer.recovered > 0 {
        said.push(format!(
            "{} left by the last run taken up from the journal.",
            capitalised(&counted(writer.recovered, "hit", "hits"))
        ));
    }
    Some(said.join(" "))
}

/// Bytes in the unit a reader takes in at a glance: `840 B`, `3.4 kB`, `1.3 MB`.
fn size(bytes: u64) -> String {
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} kB", bytes as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", bytes as f64 / 1e6),
        _ => format!("{:.1} GB", bytes as f64 / 1e9),
    }
}

/// Seconds as a reader says them: `4 s`, `3 min`, `2 h`.
fn duration(seconds: u64) -> String {
    match seconds {
        0..120 => format!("{seconds} s"),
        120..7_200 => format!("{} min", seconds / 60),
        _ => format!("{} h", seconds / 3_600),
    }
}

/// Where alerts go and what was sent: `To mail through HOST to 1
/// address: 3 sent, none failed.`, and why the waiting ones wait.
fn notices_sentence(notices: &NoticesStatus) -> String {
    let mut said = format!(
        "To {}: {} sent, {} failed.",
        notices.channels.join(" and "),
        notices.sent,
        none_or(notices.failed, |n| n.to_string()),
    );
    if notices.waiting > 0 {
        said.push_str(&format!(
            " {} waiting, tried again later",
            counted(notices.waiting, "notice", "notices")
        ));
        match &notices.last_failure {
            Some(failure) => said.push_str(&format!(": {failure}.")),
            None => said.push('.'),
        }
    }
    said
}

/// Connections open now and refused at the cap: `3 open; none refused…`.
fn connections_sentence(writer: &WriterStatus) -> String {
    let refused = none_or(writer.connections_refused, |n| format!("{n} (503)"));
    match writer.connections_open {
        Some(open) => format!("{open} open; {refused} refused because the server was full."),
        None => format!(
            "{} refused because the server was full.",
            capitalised(&refused)
        ),
    }
}

/// Sign-in attempts refused over the limit, before any password check.
fn sign_ins_sentence(writer: &WriterStatus) -> String {
    let refused = none_or(writer.sign_ins_refused, |n| {
        counted(n, "attempt (429)", "attempts (429)")
    });
    format!("{} refused for too many attempts.", capitalised(&refused))
}

/// An embedding app served without the peer's address: every visitor is
/// one, and the site's own reads are people.
#[component]
fn NoPeer(without_peer: u64) -> impl IntoView {
    (without_peer > 0).then(|| {
        view! {
            <aside class="notice no-peer" role="alert" data-without-peer=without_peer.to_string()>
                <strong>"Counted without the visitor's address. "</strong>
                {format!(
                    "{without_peer} requests came without their connection's address: they cannot be told apart, and this machine's own reads cannot be recognised. "
                )}
                "Serve the app with "<code>"into_make_service_with_connect_info::<SocketAddr>()"</code>
                " (the whocomes builder's "<code>"serve"</code>" does)."
            </aside>
        }
    })
}

/// The commonest deployment mistake, said where the admin looks: requests
/// from this machine or a private network carry a forwarding header, and
/// no proxy is trusted, so every visitor behind it is one address.
#[component]
fn ProxyTrap(untrusted_forwarding: u64, host: Host) -> impl IntoView {
    (untrusted_forwarding > 0).then(|| {
        view! {
            <aside class="notice proxy-trap" role="alert" data-proxy-trap=untrusted_forwarding.to_string()>
                <strong>"Behind a proxy that is not trusted. "</strong>
                {format!(
                    "{untrusted_forwarding} requests came from this machine or a private network with X-Forwarded-For or Forwarded, but no proxy is trusted: every visitor behind it counts as the proxy's address (on this machine, as the site's own read). "
                )}
                {capitalised(Setting::verb(host))} " " <code>{Setting::TrustedProxy.as_set(host)}</code>" (your proxy's address or range)."
            </aside>
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The held line says rows, bytes, age and the journal, and is left
    /// out when nothing is held.
    #[test]
    fn the_held_line_says_what_waits_for_the_store() {
        let mut writer = WriterStatus {
            counting: true,
            ..WriterStatus::default()
        };
        assert_eq!(held_sentence(&writer), None, "nothing held");
        writer.held_rows = 120_403;
        writer.held_bytes = 52_400_000;
        writer.held_for = Some(340);
        writer.journal_bytes = 61_000_000;
        assert_eq!(
            held_sentence(&writer).as_deref(),
            Some(
                "120403 rows (52.4 MB), the oldest from 5 min ago; 61.0 MB in the journal on disk."
            )
        );
        writer.held_rows = 0;
        writer.journal_bytes = 0;
        writer.recovered = 1;
        assert_eq!(
            held_sentence(&writer).as_deref(),
            Some("1 hit left by the last run taken up from the journal.")
        );
    }
}
