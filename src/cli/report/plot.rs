//! The chart shapes `sebx report` draws: lines over steps, horizontal bars (with intervals,
//! or stacked), a heat map. Drawn by plotters' SVG backend, so text stays SVG `<text>` (no
//! font files) and the same input gives the same bytes. Colours are the Okabe–Ito palette
//! (told apart with every common colour-vision deficiency) and viridis for the heat map;
//! each chart keeps a legend column of its own at the right so no legend covers data.

use anyhow::{Result, anyhow};
use plotters::coord::ranged1d::SegmentedCoord;
use plotters::coord::types::{RangedCoordf64, RangedCoordu32};
use plotters::prelude::*;

/// Okabe–Ito, black last (it is the axes' colour too).
pub const PALETTE: [RGBColor; 8] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0xF0, 0xE4, 0x42), // yellow
    RGBColor(0x00, 0x00, 0x00), // black
];

/// The `i`-th colour of the palette, cycling.
pub fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

const FONT: &str = "sans-serif";
const WIDTH: u32 = 760;
const LEGEND: u32 = 200;
const GREY: RGBColor = RGBColor(0xDD, 0xDD, 0xDD);

/// The opacity that marks a dashed line in plotters' SVG (which has no dash style), made
/// `stroke-dasharray` after drawing; no other element is drawn with it.
const DASHED_OPACITY: f64 = 0.999;

/// Series of at most this many points get a dot at each.
const MARKED_POINTS: usize = 60;

fn err<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("drawing a figure: {e}")
}

/// The mesh of a chart of horizontal rows (a value axis, `x_desc`; one row per label, the
/// first on top: row i is drawn at n-1-i), as the bar and stacked-bar charts share it.
fn row_mesh<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, SegmentedCoord<RangedCoordu32>>>,
    x_desc: &str,
    labels: &[String],
) -> Result<()> {
    let n = labels.len().max(1) as u32;
    let row = |v: &SegmentValue<u32>| -> String {
        match v {
            SegmentValue::CenterOf(i) if *i < n => labels
                .get((n - 1 - i) as usize)
                .cloned()
                .unwrap_or_default(),
            _ => String::new(),
        }
    };
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .x_labels(6)
        .x_label_formatter(&|x| trim_number(*x))
        .y_labels(n as usize)
        .y_label_formatter(&row)
        .disable_y_mesh()
        .light_line_style(WHITE)
        .bold_line_style(GREY)
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 14))
        .draw()
        .map_err(err)?;
    Ok(())
}

/// One line of a line chart: points in x order; a missing value breaks nothing, it is
/// left out.
pub struct Series {
    pub label: String,
    pub colour: RGBColor,
    pub dashed: bool,
    pub points: Vec<(f64, f64)>,
    /// Intervals to draw as error bars: (x, low, high).
    pub intervals: Vec<(f64, f64, f64)>,
}

/// A vertical mark at an x (a loophole's onset), in a series' colour.
pub struct Mark {
    pub x: f64,
    pub label: String,
    pub colour: RGBColor,
}

/// A line chart: x is a step (integers), y a share or a count.
pub struct LineChart {
    pub x_desc: String,
    pub y_desc: String,
    /// `Some`: a fixed range (shares: 0 to 1); `None`: 0 to the largest value.
    pub y_range: Option<(f64, f64)>,
    pub series: Vec<Series>,
    pub marks: Vec<Mark>,
}

/// Draws the legend entries (colour, dashed, label) into the legend column.
fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(RGBColor, bool, String)],
) -> Result<()>
where
    DB::ErrorType: 'static,
{
    for (i, (c, dashed, label)) in entries.iter().enumerate() {
        let y = 30 + 20 * i as i32;
        if *dashed {
            for x in (8..32).step_by(8) {
                area.draw(&PathElement::new(
                    vec![(x, y), (x + 5, y)],
                    c.stroke_width(2),
                ))
                .map_err(err)?;
            }
        } else {
            area.draw(&PathElement::new(vec![(8, y), (32, y)], c.stroke_width(2)))
                .map_err(err)?;
        }
        area.draw(&Text::new(
            short(label, 26),
            (38, y - 7),
            (FONT, 13).into_font().color(&BLACK),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// `s` cut to `n` characters with `…`.
pub fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

/// Draws a line chart as an SVG document.
pub fn line_chart(c: &LineChart) -> Result<String> {
    let xs = c.series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if !x0.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 - x0 < 1.0 {
        (x0, x1) = (x0 - 0.5, x1 + 0.5);
    }
    let (y0, y1) = c.y_range.unwrap_or_else(|| {
        let top = c
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .fold(0.0f64, f64::max);
        (0.0, if top > 0.0 { top * 1.1 } else { 1.0 })
    });
    let steps = (x1 - x0).round() as usize + 1;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 340)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(WIDTH - LEGEND);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(err)?;
        chart
            .configure_mesh()
            .x_desc(c.x_desc.as_str())
            .y_desc(c.y_desc.as_str())
            .x_labels(steps.min(12))
            .x_label_formatter(&|x| format!("{}", x.round() as i64))
            .y_labels(6)
            .y_label_formatter(&|y| trim_number(*y))
            .light_line_style(WHITE)
            .bold_line_style(GREY)
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()
            .map_err(err)?;
        for m in &c.marks {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(m.x, y0), (m.x, y1)],
                    4,
                    4,
                    m.colour.stroke_width(1),
                ))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    m.label.clone(),
                    (m.x, y1),
                    (FONT, 12).into_font().color(&m.colour),
                )))
                .map_err(err)?;
        }
        for s in &c.series {
            // A dashed line is one polyline marked by its opacity and given its dashes
            // below (plotters' dashed series writes each dash as a polyline of its own:
            // 17,000 of them in one figure of a 500-step run).
            let style = if s.dashed {
                s.colour.mix(DASHED_OPACITY).stroke_width(2)
            } else {
                s.colour.stroke_width(2)
            };
            chart
                .draw_series(LineSeries::new(s.points.clone(), style))
                .map_err(err)?;
            // A dot per point while they are apart; on a long run they would be a smear.
            if s.points.len() <= MARKED_POINTS {
                chart
                    .draw_series(
                        s.points
                            .iter()
                            .map(|&p| Circle::new(p, 3, s.colour.filled())),
                    )
                    .map_err(err)?;
            }
            for &(x, lo, hi) in &s.intervals {
                let cap = 0.08f64.min((x1 - x0) / 80.0);
                chart
                    .draw_series([
                        PathElement::new(vec![(x, lo), (x, hi)], s.colour.stroke_width(1)),
                        PathElement::new(
                            vec![(x - cap, lo), (x + cap, lo)],
                            s.colour.stroke_width(1),
                        ),
                        PathElement::new(
                            vec![(x - cap, hi), (x + cap, hi)],
                            s.colour.stroke_width(1),
                        ),
                    ])
                    .map_err(err)?;
            }
        }
        let entries: Vec<_> = c
            .series
            .iter()
            .map(|s| (s.colour, s.dashed, s.label.clone()))
            .collect();
        legend(&side, &entries)?;
        root.present().map_err(err)?;
    }
    Ok(svg.replace(
        &format!("opacity=\"{DASHED_OPACITY}\""),
        "opacity=\"1\" stroke-dasharray=\"6 4\"",
    ))
}

/// A number for an axis label: no trailing zeros.
fn trim_number(v: f64) -> String {
    let s = format!("{v:.2}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.into() }
}

/// One horizontal bar, with an interval drawn over it when there is one.
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub interval: Option<(f64, f64)>,
    pub colour: RGBColor,
}

/// Horizontal bars, one per row (top to bottom in order); `x_max`: `None` for counts.
pub fn bar_chart(x_desc: &str, bars: &[Bar], x_max: Option<f64>) -> Result<String> {
    let n = bars.len().max(1) as u32;
    let top = x_max.unwrap_or_else(|| {
        let m = bars.iter().map(|b| b.value).fold(0.0f64, f64::max);
        if m > 0.0 { m * 1.1 } else { 1.0 }
    });
    let label_width = bars
        .iter()
        .map(|b| short(&b.label, 34).chars().count())
        .max()
        .unwrap_or(4) as u32
        * 7
        + 16;
    let height = 110 + 26 * n;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let mut chart = ChartBuilder::on(&root)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(label_width.min(300))
            .build_cartesian_2d(0.0..top, (0..(n - 1).max(1)).into_segmented())
            .map_err(err)?;
        // Row i is drawn at n-1-i so the first bar is on top.
        let labels: Vec<String> = bars.iter().map(|b| short(&b.label, 34)).collect();
        row_mesh(&mut chart, x_desc, &labels)?;
        for (i, b) in bars.iter().enumerate() {
            let y = n - 1 - i as u32;
            let mut rect = Rectangle::new(
                [
                    (0.0, SegmentValue::Exact(y)),
                    (b.value, SegmentValue::Exact(y + 1)),
                ],
                b.colour.mix(0.85).filled(),
            );
            rect.set_margin(3, 3, 0, 0);
            chart.draw_series(std::iter::once(rect)).map_err(err)?;
            if let Some((lo, hi)) = b.interval {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![
                            (lo, SegmentValue::CenterOf(y)),
                            (hi, SegmentValue::CenterOf(y)),
                        ],
                        BLACK.stroke_width(2),
                    )))
                    .map_err(err)?;
            }
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// Stacked horizontal bars: each row's parts (shares summing to at most 1) in the order
/// of `parts`, which the legend names.
pub fn stacked_bars(x_desc: &str, rows: &[(String, Vec<f64>)], parts: &[String]) -> Result<String> {
    let n = rows.len().max(1) as u32;
    let label_width = rows
        .iter()
        .map(|r| short(&r.0, 28).chars().count())
        .max()
        .unwrap_or(4) as u32
        * 7
        + 16;
    let height = (90 + 34 * n).max(60 + 20 * parts.len() as u32);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(WIDTH - LEGEND);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(label_width.min(240))
            .build_cartesian_2d(0.0..1.0, (0..(n - 1).max(1)).into_segmented())
            .map_err(err)?;
        let labels: Vec<String> = rows.iter().map(|r| short(&r.0, 28)).collect();
        row_mesh(&mut chart, x_desc, &labels)?;
        for (i, (_, shares)) in rows.iter().enumerate() {
            let y = n - 1 - i as u32;
            let mut left = 0.0;
            for (j, s) in shares.iter().enumerate() {
                let mut rect = Rectangle::new(
                    [
                        (left, SegmentValue::Exact(y)),
                        (left + s, SegmentValue::Exact(y + 1)),
                    ],
                    colour(j).filled(),
                );
                rect.set_margin(4, 4, 0, 0);
                chart.draw_series(std::iter::once(rect)).map_err(err)?;
                left += s;
            }
        }
        let entries: Vec<_> = parts
            .iter()
            .enumerate()
            .map(|(j, p)| (colour(j), false, p.clone()))
            .collect();
        legend(&side, &entries)?;
        root.present().map_err(err)?;
    }
    Ok(svg.replace(
        &format!("opacity=\"{DASHED_OPACITY}\""),
        "opacity=\"1\" stroke-dasharray=\"6 4\"",
    ))
}

/// A heat map of shares in [0, 1]: `cells[row][col]`, `None` drawn grey (nothing to
/// count); a viridis scale in the legend column.
pub struct HeatMap {
    pub x_desc: String,
    pub y_desc: String,
    pub value_desc: String,
    pub cols: Vec<String>,
    pub rows: Vec<String>,
    pub cells: Vec<Vec<Option<f64>>>,
}

/// Draws a heat map as an SVG document.
pub fn heat_map(h: &HeatMap) -> Result<String> {
    let (nc, nr) = (h.cols.len().max(1) as u32, h.rows.len().max(1) as u32);
    let label_width = h
        .rows
        .iter()
        .map(|r| short(r, 30).chars().count())
        .max()
        .unwrap_or(4) as u32
        * 7
        + 16;
    let height = (100 + 20 * nr).max(260);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(WIDTH - LEGEND + 60);
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(label_width.min(260) + 20)
            .build_cartesian_2d(
                (0..(nc - 1).max(1)).into_segmented(),
                (0..(nr - 1).max(1)).into_segmented(),
            )
            .map_err(err)?;
        let col = |v: &SegmentValue<u32>| match v {
            SegmentValue::CenterOf(i) => h.cols.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        };
        let row = |v: &SegmentValue<u32>| match v {
            SegmentValue::CenterOf(i) if *i < nr => h
                .rows
                .get((nr - 1 - i) as usize)
                .map(|r| short(r, 30))
                .unwrap_or_default(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .x_desc(h.x_desc.as_str())
            .y_desc(h.y_desc.as_str())
            .x_labels(nc as usize)
            .y_labels(nr as usize)
            .x_label_formatter(&col)
            .y_label_formatter(&row)
            .disable_mesh()
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 14))
            .draw()
            .map_err(err)?;
        for (r, cells) in h.cells.iter().enumerate() {
            let y = nr - 1 - r as u32;
            for (c, v) in cells.iter().enumerate() {
                let fill = match v {
                    Some(v) => ViridisRGB::get_color(v.clamp(0.0, 1.0)),
                    None => GREY,
                };
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [
                            (SegmentValue::Exact(c as u32), SegmentValue::Exact(y)),
                            (
                                SegmentValue::Exact(c as u32 + 1),
                                SegmentValue::Exact(y + 1),
                            ),
                        ],
                        fill.filled(),
                    )))
                    .map_err(err)?;
            }
        }
        // The scale: five swatches from 0 to 1, and the grey of "no sample".
        side.draw(&Text::new(
            h.value_desc.clone(),
            (8, 16),
            (FONT, 13).into_font().color(&BLACK),
        ))
        .map_err(err)?;
        for i in 0..=4 {
            let v = f64::from(i) / 4.0;
            let y = 30 + 22 * i;
            side.draw(&Rectangle::new(
                [(8, y), (30, y + 18)],
                ViridisRGB::get_color(v).filled(),
            ))
            .map_err(err)?;
            side.draw(&Text::new(
                trim_number(v),
                (36, y + 3),
                (FONT, 12).into_font().color(&BLACK),
            ))
            .map_err(err)?;
        }
        let y = 30 + 22 * 5 + 6;
        side.draw(&Rectangle::new([(8, y), (30, y + 18)], GREY.filled()))
            .map_err(err)?;
        side.draw(&Text::new(
            "no graded sample",
            (36, y + 3),
            (FONT, 12).into_font().color(&BLACK),
        ))
        .map_err(err)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(steps: u32) -> String {
        let points = |k: u32| {
            (1..=steps)
                .map(|s| (s as f64, ((s * k) % 7) as f64))
                .collect()
        };
        let series = |label: &str, dashed: bool, k: u32| Series {
            label: label.to_string(),
            colour: colour(k as usize),
            dashed,
            points: points(k),
            intervals: Vec::new(),
        };
        line_chart(&LineChart {
            x_desc: "training step".into(),
            y_desc: "samples (count)".into(),
            y_range: None,
            series: vec![series("solid", false, 1), series("dashed", true, 3)],
            marks: Vec::new(),
        })
        .expect("drawn")
    }

    #[test]
    fn a_dashed_line_is_one_dashed_polyline_whatever_its_length_and_dots_stop_on_long_runs() {
        for steps in [5, 40, 500] {
            let svg = chart(steps);
            let polylines: Vec<&str> = svg.split("<polyline").skip(1).collect();
            let dashed: Vec<&&str> = polylines
                .iter()
                .filter(|p| p.contains("stroke-dasharray=\"6 4\""))
                .collect();
            // The series' line only (the legend's sample is three short strokes).
            assert_eq!(dashed.len(), 1, "{steps} steps: {} dashed", dashed.len());
            assert!(
                dashed[0].matches(',').count() >= steps as usize,
                "{steps} steps: the dashed line has every point"
            );
            assert!(!svg.contains(&format!("opacity=\"{DASHED_OPACITY}\"")));
            assert!(
                polylines.len() < 40,
                "{steps} steps: {} polylines",
                polylines.len()
            );
            let dots = svg.matches("<circle").count();
            if steps as usize <= MARKED_POINTS {
                assert_eq!(dots, 2 * steps as usize, "{steps} steps: a dot per point");
            } else {
                assert_eq!(dots, 0, "{steps} steps: no dots");
            }
        }
    }
}
