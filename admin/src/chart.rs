//! The charts, drawn with plotters as SVG text: visitors per day stacked by
//! kind, requests per day with one line per store, and each store's small
//! line for the stores card. The same functions run
//! on the server (the first paint, readable without JavaScript) and in the
//! browser (after a toggle or a range change).

use chrono::NaiveDate;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::model::{DayKinds, StoreLine};
use crate::palette::{self, Colour};

const SIZE: (u32, u32) = (860, 340);
const FONT: &str = "sans-serif";
/// A store's small line in the stores card.
const SPARKLINE_SIZE: (u32, u32) = (180, 36);

fn rgb(colour: Colour) -> RGBColor {
    RGBColor(colour.0, colour.1, colour.2)
}

/// A short day label: `Nov 29`.
fn day_label(days: &[NaiveDate], index: f64) -> String {
    let at = index.floor();
    if at < 0.0 {
        return String::new();
    }
    days.get(at as usize)
        .map(|day| day.format("%b %-d").to_string())
        .unwrap_or_default()
}

/// The top of the y axis: room above the tallest bar for the legend.
fn axis_top(max: u64) -> f64 {
    ((max.max(4) as f64) * 1.5).ceil()
}

/// Where a kind's bar starts and ends on a day.
type Span = fn(&DayKinds) -> (u64, u64);

/// The plotting area both charts draw in: days along x, counts up y.
type Plot<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Draws one chart: the frame (title, axes and their labels), then what
/// `series` adds, then the legend; returns the SVG text.
fn draw(
    title: &str,
    y_desc: &str,
    dates: &[NaiveDate],
    top: f64,
    series: impl FnOnce(&mut Plot<'_, '_>) -> Result<(), String>,
) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, (FONT, 20))
            .margin(12)
            .x_label_area_size(34)
            .y_label_area_size(64)
            .build_cartesian_2d(0f64..dates.len().max(1) as f64, 0f64..top)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .x_desc("Day (UTC)")
            .y_desc(y_desc)
            .x_labels(8)
            .x_label_formatter(&|x| day_label(dates, *x))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .label_style((FONT, 13))
            .draw()
            .map_err(|e| e.to_string())?;
        series(&mut chart)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.4))
            .label_font((FONT, 13))
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// Visitors per day as stacked bars: people at the bottom, then scanners and
/// crawlers, then the site's own reads.
pub fn stacked_kinds(days: &[DayKinds]) -> Result<String, String> {
    let dates: Vec<NaiveDate> = days.iter().map(|d| d.day).collect();
    let top = axis_top(days.iter().map(|d| d.kinds.total()).max().unwrap_or(0));
    let layers: [(&str, Colour, Span); 3] = [
        ("people", palette::PEOPLE, |d| (0, d.kinds.people)),
        ("scanners and crawlers", palette::BOTS, |d| {
            (d.kinds.people, d.kinds.people + d.kinds.bots)
        }),
        ("the site's own reads", palette::SELF_READS, |d| {
            let below = d.kinds.people + d.kinds.bots;
            (below, below + d.kinds.self_reads)
        }),
    ];
    let gap = if days.len() > 120 { 0.0 } else { 0.15 };
    draw("Visitors per day", "Visitor-days", &dates, top, |chart| {
        for (label, colour, span) in layers {
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
                .map_err(|e| e.to_string())?
                .label(label)
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 12, y + 6)], fill));
        }
        Ok(())
    })
}

/// Requests per day, one line per store, each with its own colour and marker.
pub fn store_lines(dates: &[NaiveDate], lines: &[StoreLine]) -> Result<String, String> {
    let top = axis_top(
        lines
            .iter()
            .flat_map(|line| line.requests.iter().copied())
            .max()
            .unwrap_or(0),
    );
    draw(
        "Requests per day by store",
        "Requests",
        dates,
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
                    .map_err(|e| e.to_string())?
                    .label(crate::model::store_label(&line.store, line.demo))
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 14, y)], style));
                // Markers as well as colours: a fifth store reuses a colour with another shape.
                if (index / palette::STORES.len()).is_multiple_of(2) {
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
        let svg =
            stacked_kinds(&[day(27, 3, 1, 0), day(28, 5, 2, 1), day(29, 0, 0, 4)]).expect("draws");
        assert!(svg.starts_with("<svg"), "{}", &svg[..40.min(svg.len())]);
        for colour in palette::KINDS {
            assert!(svg.contains(&colour.hex().to_uppercase()) || svg.contains(&colour.hex()));
        }
        for text in [
            "Visitors per day",
            "people",
            "scanners and crawlers",
            "Day (UTC)",
            "Nov 28",
        ] {
            assert!(svg.contains(text), "missing {text}");
        }
    }

    #[test]
    fn an_empty_range_still_draws_a_frame() {
        assert!(
            stacked_kinds(&[])
                .expect("draws")
                .contains("Visitors per day")
        );
        assert!(store_lines(&[], &[]).expect("draws").contains("by store"));
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
        let svg = store_lines(&dates, &lines).expect("draws");
        assert!(
            svg.contains("\nsqlite\n"),
            "the plain store as it is named: {svg}"
        );
        assert!(
            svg.contains("demo (demo data)"),
            "the demo store is labelled"
        );
        assert!(svg.matches("<polyline").count() >= 2, "a line per store");
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
}
