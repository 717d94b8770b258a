//! A digest's words: the period's figures, read through the same read side
//! as the tab (so each number is the tab's for those days), as plain text
//! and as HTML that mail clients show: one column at most 600 px wide,
//! inline styles, colours set for both text and background (and swapped
//! for a dark reader), no script, no image but the chart carried inline,
//! every word from a visit (a path, a campaign) escaped.

use activity::source::SourceGroup;
use chrono::NaiveDate;
use reading::RangeFigures;

use super::schedule::Period;

/// The most rows of a list (pages, countries, campaigns).
const ROWS: usize = 10;

/// One list of the digest: a title, its rows (what, how many), and what
/// it counts.
struct Section {
    title: &'static str,
    counts: &'static str,
    rows: Vec<(String, String)>,
}

/// What a digest says: a subject, the text, the HTML (its chart at
/// `cid:chart`).
pub struct Composed {
    /// The mail's subject.
    pub subject: String,
    /// The plain-text part.
    pub text: String,
    /// The HTML part.
    pub html: String,
}

fn span(first: NaiveDate, last: NaiveDate) -> String {
    if first == last {
        first.format("%a %-d %b %Y").to_string()
    } else {
        format!(
            "{} to {}",
            first.format("%a %-d %b"),
            last.format("%a %-d %b %Y")
        )
    }
}

/// The change from `before` to `now`, in words: `+12%`, `−5%`, `new`.
pub fn change(now: u64, before: u64) -> String {
    if before == 0 {
        return if now == 0 {
            "no change".to_owned()
        } else {
            "new".to_owned()
        };
    }
    let percent = (now as f64 - before as f64) / before as f64 * 100.0;
    if percent.round() == 0.0 {
        "no change".to_owned()
    } else if percent > 0.0 {
        format!("+{percent:.0}%")
    } else {
        format!("−{:.0}%", percent.abs())
    }
}

fn sections(figures: &RangeFigures, stores: &[(String, bool, String)]) -> Vec<Section> {
    let sums = &figures.sums;
    let mut pages: Vec<_> = figures
        .top_paths
        .iter()
        .filter(|path| path.people > 0)
        .collect();
    pages.sort_by(|a, b| b.people.cmp(&a.people).then(a.path.cmp(&b.path)));
    let pages = pages
        .into_iter()
        .take(ROWS)
        .map(|path| (path.path.clone(), path.people.to_string()))
        .collect();
    let mut sources = Vec::new();
    for group in SourceGroup::ALL {
        let people = sums.sources.groups.get(&group).copied().unwrap_or(0);
        if people > 0 {
            sources.push((group.label().to_owned(), people.to_string()));
        }
        if group == SourceGroup::Tagged {
            for (tag, people) in &sums.sources.tags {
                sources.push((format!("tag: {tag}"), people.to_string()));
            }
        }
    }
    let mut campaigns: Vec<_> = sums.visits.campaigns.iter().collect();
    campaigns.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let campaigns = campaigns
        .into_iter()
        .take(ROWS)
        .map(|(campaign, people)| {
            let words: Vec<&str> = [&campaign.source, &campaign.medium, &campaign.name]
                .into_iter()
                .flatten()
                .map(String::as_str)
                .collect();
            (words.join(" · "), people.to_string())
        })
        .collect();
    let mut countries: Vec<_> = sums.countries.iter().filter(|(_, n)| **n > 0).collect();
    countries.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut countries: Vec<(String, String)> = countries
        .into_iter()
        .take(ROWS)
        .map(|(country, people)| {
            let name = country.name().unwrap_or(country.as_str()).to_owned();
            (name, people.to_string())
        })
        .collect();
    if sums.no_country > 0 {
        countries.push(("No country known".to_owned(), sums.no_country.to_string()));
    }
    let funnel = figures
        .funnel
        .iter()
        .map(|step| {
            let share = format!("{:.0}%", step.share_of_first * 100.0);
            (step.name.clone(), format!("{} ({share})", step.visitors))
        })
        .collect();
    let bots = sums
        .bots
        .iter()
        .filter(|(_, count)| count.visitor_days > 0 || count.requests > 0)
        .map(|(class, count)| {
            (
                class.label().to_owned(),
                format!("{} ({} requests)", count.visitor_days, count.requests),
            )
        })
        .collect();
    let stores = stores
        .iter()
        .map(|(name, available, reason)| {
            let state = if *available {
                "keeping activity"
            } else {
                "not keeping activity"
            };
            (format!("{name}: {reason}"), state.to_owned())
        })
        .collect();
    vec![
        Section {
            title: "Top pages",
            counts: "people",
            rows: pages,
        },
        Section {
            title: "Sources",
            counts: "people",
            rows: sources,
        },
        Section {
            title: "Campaigns",
            counts: "people",
            rows: campaigns,
        },
        Section {
            title: "Countries",
            counts: "people",
            rows: countries,
        },
        Section {
            title: "Funnel",
            counts: "people",
            rows: funnel,
        },
        Section {
            title: "Scanners and crawlers",
            counts: "visitor-days",
            rows: bots,
        },
        Section {
            title: "Stores",
            counts: "",
            rows: stores,
        },
    ]
}

/// `text` safe in HTML.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The digest of `figures` (the period's, read through the tab's read
/// side), for `site`, with the stores' states `(name, available, words)`
/// and the dated notes of its days.
pub fn compose(
    every: &str,
    site: &str,
    period: &Period,
    figures: &RangeFigures,
    stores: &[(String, bool, String)],
    notes: &[(NaiveDate, String)],
) -> Composed {
    let people = figures.sums.kinds.people;
    let before = figures.previous.kinds.people;
    let change = change(people, before);
    let days = span(period.first, period.last);
    let subject = format!("whocomes {every} digest for {site}: {people} people ({change})");
    let headline = format!("{people} people, {days}");
    let beside = format!(
        "{change} on the {} before ({before} people). Scanners and crawlers: {}; the site's own reads: {}.",
        if period.first == period.last {
            "day".to_owned()
        } else {
            format!("{} days", (period.last - period.first).num_days() + 1)
        },
        figures.sums.kinds.bots,
        figures.sums.kinds.self_reads,
    );
    let mut sections = sections(figures, stores);
    if !notes.is_empty() {
        sections.insert(
            0,
            Section {
                title: "Notes",
                counts: "",
                rows: notes
                    .iter()
                    .map(|(day, text)| (text.clone(), day.format("%a %-d %b").to_string()))
                    .collect(),
            },
        );
    }

    let mut text = format!("{headline}\n{beside}\n");
    for section in &sections {
        if section.rows.is_empty() {
            continue;
        }
        match section.counts {
            "" => text.push_str(&format!("\n{}\n", section.title)),
            counts => text.push_str(&format!("\n{} ({counts})\n", section.title)),
        }
        for (what, count) in &section.rows {
            text.push_str(&format!("  {what}: {count}\n"));
        }
    }
    text.push_str(
        "\nVisitor-days by kind per day are in the chart of the HTML part and in the Admin tab.\n",
    );

    let mut html = String::from(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"color-scheme\" content=\"light dark\">\
         <meta name=\"supported-color-schemes\" content=\"light dark\">\
         <title>whocomes digest</title><style>\
         @media (prefers-color-scheme: dark) {\
         .page { background: #111418 !important; }\
         .card { background: #1d2127 !important; color: #e8eaed !important; }\
         .muted { color: #b0b6bd !important; }\
         .row td { border-color: #3a4048 !important; }\
         }</style></head>",
    );
    html.push_str(
        "<body class=\"page\" style=\"margin:0;padding:0;background:#f2f3f5;\">\
         <table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" class=\"page\" style=\"background:#f2f3f5;\">\
         <tr><td align=\"center\" style=\"padding:16px 8px;\">\
         <table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" class=\"card\" \
         style=\"max-width:600px;background:#ffffff;color:#1b1e22;border-radius:8px;\
         font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:15px;line-height:1.45;\">",
    );
    html.push_str(&format!(
        "<tr><td style=\"padding:20px 20px 4px;\"><p class=\"muted\" style=\"margin:0;color:#555b62;font-size:13px;\">{}</p>\
         <h1 style=\"margin:4px 0 0;font-size:24px;\">{}</h1>\
         <p class=\"muted\" style=\"margin:6px 0 0;color:#555b62;\">{}</p></td></tr>",
        escape(&format!("whocomes {every} digest · {site}")),
        escape(&headline),
        escape(&beside),
    ));
    html.push_str(
        "<tr><td style=\"padding:12px 20px;\"><div style=\"background:#ffffff;border-radius:6px;padding:4px;\">\
         <img src=\"cid:chart\" width=\"100%\" style=\"display:block;width:100%;max-width:560px;height:auto;border:0;\" \
         alt=\"Visitors per day: people, scanners and crawlers, and the site's own reads, stacked.\"></div>\
         <p style=\"margin:6px 0 0;font-size:13px;\">",
    );
    for entry in admin::chart::kinds_legend() {
        html.push_str(&format!(
            "<span style=\"display:inline-block;margin-right:14px;white-space:nowrap;\">\
             <span style=\"display:inline-block;width:11px;height:11px;background:{};border:1px solid #ffffff;vertical-align:-1px;\"></span> {}</span>",
            escape(&entry.colour),
            escape(&entry.label)
        ));
    }
    html.push_str("</p></td></tr>");
    for section in &sections {
        if section.rows.is_empty() {
            continue;
        }
        let heading = match section.counts {
            "" => escape(section.title),
            counts => format!(
                "{} <span class=\"muted\" style=\"color:#555b62;font-size:13px;font-weight:normal;\">· {}</span>",
                escape(section.title),
                escape(counts)
            ),
        };
        html.push_str(&format!(
            "<tr><td style=\"padding:8px 20px;\"><h2 style=\"margin:8px 0 4px;font-size:17px;\">{heading}</h2>\
             <table role=\"presentation\" width=\"100%\" cellpadding=\"0\" cellspacing=\"0\" style=\"table-layout:fixed;\">\
             <col><col style=\"width:9.5em;\">"
        ));
        for (what, count) in &section.rows {
            html.push_str(&format!(
                "<tr class=\"row\"><td style=\"padding:4px 0;border-bottom:1px solid #e3e5e8;overflow-wrap:anywhere;word-break:break-word;\">{}</td>\
                 <td align=\"right\" style=\"padding:4px 0 4px 12px;border-bottom:1px solid #e3e5e8;\">{}</td></tr>",
                escape(what),
                escape(count)
            ));
        }
        html.push_str("</table></td></tr>");
    }
    html.push_str(
        "<tr><td style=\"padding:12px 20px 20px;\"><p class=\"muted\" style=\"margin:0;color:#555b62;font-size:12px;\">\
         Counted by whocomes on the server, without naming anybody. Days are UTC days.</p></td></tr>\
         </table></td></tr></table></body></html>",
    );
    Composed {
        subject,
        text,
        html,
    }
}
