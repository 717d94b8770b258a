//! The Goals card: each goal the site's handlers (or `--goal`) marked, with
//! the people who reached it (a visitor-day once, however often), their
//! share of the range's people, and the scanners' and own reads' apart.

use leptos::prelude::*;

use activity::filter::Dimension;

use super::filters::FilterLink;
use super::toggles::Toggles;
use crate::model::{GoalRow, Host};

/// What share `part` is of `whole`, in whole percent ("–" of nobody).
fn share(part: u64, whole: u64) -> String {
    if whole == 0 {
        "–".to_owned()
    } else {
        format!("{:.0} %", part as f64 * 100.0 / whole as f64)
    }
}

/// How a site marks a goal, as its reader would write it.
fn how_to_mark(host: Host) -> &'static str {
    match host {
        Host::Binary => "--goal signup=/welcome",
        Host::Embedded => "(Extension(Goal::new(\"signup\")?), body)",
    }
}

/// The goals reached over the range, most people first.
#[component]
pub(crate) fn GoalsCard(
    rows: Vec<GoalRow>,
    people: u64,
    host: Host,
    toggles: Toggles,
) -> impl IntoView {
    let body = if rows.is_empty() {
        view! {
            <p class="card-note goals-unset">
                "No goal was reached in this range. A goal marks what a request achieved (a signup, a download): "
                {match host {
                    Host::Binary => "make a path one with ",
                    Host::Embedded => "a handler marks its answer with ",
                }}
                <code>{how_to_mark(host)}</code>
                "."
            </p>
        }
        .into_any()
    } else {
        let rows = rows
            .into_iter()
            .map(|row| {
                let kinds = row.visitor_days;
                let (name, value) = (row.goal.clone(), row.goal.clone());
                view! {
                    <tr data-goal=row.goal>
                        <th scope="row">
                            <FilterLink toggles dimension=Dimension::Goal value>
                                {name}
                            </FilterLink>
                        </th>
                        <td data-column="people">{kinds.people}</td>
                        <td data-column="share">{share(kinds.people, people)}</td>
                        <td data-column="bots">{kinds.bots}</td>
                        <td data-column="self-reads">{kinds.self_reads}</td>
                        <td data-column="requests">{row.requests}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <table>
                <thead>
                    <tr>
                        <th scope="col">"Goal"</th>
                        <th scope="col">"People"</th>
                        <th scope="col">"Of all people"</th>
                        <th scope="col">"Scanners and crawlers"</th>
                        <th scope="col">"Own reads"</th>
                        <th scope="col">"Requests"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    };
    view! {
        <section class="card goals-card" aria-labelledby="goals-title">
            <h2 id="goals-title">"Goals"</h2>
            <p class="card-note">
                "Visitor-days that reached each goal, each counted once however often it did; "
                "scanners' and the site's own are kept apart. A goal can be a funnel step ("
                <code>"signed-up=goal:signup"</code> ")."
            </p>
            {body}
        </section>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_share_is_of_all_people_and_nothing_of_nobody() {
        assert_eq!(share(1, 4), "25 %");
        assert_eq!(share(2, 3), "67 %");
        assert_eq!(share(0, 0), "–");
    }
}
