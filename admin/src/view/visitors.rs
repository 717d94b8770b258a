//! The signed-in part: the sign-in form, the visitor table, and the export
//! links (hourly rows for anyone who may read the tab, visitor rows for a
//! signed-in admin).

use leptos::prelude::*;
use leptos_router::hooks::use_location;

use crate::api::client::address;
use crate::api::{SignIn, SignOut, read_visitors};
use crate::model::{Access, AdminError, EXPORTS, Host, VisitorRow};
use crate::span::Span;
use crate::words::Setting;

/// Export links for the current range.
#[component]
fn Exports(span: Signal<Span>, visitors: bool) -> impl IntoView {
    let tab = use_location().pathname;
    let link = move |what: &'static str, format: &'static str| {
        let query = span.try_get().unwrap_or_default().export_query();
        let file = format!("{EXPORTS}{what}.{format}");
        format!("{}?{query}", address(&tab.get(), &file))
    };
    view! {
        <p class="exports">
            "Download the hourly rows: "
            <a href=move || link("hours", "csv") download>"CSV"</a> " · "
            <a href=move || link("hours", "json") download>"JSON"</a>
            ". The goals by hour: "
            <a href=move || link("goals", "csv") download>"CSV"</a> " · "
            <a href=move || link("goals", "json") download>"JSON"</a>
            ". The chart's notes: "
            <a href=move || link("notes", "csv") download>"CSV"</a> " · "
            <a href=move || link("notes", "json") download>"JSON"</a>
            {visitors.then(|| view! {
                ". The visitor rows: "
                <a href=move || link("visitors", "csv") download>"CSV"</a> " · "
                <a href=move || link("visitors", "json") download>"JSON"</a>
            })}
        </p>
    }
}

/// The sign-in form, or the visitor table once signed in.
#[component]
pub(crate) fn VisitorSection(
    span: Signal<Span>,
    access: Resource<Result<Access, AdminError>>,
    session: RwSignal<u32>,
) -> impl IntoView {
    let sign_in = ServerAction::<SignIn>::new();
    let sign_out = ServerAction::<SignOut>::new();
    // The forms post to the tab's own address without JavaScript too (the
    // server sends the browser back to the tab); with it, they call the
    // functions and the page stays.
    let password = NodeRef::<leptos::html::Input>::new();
    let tab = use_location().pathname;
    // Read both before deciding, so the effect keeps tracking both actions.
    Effect::new(move |_| {
        let signed_in = matches!(sign_in.value().get(), Some(Ok(())));
        let signed_out = matches!(sign_out.value().get(), Some(Ok(())));
        if signed_in || signed_out {
            session.update(|n| *n += 1);
        }
    });
    let refused = move || match sign_in.value().get() {
        Some(Err(error)) => Some(error.sentence()),
        _ => None,
    };
    view! {
        <section class="card visitors-card" aria-labelledby="visitors-title">
            <h2 id="visitors-title">"Visitors"</h2>
            <Transition fallback=|| ()>
                {move || Suspend::new(async move {
                    let access = access.await.unwrap_or_default();
                    if access.signed_in {
                        view! {
                            <Exports span visitors=true />
                            <form method="post" action=move || address(&tab.get(), "sign-out")
                                on:submit=move |event| {
                                    event.prevent_default();
                                    sign_out.dispatch(SignOut {});
                                }>
                                <button type="submit" class="sign-out">"Sign out"</button>
                            </form>
                            <VisitorTable span session />
                        }
                        .into_any()
                    } else if access.sign_in_possible {
                        view! {
                            {(!access.private).then(|| view! { <Exports span visitors=false /> })}
                            <p class="card-note">"The visitor table (one row per visitor-day) is for the signed-in admin only."</p>
                            <form method="post" action=move || address(&tab.get(), "sign-in") class="sign-in"
                                on:submit=move |event| {
                                    event.prevent_default();
                                    let password = password.get().map(|input| input.value()).unwrap_or_default();
                                    sign_in.dispatch(SignIn { password });
                                }>
                                <label>
                                    "Admin password "
                                    <input type="password" name="password" autocomplete="current-password" required node_ref=password />
                                </label>
                                <button type="submit">"Sign in"</button>
                            </form>
                            {move || refused().map(|message| view! { <p class="admin-error" role="alert">{message}</p> })}
                        }
                        .into_any()
                    } else {
                        view! {
                            <Exports span visitors=false />
                            <p class="card-note">
                                "The visitor table needs an admin password: "
                                {Setting::verb(access.host)} " " <code>{Setting::Password.as_set(access.host)}</code>
                                {(access.host == Host::Binary).then_some(" or WHOCOMES_ADMIN_PASSWORD")}
                                "."
                            </p>
                        }
                        .into_any()
                    }
                })}
            </Transition>
        </section>
    }
}

#[component]
fn VisitorTable(span: Signal<Span>, session: RwSignal<u32>) -> impl IntoView {
    let table = Resource::new(
        move || (span.try_get().unwrap_or_default(), session.get()),
        |(span, _)| {
            let (days, last) = span.call();
            read_visitors(days, last)
        },
    );
    view! {
        <Transition fallback=|| view! { <p class="loading">"Reading visitors…"</p> }>
            {move || Suspend::new(async move {
                match table.await {
                    Ok(table) => {
                        let shown = table.rows.len();
                        let rows = table.rows.into_iter().map(row).collect_view();
                        view! {
                            <table class="visitor-table">
                                <caption>{format!("Visitor-days, newest first: {shown} of {}", table.total)}</caption>
                                <thead><tr>
                                    <th scope="col">"Store"</th><th scope="col">"Day"</th><th scope="col">"Token"</th>
                                    <th scope="col">"Network"</th><th scope="col">"Country"</th><th scope="col">"First seen"</th><th scope="col">"Last seen"</th>
                                    <th scope="col">"Requests"</th><th scope="col">"Bots"</th><th scope="col">"Own reads"</th>
                                    <th scope="col">"Evidence"</th>
                                    <th scope="col">"Top paths"</th><th scope="col">"Sources"</th>
                                </tr></thead>
                                <tbody>{rows}</tbody>
                            </table>
                        }
                        .into_any()
                    }
                    Err(error) => view! { <p class="admin-error" role="alert">{error.sentence()}</p> }.into_any(),
                }
            })}
        </Transition>
    }
}

fn row(row: VisitorRow) -> impl IntoView {
    view! {
        <tr>
            <td>{row.store}</td>
            <td>{row.day.to_string()}</td>
            <td><code>{row.visitor}</code></td>
            <td>{row.network}</td>
            <td>{row.country}</td>
            <td>{row.first_seen}</td>
            <td>{row.last_seen}</td>
            <td>{row.requests}</td>
            <td>{row.bots}</td>
            <td>{row.self_reads}</td>
            <td>{row.evidence}</td>
            <td>{row.top_paths.join(" ")}</td>
            <td>{row.sources.join(" ")}</td>
        </tr>
    }
}
