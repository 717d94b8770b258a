//! The charts, drawn with plotters as SVG text: visitors per day stacked by
//! kind, requests per day with one line per store, and each store's small
//! line for the stores card. The same functions run
//! on the server (the first paint, readable without JavaScript) and in the
//! browser (after a toggle or a range change). Over each day of the two big
//! charts lies a column that tells that day's figures when pointed at or
//! focused (`day_columns`): as its title, its accessible name, and words
//! drawn at the top of the plot that the style sheet shows. The legend is
//! not drawn in the plot: [`kinds_legend`] and [`store_legend`] say its
//! entries, and the chart card writes them as HTML above the chart, where
//! they can cover no bar at any width (and read as a list). A transparent
//! `rect.plot-area` marks the plotting area, for the checks that nothing
//! covers it.

use std::fmt::Write as _;

use chrono::NaiveDate;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::model::{DayKinds, NoteRow, StoreLine};
use crate::palette::{self, Colour};
use crate::words::counted;

/// The width a chart is drawn at before the browser says how wide its card
/// is (the server's first paint); in the browser it is drawn at the card's
/// own width, so that its words are as large on a phone as on a desktop.
pub const DEFAULT_WIDTH: u32 = 860;
/// The axes' font size as plotters takes it: its SVG writes a size 1.24
/// times smaller, so this is 12.9 CSS px as drawn.
const LABEL: u32 = 16;
/// The narrowest and widest a chart is drawn.
const WIDTHS: (u32, u32) = (280, 1200);
/// The family plotters writes; the style sheet gives the chart's words the
/// page's own font stack and ink (`.chart svg text`).
const FONT: &str = "sans-serif";
/// Up to this many days, each day's column is a stop for the keyboard's Tab
/// (beyond, "Show as table" is the keyboard's way to the figures).
const FOCUSABLE_DAYS: usize = 31;
/// A store's small line in the stores card.
const SPARKLINE_SIZE: (u32, u32) = (180, 36);

fn rgb(colour: Colour) -> RGBColor {
    RGBColor(colour.0, colour.1, colour.2)
}

/// A short day label: `Nov 29`.
fn day_label(day: NaiveDate) -> String {
    day.format("%b %-d").to_string()
}

/// Which of `days` days the x axis labels, at most `most` of them: always
/// the first and the last, the rest spread evenly between (every day when
/// all fit).
fn labelled_days(days: usize, most: usize) -> Vec<usize> {
    let most = most.max(2);
    if days <= most {
        return (0..days).collect();
    }
    let mut labelled: Vec<usize> = (0..most)
        .map(|k| (k * (days - 1) + (most - 1) / 2) / (most - 1))
        .collect();
    labelled.dedup();
    labelled
}

/// The x axis's day labels, each under its day's bar, drawn on the whole
/// image (`root`) so that the last one is never cut off at the edge.
fn draw_day_labels(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    chart: &Plot<'_, '_>,
    dates: &[NaiveDate],
    most: usize,
) -> Result<(), String> {
    let (width, _) = root.dim_in_pixel();
    let style =
        TextStyle::from((FONT, LABEL).into_font()).pos(plotters::style::text_anchor::Pos::new(
            plotters::style::text_anchor::HPos::Center,
            plotters::style::text_anchor::VPos::Top,
        ));
    for index in labelled_days(dates.len(), most) {
        let label = day_label(dates[index]);
        let (x, y) = chart.backend_coord(&(index as f64 + 0.5, 0.0));
        // About half the label's width at this size: kept inside the image.
        let half = (label.chars().count() as u32 * LABEL * 3 / 10) as i32;
        let x = x.clamp(half, (width as i32 - half).max(half));
        root.draw(&Text::new(label, (x, y + 8), style.clone()))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The top of the y axis: a little room above the tallest bar (the legend
/// is outside the plot).
fn axis_top(max: u64) -> f64 {
    (max.max(4).saturating_mul(11).div_ceil(10)) as f64
}

/// The most labels the y axis may have so that plotters' "nice" steps are
/// whole numbers: a step below 1 (0.5, 0.2) only fits more labels than
/// there are whole numbers under the top, so at most that many are asked
/// for. Every label is then a distinct whole number.
fn y_label_count(top: f64) -> usize {
    const MOST: usize = 11;
    if top >= MOST as f64 {
        return MOST;
    }
    // Whole numbers 0..=top: the axis is never shorter than 4.4.
    (top.floor() as usize + 1).clamp(2, MOST)
}

/// How an entry of the legend is marked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LegendMark {
    /// A filled square: a kind's bars.
    Swatch,
    /// A line with round markers: a store's line.
    LineCircles,
    /// A line with triangle markers: a store's line, past the palette's
    /// colours.
    LineTriangles,
}

/// One entry of a chart's legend.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LegendEntry {
    /// What it stands for.
    pub label: String,
    /// Its colour, `#rrggbb`.
    pub colour: String,
    /// How it is marked.
    pub mark: LegendMark,
}

/// The stacked chart's kinds, bottom first, with their colours.
const KIND_LAYERS: [(&str, Colour); 3] = [
    ("people", palette::PEOPLE),
    ("scanners and crawlers", palette::BOTS),
    ("the site's own reads", palette::SELF_READS),
];

/// The legend of the stacked chart.
pub fn kinds_legend() -> Vec<LegendEntry> {
    KIND_LAYERS
        .iter()
        .map(|(label, colour)| LegendEntry {
            label: (*label).to_owned(),
            colour: colour.hex(),
            mark: LegendMark::Swatch,
        })
        .collect()
}

/// The legend of the chart by store: each store's colour and marker.
pub fn store_legend(lines: &[StoreLine]) -> Vec<LegendEntry> {
    lines
        .iter()
        .enumerate()
        .map(|(index, line)| LegendEntry {
            label: crate::model::store_label(&line.store, line.demo),
            colour: palette::store_colour(index).hex(),
            mark: if circles(index) {
                LegendMark::LineCircles
            } else {
                LegendMark::LineTriangles
            },
        })
        .collect()
}

/// Whether a store's line has round markers (else triangles): a fifth
/// store reuses a colour with another shape.
fn circles(index: usize) -> bool {
    (index / palette::STORES.len()).is_multiple_of(2)
}

/// Where a kind's bar starts and ends on a day.
type Span = fn(&DayKinds) -> (u64, u64);

/// The plotting area both charts draw in: days along x, counts up y.
type Plot<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// A chart's size in CSS px for a card `width` wide: not as tall on a phone.
fn size(width: u32) -> (u32, u32) {
    let width = width.clamp(WIDTHS.0, WIDTHS.1);
    (width, (width * 2 / 5).clamp(240, 340))
}

/// The days a chart is drawn over: their dates, what each day's column
/// says, and the owner's notes on them.
struct Drawn<'a> {
    dates: &'a [NaiveDate],
    tips: &'a [String],
    notes: &'a [NoteRow],
}

/// Draws one chart `width` px wide: the frame (title, axes and their
/// labels), then what `series` adds, then the plotting area's mark, then a
/// column per day saying its tip, then the notes' marks; returns the SVG
/// text.
fn draw(
    width: u32,
    title: &str,
    y_desc: &str,
    drawn: &Drawn<'_>,
    top: f64,
    series: impl FnOnce(&mut Plot<'_, '_>) -> Result<(), String>,
) -> Result<String, String> {
    let Drawn { dates, tips, notes } = *drawn;
    let mut svg = String::new();
    let columns;
    {
        let size = size(width);
        let narrow = size.0 < 500;
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, if narrow { 20 } else { 24 }))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(if narrow { 60 } else { 72 })
            .build_cartesian_2d(0f64..dates.len().max(1) as f64, 0f64..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .x_desc("Day (UTC)")
            .y_desc(y_desc)
            .x_labels(0)
            .y_labels(y_label_count(top))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .label_style((FONT, LABEL))
            .axis_desc_style((FONT, LABEL))
            .draw()
            .map_err(|e| e.to_string())?;
        draw_day_labels(&root, &chart, dates, (size.0 / 110).clamp(3, 10) as usize)?;
        series(&mut chart)?;
        columns = format!(
            "{}{}{}",
            plot_area(&chart, dates.len(), top),
            day_columns(&chart, tips, top),
            note_marks(&chart, dates, notes, top)
        );
        root.present().map_err(|e| e.to_string())?;
    }
    match svg.rfind("</svg>") {
        Some(end) => svg.insert_str(end, &columns),
        None => return Err("plotters drew no closing tag".to_owned()),
    }
    Ok(svg)
}

/// A chart as an image shows it (a digest's PNG): without the columns that
/// tell a day's figures when pointed at and the notes' words, which only a
/// style sheet hides (the notes' marks stay). The days are the layer
/// `draw` adds before the notes'.
pub fn as_image(svg: &str) -> String {
    let end = svg
        .find("<g class=\"notes\">")
        .or_else(|| svg.rfind("</svg>"));
    let mut image = match (svg.find("<g class=\"days\">"), end) {
        (Some(start), Some(end)) if start < end => format!("{}{}", &svg[..start], &svg[end..]),
        _ => svg.to_owned(),
    };
    while let Some(start) = image.find("<text class=\"tip\"") {
        let Some(length) = image[start..].find("</text>") else {
            break;
        };
        image.replace_range(start..start + length + "</text>".len(), "");
    }
    image
}

/// A mark over each day that has notes: a dashed line down the plot and a
/// flag at its top, whose title and accessible name are the day's notes;
/// the same words, drawn at the plot's top right, show while it is pointed
/// at or focused (`.chart .note` in the style sheet), as a day's do.
fn note_marks(chart: &Plot<'_, '_>, dates: &[NaiveDate], notes: &[NoteRow], top: f64) -> String {
    let mut by_day: Vec<(usize, NaiveDate, Vec<&str>)> = Vec::new();
    for note in notes {
        let Some(index) = dates.iter().position(|day| *day == note.day) else {
            continue;
        };
        match by_day.iter_mut().find(|(at, _, _)| *at == index) {
            Some((_, _, texts)) => texts.push(&note.text),
            None => by_day.push((index, note.day, vec![&note.text])),
        }
    }
    if by_day.is_empty() {
        return String::new();
    }
    let (right, upper) = chart.backend_coord(&(dates.len().max(1) as f64, top));
    let mut out = String::from("<g class=\"notes\">");
    for (index, day, texts) in by_day {
        let (x, y0) = chart.backend_coord(&(index as f64 + 0.5, top));
        let (_, y1) = chart.backend_coord(&(index as f64 + 0.5, 0.0));
        let tip = escape(&format!("Note, {}: {}", tip_day(day), texts.join("; ")));
        let _ = write!(
            out,
            "<g class=\"note\" tabindex=\"0\" role=\"img\" aria-label=\"{tip}\"><title>{tip}</title>\
             <line x1=\"{x}\" y1=\"{y0}\" x2=\"{x}\" y2=\"{y1}\" stroke=\"{NOTE_INK}\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/>\
             <rect x=\"{}\" y=\"{}\" width=\"12\" height=\"{}\" fill=\"transparent\"/>\
             <path d=\"M{} {}L{} {}L{x} {}Z\" fill=\"{NOTE_INK}\"/>\
             <text class=\"tip\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{tip}</text></g>",
            x - 6,
            y0 - 10,
            (y1 - y0 + 10).max(1),
            x - 6,
            y0 - 10,
            x + 6,
            y0 - 10,
            y0 - 1,
            right - 6,
            upper + 16,
        );
    }
    out.push_str("</g>");
    out
}

/// The notes' marks: the page's ink, dark on the chart's white.
const NOTE_INK: &str = "#1b1e22";

/// The plotting area as a transparent rectangle, `rect.plot-area`.
fn plot_area(chart: &Plot<'_, '_>, days: usize, top: f64) -> String {
    let (left, upper) = chart.backend_coord(&(0.0, top));
    let (right, lower) = chart.backend_coord(&(days.max(1) as f64, 0.0));
    format!(
        "<rect class=\"plot-area\" x=\"{left}\" y=\"{upper}\" width=\"{}\" height=\"{}\" \
         fill=\"none\" pointer-events=\"none\"/>",
        (right - left).max(1),
        (lower - upper).max(1),
    )
}

/// A column over each day's whole height: its title and accessible name
/// are the day's figures, and the same words, drawn at the plot's top
/// right, show while it is pointed at or focused (`.chart .day` in the
/// style sheet).
fn day_columns(chart: &Plot<'_, '_>, tips: &[String], top: f64) -> String {
    let (right, upper) = chart.backend_coord(&(tips.len().max(1) as f64, top));
    let tab = if tips.len() <= FOCUSABLE_DAYS {
        " tabindex=\"0\""
    } else {
        ""
    };
    let mut out = String::from("<g class=\"days\">");
    for (index, tip) in tips.iter().enumerate() {
        let (x0, y0) = chart.backend_coord(&(index as f64, top));
        let (x1, y1) = chart.backend_coord(&(index as f64 + 1.0, 0.0));
        let tip = escape(tip);
        let _ = write!(
            out,
            "<g class=\"day\"{tab} role=\"img\" aria-label=\"{tip}\"><title>{tip}</title>\
             <rect x=\"{x0}\" y=\"{y0}\" width=\"{}\" height=\"{}\" fill=\"transparent\"/>\
             <text class=\"tip\" x=\"{}\" y=\"{}\" text-anchor=\"end\">{tip}</text></g>",
            (x1 - x0).max(1),
            (y1 - y0).max(1),
            right - 6,
            upper + 16,
        );
    }
    out.push_str("</g>");
    out
}

/// `text` safe inside an SVG attribute or element.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A day as the tips say it: `Nov 29, 2026`.
fn tip_day(day: NaiveDate) -> String {
    day.format("%b %-d, %Y").to_string()
}

/// What a day of the stacked chart says.
fn kinds_tip(day: &DayKinds) -> String {
    format!(
        "{}: {}, {}, {}",
        tip_day(day.day),
        counted(day.kinds.people, "person", "people"),
        counted(
            day.kinds.bots,
            "scanner or crawler",
            "scanners and crawlers"
        ),
        counted(day.kinds.self_reads, "own read", "own reads"),
    )
}

/// What a day of the chart by store says.
fn stores_tip(day: NaiveDate, index: usize, lines: &[StoreLine]) -> String {
    let stores: Vec<String> = lines
        .iter()
        .map(|line| {
            let requests = line.requests.get(index).copied().unwrap_or(0);
            format!(
                "{} {}",
                crate::model::store_label(&line.store, line.demo),
                counted(requests, "request", "requests")
            )
        })
        .collect();
    format!("{}: {}", tip_day(day), stores.join(", "))
}

/// Visitors per day as stacked bars, `width` px wide: people at the
/// bottom, then scanners and crawlers, then the site's own reads.
pub fn stacked_kinds(days: &[DayKinds], notes: &[NoteRow], width: u32) -> Result<String, String> {
    let dates: Vec<NaiveDate> = days.iter().map(|d| d.day).collect();
    let top = axis_top(days.iter().map(|d| d.kinds.total()).max().unwrap_or(0));
    let spans: [Span; 3] = [
        |d| (0, d.kinds.people),
        |d| (d.kinds.people, d.kinds.people + d.kinds.bots),
        |d| {
            let below = d.kinds.people + d.kinds.bots;
            (below, below + d.kinds.self_reads)
        },
    ];
    let gap = if days.len() > 120 { 0.0 } else { 0.15 };
    let tips: Vec<String> = days.iter().map(kinds_tip).collect();
    draw(
        width,
        "Visitors per day",
        "Visitor-days",
        &Drawn {
            dates: &dates,
            tips: &tips,
            notes,
        },
        top,
        |chart| {
            for ((_, colour), span) in KIND_LAYERS.into_iter().zip(spans) {
                let fill = rgb(colour).filled();
                chart
                    .draw_series(days.iter().enumerate().map(|(i, day)| {
                        let (from, to) = span(day);
                        Rectangle::new(
                            [
                                (i as f64 + gap, from as f64),
                                (i as f64 + 1.0 - gap, to as f64),
                            ],
                            fill,
                        )
                    }))
                    .map_err(|e| e.to_string())?;
            }
            Ok(())
        },
    )
}

/// Requests per day, `width` px wide, one line per store, each with its own
/// colour and marker.
pub fn store_lines(
    dates: &[NaiveDate],
    lines: &[StoreLine],
    notes: &[NoteRow],
    width: u32,
) -> Result<String, String> {
    let top = axis_top(
        lines
            .iter()
            .flat_map(|line| line.requests.iter().copied())
            .max()
            .unwrap_or(0),
    );
    let tips: Vec<String> = dates
        .iter()
        .enumerate()
        .map(|(index, day)| stores_tip(*day, index, lines))
        .collect();
    draw(
        width,
        "Requests per day by store",
        "Requests",
        &Drawn {
            dates,
            tips: &tips,
            notes,
        },
        top,
        |chart| {
            for (index, line) in lines.iter().enumerate() {
                let style = rgb(palette::store_colour(index)).stroke_width(2);
                let points: Vec<(f64, f64)> = line
                    .requests
                    .iter()
                    .enumerate()
                    .map(|(i, requests)| (i as f64 + 0.5, *requests as f64))
                    .collect();
                chart
                    .draw_series(LineSeries::new(points.clone(), style))
                    .map_err(|e| e.to_string())?;
                // Markers as well as colours: a fifth store reuses a colour with another shape.
                if circles(index) {
                    chart
                        .draw_series(points.iter().map(|p| Circle::new(*p, 3, style.filled())))
                        .map_err(|e| e.to_string())?;
                } else {
                    chart
                        .draw_series(
                            points
                                .iter()
                                .map(|p| TriangleMarker::new(*p, 4, style.filled())),
                        )
                        .map_err(|e| e.to_string())?;
                }
            }
            Ok(())
        },
    )
}

/// A store's requests per day as a small line without axes (the stores
/// card), in the colour its line has in the chart by store.
pub fn sparkline(requests: &[u64], index: usize) -> Result<String, String> {
    let top = requests.iter().copied().max().unwrap_or(0).max(1) as f64 * 1.1;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SPARKLINE_SIZE).into_drawing_area();
        let mut chart = ChartBuilder::on(&root)
            .margin(3)
            .build_cartesian_2d(0f64..requests.len().max(2) as f64 - 1.0, 0f64..top)
            .map_err(|e| e.to_string())?;
        let style = rgb(palette::store_colour(index)).stroke_width(2);
        chart
            .draw_series(LineSeries::new(
                requests
                    .iter()
                    .enumerate()
                    .map(|(i, requests)| (i as f64, *requests as f64)),
                style,
            ))
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use activity::report::KindCounts;

    use super::*;

    fn day(n: u32, people: u64, bots: u64, self_reads: u64) -> DayKinds {
        DayKinds {
            day: NaiveDate::from_ymd_opt(2026, 11, n).expect("a day"),
            kinds: KindCounts {
                people,
                bots,
                self_reads,
            },
        }
    }

    #[test]
    fn the_stacked_chart_draws_each_kind_in_its_colour_with_labels() {
        let svg = stacked_kinds(
            &[day(27, 3, 1, 0), day(28, 5, 2, 1), day(29, 0, 0, 4)],
            &[],
            DEFAULT_WIDTH,
        )
        .expect("draws");
        assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
        for colour in palette::KINDS {
            assert!(svg.contains(&colour.hex().to_uppercase()) || svg.contains(&colour.hex()));
        }
        for text in ["Visitors per day", "Day (UTC)", "Nov 28"] {
            assert!(svg.contains(text), "missing {text}");
        }
        // The legend is the card's HTML, not a box drawn over the bars.
        assert!(!svg.contains("\npeople\n"), "no legend in the plot");
        assert_eq!(svg.matches("class=\"plot-area\"").count(), 1);
        let legend = kinds_legend();
        let labels: Vec<&str> = legend.iter().map(|e| e.label.as_str()).collect();
        assert_eq!(
            labels,
            ["people", "scanners and crawlers", "the site's own reads"]
        );
        for (entry, colour) in legend.iter().zip(palette::KINDS) {
            assert_eq!(entry.colour, colour.hex());
            assert!(
                svg.to_uppercase().contains(&colour.hex().to_uppercase()),
                "its bars"
            );
        }
    }

    /// The x axis labels the range's first and last day at every width
    /// (a 30-day range ending 6 Dec once stopped at "Dec 2"), the rest
    /// spread between them, none twice.
    #[test]
    fn the_x_axis_labels_the_first_and_the_last_day() {
        assert_eq!(labelled_days(3, 7), [0, 1, 2]);
        assert_eq!(labelled_days(0, 7), Vec::<usize>::new());
        for (days, most) in [(30, 7), (30, 3), (31, 10), (90, 10), (365, 2), (8, 7)] {
            let labelled = labelled_days(days, most);
            assert_eq!(labelled.first(), Some(&0), "{days} days, {most}");
            assert_eq!(labelled.last(), Some(&(days - 1)), "{days} days, {most}");
            assert!(labelled.len() <= most, "{labelled:?}");
            assert!(
                labelled.windows(2).all(|pair| pair[0] < pair[1]),
                "{labelled:?}"
            );
        }
        let days: Vec<DayKinds> = (0..30)
            .map(|n| DayKinds {
                day: NaiveDate::from_ymd_opt(2026, 11, 7).expect("a day") + chrono::Days::new(n),
                kinds: KindCounts::default(),
            })
            .collect();
        for width in [WIDTHS.0, 390, DEFAULT_WIDTH, WIDTHS.1] {
            let svg = stacked_kinds(&days, &[], width).expect("draws");
            for label in ["Nov 7", "Dec 6"] {
                // plotters writes a text's words on a line of their own.
                assert!(
                    svg.contains(&format!(">\n{label}\n</text>")),
                    "{width} px: {label}"
                );
            }
        }
    }

    /// The tallest bar reaches near the plot's top: no room is kept for a
    /// legend inside it.
    #[test]
    fn the_bars_use_the_plots_height() {
        assert_eq!(axis_top(100), 110.0);
        assert_eq!(axis_top(0), 5.0, "an empty range still has an axis");
    }

    /// The y axis's labels as drawn (right-aligned beside the axis; the
    /// days' tips are right-aligned too, and say so by their class).
    fn y_labels(svg: &str) -> Vec<String> {
        svg.split("<text ")
            .skip(1)
            .filter(|text| {
                let tag = text.split('>').next().unwrap_or("");
                tag.contains("text-anchor=\"end\"") && !tag.contains("class=\"tip\"")
            })
            .filter_map(|text| {
                let inner = text.split_once('>')?.1;
                Some(inner.split('<').next()?.trim().to_owned())
            })
            .collect()
    }

    /// Whatever the tallest day, the axis counts in whole, distinct numbers
    /// (with one visitor-day it read 0, 0, 1, 2, 2, 2, 3: whole-number
    /// labels on half steps).
    #[test]
    fn the_y_axis_labels_are_distinct_whole_numbers_at_any_scale() {
        for tallest in [0, 1, 2, 7, 1_000_000] {
            for width in [WIDTHS.0, DEFAULT_WIDTH] {
                let svg = stacked_kinds(&[day(27, tallest, 0, 0), day(28, 0, 0, 0)], &[], width)
                    .expect("draws");
                let labels = y_labels(&svg);
                assert!(
                    labels.len() >= 2,
                    "{tallest}: an axis with labels: {labels:?}"
                );
                let numbers: Vec<u64> = labels
                    .iter()
                    .map(|label| {
                        label.parse().unwrap_or_else(|_| {
                            panic!("{tallest}: {label:?} is not a whole number")
                        })
                    })
                    .collect();
                let mut distinct = numbers.clone();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!(distinct.len(), numbers.len(), "{tallest}: {labels:?}");
                assert!(
                    *distinct.last().unwrap_or(&0) >= tallest.min(4),
                    "{tallest}: the axis reaches the tallest day: {labels:?}"
                );
            }
        }
        let lines = store_lines(
            &[NaiveDate::from_ymd_opt(2026, 11, 27).expect("a day")],
            &[StoreLine {
                store: "sqlite".to_owned(),
                demo: false,
                requests: vec![1],
            }],
            &[],
            DEFAULT_WIDTH,
        )
        .expect("draws");
        let labels = y_labels(&lines);
        assert!(
            labels.iter().all(|label| label.parse::<u64>().is_ok()),
            "{labels:?}"
        );
    }

    /// Each day tells its figures (plurals right), as its title and its
    /// accessible name; a short range's days are keyboard stops, a long
    /// one's are not.
    #[test]
    fn every_day_tells_its_figures() {
        let svg = stacked_kinds(
            &[day(27, 3, 1, 0), day(28, 1, 2, 1), day(29, 0, 0, 4)],
            &[],
            DEFAULT_WIDTH,
        )
        .expect("draws");
        assert_eq!(svg.matches("<g class=\"day\"").count(), 3, "{svg}");
        for tip in [
            "Nov 27, 2026: 3 people, 1 scanner or crawler, 0 own reads",
            "Nov 28, 2026: 1 person, 2 scanners and crawlers, 1 own read",
            "Nov 29, 2026: 0 people, 0 scanners and crawlers, 4 own reads",
        ] {
            assert!(svg.contains(&format!("<title>{tip}</title>")), "{tip}");
            assert!(svg.contains(&format!("aria-label=\"{tip}\"")), "{tip}");
        }
        assert_eq!(svg.matches("tabindex=\"0\"").count(), 3);
        assert!(svg.trim_end().ends_with("</svg>"));

        let long: Vec<DayKinds> = (0..40)
            .map(|n| DayKinds {
                day: NaiveDate::from_ymd_opt(2026, 10, 1).expect("a day") + chrono::Days::new(n),
                kinds: KindCounts::default(),
            })
            .collect();
        let svg = stacked_kinds(&long, &[], DEFAULT_WIDTH).expect("draws");
        assert_eq!(svg.matches("<title>").count(), 40);
        assert!(
            !svg.contains("tabindex"),
            "40 days are not 40 keyboard stops"
        );

        let dates = [NaiveDate::from_ymd_opt(2026, 11, 29).expect("a day")];
        let lines = [StoreLine {
            store: "sqlite".into(),
            demo: false,
            requests: vec![1],
        }];
        let svg = store_lines(&dates, &lines, &[], DEFAULT_WIDTH).expect("draws");
        assert!(
            svg.contains("<title>Nov 29, 2026: sqlite 1 request</title>"),
            "{svg}"
        );
    }

    /// Drawn at a phone's width, a chart is that wide, less tall, and its
    /// words keep their size (the browser draws it at its card's width).
    #[test]
    fn a_chart_is_drawn_at_the_width_asked_for() {
        let days = [day(27, 3, 1, 0), day(28, 1, 2, 1)];
        let narrow = stacked_kinds(&days, &[], 330).expect("draws");
        assert!(
            narrow.contains("width=\"330\" height=\"240\""),
            "{}",
            &narrow[..200]
        );
        let sizes: Vec<f64> = narrow
            .split("font-size=\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next()?.parse().ok())
            .collect();
        assert!(sizes.len() > 5, "{sizes:?}");
        assert!(
            sizes.iter().all(|size| *size >= 12.0),
            "every word at least 12 px: {sizes:?}"
        );
        let wide = stacked_kinds(&days, &[], DEFAULT_WIDTH).expect("draws");
        assert!(wide.contains("width=\"860\" height=\"340\""));
        let tiny = stacked_kinds(&days, &[], 10).expect("draws");
        assert!(tiny.contains("width=\"280\""), "never narrower than 280 px");
    }

    #[test]
    fn an_empty_range_still_draws_a_frame() {
        assert!(
            stacked_kinds(&[], &[], DEFAULT_WIDTH)
                .expect("draws")
                .contains("Visitors per day")
        );
        assert!(
            store_lines(&[], &[], &[], DEFAULT_WIDTH)
                .expect("draws")
                .contains("by store")
        );
    }

    #[test]
    fn each_store_gets_a_line_and_a_legend_entry() {
        let dates: Vec<NaiveDate> = (27..=29)
            .map(|n| NaiveDate::from_ymd_opt(2026, 11, n).expect("a day"))
            .collect();
        let lines = vec![
            StoreLine {
                store: "sqlite".into(),
                demo: false,
                requests: vec![4, 8, 2],
            },
            StoreLine {
                store: "demo".into(),
                demo: true,
                requests: vec![1, 0, 9],
            },
        ];
        let svg = store_lines(&dates, &lines, &[], DEFAULT_WIDTH).expect("draws");
        let legend = store_legend(&lines);
        assert_eq!(legend[0].label, "sqlite", "the plain store as it is named");
        assert_eq!(
            legend[1].label, "demo (demo data)",
            "the demo store is labelled"
        );
        assert_eq!(legend[1].colour, palette::store_colour(1).hex());
        assert_eq!(legend[0].mark, LegendMark::LineCircles);
        assert!(!svg.contains("\nsqlite\n"), "no legend in the plot");
        assert!(svg.matches("<polyline").count() >= 2, "a line per store");
        let many: Vec<StoreLine> = (0..=palette::STORES.len())
            .map(|n| StoreLine {
                store: format!("s{n}"),
                demo: false,
                requests: vec![1, 2, 3],
            })
            .collect();
        assert_eq!(
            store_legend(&many).last().map(|e| e.mark),
            Some(LegendMark::LineTriangles),
            "past the palette, another marker"
        );
    }

    #[test]
    fn a_sparkline_is_one_line_in_the_stores_colour() {
        let svg = sparkline(&[3, 9, 4, 12], 1).expect("draws");
        assert_eq!(svg.matches("<polyline").count(), 1, "{svg}");
        let colour = palette::store_colour(1).hex().to_uppercase();
        assert!(svg.to_uppercase().contains(&colour), "{svg}");
        assert!(
            sparkline(&[], 0)
                .expect("an empty range draws")
                .contains("<svg")
        );
    }

    #[test]
    fn a_note_is_a_mark_on_its_day_with_its_words_and_an_image_keeps_only_the_mark() {
        let days = [day(27, 3, 1, 0), day(28, 5, 2, 1), day(29, 0, 0, 4)];
        let note = |id, d: u32, text: &str| NoteRow {
            id,
            day: NaiveDate::from_ymd_opt(2026, 11, d).expect("a day"),
            text: text.to_owned(),
        };
        let notes = [
            note(1, 28, "Released 0.3"),
            note(2, 28, "a <post>"),
            note(3, 12, "outside the range"),
        ];
        let svg = stacked_kinds(&days, &notes, DEFAULT_WIDTH).expect("draws");
        assert_eq!(
            svg.matches("class=\"note\"").count(),
            1,
            "one mark for the day"
        );
        assert!(
            svg.contains("Note, Nov 28, 2026: Released 0.3; a &lt;post&gt;"),
            "{svg}"
        );
        assert!(!svg.contains("outside the range"));
        let image = as_image(&svg);
        assert!(!image.contains("class=\"days\""));
        assert!(!image.contains("class=\"tip\""));
        assert!(image.contains("stroke-dasharray=\"4 3\""), "the mark stays");
        // Without notes, nothing is added.
        let plain = stacked_kinds(&days, &[], DEFAULT_WIDTH).expect("draws");
        assert!(!plain.contains("class=\"note\""));
    }
}
