//! Line charts: the data model ([`Chart`], [`Series`], [`Style`]), the layout of title, axes and
//! legend, and the rendering onto an [`Image`].

use crate::font::{draw_text, draw_text_up, text_height, text_width};
use crate::raster::{Image, Rect, Rgb};
use crate::ticks::{nice_ticks, Ticks};

/// Width of [`Chart::png`]'s image, in pixels.
pub const DEFAULT_WIDTH: u32 = 800;
/// Height of [`Chart::png`]'s image, in pixels.
pub const DEFAULT_HEIGHT: u32 = 500;

const WHITE: Rgb = [255, 255, 255];
const INK: Rgb = [30, 30, 30];
const GRID: Rgb = [228, 228, 228];
const REFERENCE: Rgb = [110, 110, 110];
const LEGEND_FRAME: Rgb = [190, 190, 190];

/// Series colours, in order; series beyond the last reuse them from the start.
const PALETTE: [Rgb; 8] = [
    [31, 100, 200], // blue
    [220, 50, 40],  // red
    [40, 150, 60],  // green
    [240, 140, 20], // orange
    [140, 80, 190], // purple
    [20, 170, 180], // teal
    [150, 90, 60],  // brown
    [220, 80, 170], // pink
];

/// Outer margin of the image, in pixels.
const MARGIN: i64 = 10;
/// Gap between the frame and the first or last tick, so that points at the ends stay visible.
const INSET: f64 = 8.0;
/// Length of a tick mark outside the frame.
const TICK_LEN: i64 = 5;
/// Width of a series' line.
const LINE_WIDTH: f64 = 2.0;
/// Radius of a series' markers.
const MARKER_RADIUS: f64 = 3.5;
/// Half the width of an error bar's caps.
const CAP_HALF: f64 = 4.0;
/// Length of the line sample in front of each legend entry.
const LEGEND_SAMPLE: i64 = 22;

/// A `(low, high)` range of data values.
type Span = (f64, f64);

/// The colour of the series at `index` in a chart.
pub fn series_color(index: usize) -> Rgb {
    PALETTE[index % PALETTE.len()]
}

/// How a series' points are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    /// Straight segments joining consecutive points.
    Line,
    /// A filled circle at each point.
    Markers,
    /// Both segments and circles.
    #[default]
    LineAndMarkers,
}

impl Style {
    fn has_line(self) -> bool {
        matches!(self, Style::Line | Style::LineAndMarkers)
    }

    fn has_markers(self) -> bool {
        matches!(self, Style::Markers | Style::LineAndMarkers)
    }
}

/// One named data series of a [`Chart`].
///
/// Points with a non-finite coordinate are skipped, and break the line where they sit.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// The name in the legend; unnamed series get no legend entry.
    pub name: String,
    /// The `(x, y)` points, drawn in this order.
    pub points: Vec<(f64, f64)>,
    /// Error bars: `(low, high)` in data units for the point at the same index. Extra entries are
    /// ignored, and points past the end or with a non-finite bound get no bar.
    pub errors: Option<Vec<(f64, f64)>>,
    /// How the points are drawn.
    pub style: Style,
}

impl Series {
    /// A series with the given name, points and style, without error bars.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>, style: Style) -> Series {
        Series { name: name.into(), points, errors: None, style }
    }

    /// A series drawn as a line only.
    pub fn line(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series::new(name, points, Style::Line)
    }

    /// A series drawn as markers only.
    pub fn markers(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series::new(name, points, Style::Markers)
    }

    /// The series with `(low, high)` error bars, one per point.
    pub fn with_errors(mut self, errors: Vec<(f64, f64)>) -> Series {
        self.errors = Some(errors);
        self
    }
}

/// A line chart: title, axis labels, data series, dashed horizontal reference lines, grid and
/// legend.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Chart {
    /// Title above the plot, drawn at twice the text size.
    pub title: String,
    /// Label under the x axis.
    pub x_label: String,
    /// Label beside the y axis, reading upwards.
    pub y_label: String,
    /// The data, drawn in order (later series on top), coloured by [`series_color`].
    pub series: Vec<Series>,
    /// Heights of dashed horizontal reference lines, e.g. `0.5` for an even win rate.
    pub hlines: Vec<f64>,
    /// A fixed y range `(low, high)`; `None` (or an empty or non-finite range) fits the data with
    /// nice round ends. Data outside a fixed range is cut off at the frame.
    pub y_range: Option<(f64, f64)>,
}

impl Chart {
    /// An empty chart with the given title and axis labels.
    pub fn new(title: impl Into<String>, x_label: impl Into<String>, y_label: impl Into<String>) -> Chart {
        Chart { title: title.into(), x_label: x_label.into(), y_label: y_label.into(), ..Chart::default() }
    }

    /// The chart with `series` added on top of the others.
    pub fn with_series(mut self, series: Series) -> Chart {
        self.series.push(series);
        self
    }

    /// The chart with a dashed horizontal reference line at `y`.
    pub fn with_hline(mut self, y: f64) -> Chart {
        self.hlines.push(y);
        self
    }

    /// The chart with the y axis fixed to `low..=high`.
    pub fn with_y_range(mut self, low: f64, high: f64) -> Chart {
        self.y_range = Some((low, high));
        self
    }

    /// Draws the chart onto a new `width` x `height` image (each at least 1). Any input renders
    /// without panicking: missing data gives empty axes, and a size too small for the axes gives
    /// just what fits.
    pub fn render(&self, width: u32, height: u32) -> Image {
        let mut img = Image::new(width.max(1), height.max(1), WHITE);
        let layout = Layout::new(self, img.width(), img.height());
        if let Some(plot) = &layout.plot {
            self.draw_plot(&mut img, plot);
        }
        if let Some((x, y)) = layout.title_at {
            draw_text(&mut img, x, y, &self.title, 2, INK);
        }
        if let Some(legend) = &layout.legend {
            self.draw_legend(&mut img, legend);
        }
        img
    }

    /// The chart rendered at [`DEFAULT_WIDTH`] x [`DEFAULT_HEIGHT`], as PNG bytes (to be written
    /// with an atomic writer such as `hane_data::shard::write_atomic`).
    pub fn png(&self) -> Vec<u8> {
        self.render(DEFAULT_WIDTH, DEFAULT_HEIGHT).png()
    }

    /// Draws grid, reference lines, data, frame, ticks and axis labels.
    fn draw_plot(&self, img: &mut Image, plot: &Plot) {
        let frame = plot.frame;
        let clip = frame;
        let (fx0, fy0, fx1, fy1) =
            (frame.x0 as f64, frame.y0 as f64, (frame.x1 - 1) as f64, (frame.y1 - 1) as f64);
        for &v in &plot.x_ticks.values {
            let x = plot.px(v).round();
            img.line((x, fy0), (x, fy1), 1.0, GRID, clip);
        }
        for &v in &plot.y_ticks.values {
            let y = plot.py(v).round();
            img.line((fx0, y), (fx1, y), 1.0, GRID, clip);
        }
        for &h in self.hlines.iter().filter(|h| h.is_finite()) {
            let y = plot.py(h).round();
            img.dashed_line((fx0, y), (fx1, y), 1.5, (8.0, 5.0), REFERENCE, clip);
        }
        for (i, series) in self.series.iter().enumerate() {
            let color = series_color(i);
            for (x, _, bar) in Chart::finite_points(series) {
                if let Some((lo, hi)) = bar {
                    let (px, plo, phi) = (plot.px(x), plot.py(lo), plot.py(hi));
                    img.line((px, plo), (px, phi), 1.5, color, clip);
                    img.line((px - CAP_HALF, plo), (px + CAP_HALF, plo), 1.5, color, clip);
                    img.line((px - CAP_HALF, phi), (px + CAP_HALF, phi), 1.5, color, clip);
                }
            }
            if series.style.has_line() {
                for w in series.points.windows(2) {
                    if finite(&w[0]) && finite(&w[1]) {
                        let a = (plot.px(w[0].0), plot.py(w[0].1));
                        let b = (plot.px(w[1].0), plot.py(w[1].1));
                        img.line(a, b, LINE_WIDTH, color, clip);
                    }
                }
            }
            // A line-only point without a finite neighbour would be invisible: give it a marker.
            let has_neighbour = |j: usize| {
                let at = |k: Option<usize>| k.and_then(|k| series.points.get(k)).is_some_and(finite);
                at(j.checked_sub(1)) || at(j.checked_add(1))
            };
            for (j, p) in series.points.iter().enumerate() {
                if finite(p) && (series.style.has_markers() || !has_neighbour(j)) {
                    img.disc((plot.px(p.0), plot.py(p.1)), MARKER_RADIUS, color, clip);
                }
            }
        }
        img.stroke_rect(frame, INK);

        for &v in &plot.x_ticks.values {
            let x = plot.px(v).round() as i64;
            img.fill_rect(Rect::new(x, frame.y1, 1, TICK_LEN), INK);
            let label = plot.x_ticks.label(v);
            let tx = x - text_width(&label, 1) as i64 / 2;
            draw_text(img, tx, frame.y1 + TICK_LEN + 3, &label, 1, INK);
        }
        for &v in &plot.y_ticks.values {
            let y = plot.py(v).round() as i64;
            img.fill_rect(Rect::new(frame.x0 - TICK_LEN, y, TICK_LEN, 1), INK);
            let label = plot.y_ticks.label(v);
            let tx = frame.x0 - TICK_LEN - 3 - text_width(&label, 1) as i64;
            draw_text(img, tx, y - text_height(1) as i64 / 2, &label, 1, INK);
        }
        if !self.x_label.is_empty() {
            let cx = (frame.x0 + frame.x1) / 2 - text_width(&self.x_label, 1) as i64 / 2;
            let y = img.height() as i64 - MARGIN - text_height(1) as i64;
            draw_text(img, cx.max(0), y, &self.x_label, 1, INK);
        }
        if !self.y_label.is_empty() {
            let cy = (frame.y0 + frame.y1) / 2 + text_width(&self.y_label, 1) as i64 / 2;
            draw_text_up(img, MARGIN, cy.min(img.height() as i64), &self.y_label, 1, INK);
        }
    }

    /// Draws the legend box: a line and/or marker sample in each series' colour, then its name.
    fn draw_legend(&self, img: &mut Image, legend: &Legend) {
        let clip = img.bounds();
        img.fill_rect(legend.rect, WHITE);
        img.stroke_rect(legend.rect, LEGEND_FRAME);
        for (row, (i, name)) in legend.entries.iter().enumerate() {
            let style = self.series[*i].style;
            let color = series_color(*i);
            let y = legend.rect.y0 + 4 + row as i64 * legend_row();
            let mid = (y + text_height(1) as i64 / 2) as f64;
            let x = (legend.rect.x0 + 6) as f64;
            if style.has_line() {
                img.line((x, mid), (x + LEGEND_SAMPLE as f64, mid), LINE_WIDTH, color, clip);
            }
            if style.has_markers() {
                img.disc((x + LEGEND_SAMPLE as f64 / 2.0, mid), MARKER_RADIUS, color, clip);
            }
            draw_text(img, legend.rect.x0 + 6 + LEGEND_SAMPLE + 6, y, name, 1, INK);
        }
    }
}

/// Where everything goes on the image.
struct Layout {
    /// Top-left corner of the title, if there is one.
    title_at: Option<(i64, i64)>,
    /// The plot area, unless the image is too small for one.
    plot: Option<Plot>,
    /// The legend, if any series is named.
    legend: Option<Legend>,
}

/// The frame of the plot and the map from data to pixels.
struct Plot {
    /// The frame around the data, in pixels.
    frame: Rect,
    x_ticks: Ticks,
    y_ticks: Ticks,
    /// Data limits `(low, high)` of each axis, mapped to the frame less [`INSET`].
    x_lim: Span,
    y_lim: Span,
}

impl Plot {
    /// Pixel column (centre space) of data `x`.
    fn px(&self, x: f64) -> f64 {
        let (a, b) = (self.frame.x0 as f64 + INSET, (self.frame.x1 - 1) as f64 - INSET);
        a + fraction(x, self.x_lim) * (b - a)
    }

    /// Pixel row (centre space) of data `y`; larger `y` is higher up.
    fn py(&self, y: f64) -> f64 {
        let (a, b) = (self.frame.y0 as f64 + INSET, (self.frame.y1 - 1) as f64 - INSET);
        b - fraction(y, self.y_lim) * (b - a)
    }
}

/// Where `v` lies from `lim.0` (0) to `lim.1` (1); the middle for a degenerate range.
fn fraction(v: f64, lim: Span) -> f64 {
    let span = lim.1 - lim.0;
    if span.is_finite() && span > 0.0 {
        (v - lim.0) / span
    } else {
        0.5
    }
}

/// The legend box and its entries `(series index, shown name)`.
struct Legend {
    rect: Rect,
    entries: Vec<(usize, String)>,
}

impl Layout {
    fn new(chart: &Chart, width: u32, height: u32) -> Layout {
        let (w, h) = (width as i64, height as i64);
        let line_h = text_height(1) as i64;

        let mut top = MARGIN;
        let title_at = (!chart.title.is_empty()).then(|| {
            let tw = text_width(&chart.title, 2) as i64;
            let at = (((w - tw) / 2).max(0), MARGIN);
            top += text_height(2) as i64 + 8;
            at
        });
        top += line_h / 2; // room for the top y tick label

        // Legend on the right, names cut to keep it within a third of the width.
        let max_px = (w / 3 - LEGEND_SAMPLE - 18).max(1);
        let entries: Vec<(usize, String)> = (chart.series.iter().enumerate())
            .filter(|(_, s)| !s.name.is_empty())
            .map(|(i, s)| (i, shorten(&s.name, max_px)))
            .collect();
        let legend_w =
            entries.iter().map(|(_, n)| text_width(n, 1) as i64).max().map(|tw| tw + LEGEND_SAMPLE + 18);
        let right = w - MARGIN - legend_w.map_or(line_h, |lw| lw + 10);

        let mut bottom = h - MARGIN - TICK_LEN - 3 - line_h;
        if !chart.x_label.is_empty() {
            bottom -= line_h + 6;
        }

        let (x_data, y_data) = chart.extents();
        let fixed_y = chart
            .y_range
            .filter(|r| r.0.is_finite() && r.1.is_finite() && r.0 < r.1 && (r.1 - r.0).is_finite());
        let plot_h = bottom - top;
        let y_target = (plot_h / 45).clamp(2, 10) as usize;
        let (y_ticks, y_lim) = match fixed_y {
            Some((lo, hi)) => {
                let mut t = nice_ticks(lo, hi, y_target);
                let slack = (hi - lo) * 1e-9;
                t.values.retain(|v| *v >= lo - slack && *v <= hi + slack);
                (t, (lo, hi))
            }
            None => {
                let (lo, hi) = y_data.unwrap_or((0.0, 1.0));
                let t = nice_ticks(lo, hi, y_target);
                let lim = (t.values[0], t.values[t.values.len() - 1]);
                (t, lim)
            }
        };
        let y_label_w =
            y_ticks.values.iter().map(|&v| text_width(&y_ticks.label(v), 1) as i64).max().unwrap_or(0);
        let mut left = MARGIN + y_label_w + TICK_LEN + 3;
        if !chart.y_label.is_empty() {
            left += line_h + 6;
        }
        let plot_w = right - left;

        // As many x ticks as fit without their labels touching.
        let (x_lo, x_hi) = x_data.unwrap_or((0.0, 1.0));
        let mut x_target = (plot_w / 80).clamp(2, 12) as usize;
        let x_ticks = loop {
            let t = nice_ticks(x_lo, x_hi, x_target);
            let widest = t.values.iter().map(|&v| text_width(&t.label(v), 1) as i64).max().unwrap_or(0);
            let spacing = (plot_w as f64 - 2.0 * INSET) / (t.values.len().max(2) - 1) as f64;
            if x_target <= 2 || (widest + 10) as f64 <= spacing {
                break t;
            }
            x_target -= 1;
        };
        let x_lim = (x_ticks.values[0], x_ticks.values[x_ticks.values.len() - 1]);

        let usable = plot_w as f64 > 2.0 * INSET + 2.0 && plot_h as f64 > 2.0 * INSET + 2.0;
        let plot = usable.then(|| Plot {
            frame: Rect::new(left, top, plot_w, plot_h),
            x_ticks,
            y_ticks,
            x_lim,
            y_lim,
        });
        let legend = legend_w.filter(|_| plot.is_some()).map(|lw| Legend {
            rect: Rect::new(right + 10, top, lw, entries.len() as i64 * legend_row() + 6),
            entries,
        });
        Layout { title_at, plot, legend }
    }
}

impl Chart {
    /// The points of each series with both coordinates finite, and the error bounds that go with
    /// them, as `(x, y, Some((low, high)))`.
    fn finite_points(series: &Series) -> impl Iterator<Item = (f64, f64, Option<(f64, f64)>)> + '_ {
        let errors = series.errors.as_deref().unwrap_or(&[]);
        series.points.iter().enumerate().filter(|(_, p)| finite(p)).map(move |(i, &(x, y))| {
            let bar = errors.get(i).copied().filter(|e| e.0.is_finite() && e.1.is_finite());
            (x, y, bar)
        })
    }

    /// The `(low, high)` ranges of finite x and y values over all series (error bars included)
    /// and, for y, the reference lines; `None` for an axis without any.
    fn extents(&self) -> (Option<Span>, Option<Span>) {
        fn widen(r: &mut Option<Span>, v: f64) {
            if v.is_finite() {
                *r = Some(r.map_or((v, v), |(lo, hi)| (lo.min(v), hi.max(v))));
            }
        }
        let (mut xr, mut yr) = (None, None);
        for series in &self.series {
            for (x, y, bar) in Chart::finite_points(series) {
                widen(&mut xr, x);
                widen(&mut yr, y);
                if let Some((lo, hi)) = bar {
                    widen(&mut yr, lo);
                    widen(&mut yr, hi);
                }
            }
        }
        for &h in &self.hlines {
            widen(&mut yr, h);
        }
        (xr, yr)
    }
}

/// Whether both coordinates of `p` are finite.
fn finite(p: &(f64, f64)) -> bool {
    p.0.is_finite() && p.1.is_finite()
}

/// `name` cut to `max_chars` characters, ending in ".." when cut.
fn shorten(name: &str, max_px: i64) -> String {
    if text_width(name, 1) as i64 <= max_px {
        return name.to_string();
    }
    let mut kept: String = name.to_string();
    while !kept.is_empty() && text_width(&format!("{kept}..."), 1) as i64 > max_px {
        kept.pop();
    }
    format!("{}...", kept.trim_end())
}

/// Height of one legend entry.
fn legend_row() -> i64 {
    text_height(1) as i64 + 2
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count_color(img: &Image, color: Rgb) -> usize {
        let mut n = 0;
        for y in 0..img.height() {
            for x in 0..img.width() {
                n += usize::from(img.pixel(x, y) == Some(color));
            }
        }
        n
    }

    #[test]
    fn render_has_the_requested_size() {
        let chart = Chart::new("t", "x", "y").with_series(Series::line("a", vec![(0.0, 1.0), (1.0, 2.0)]));
        let img = chart.render(640, 360);
        assert_eq!((img.width(), img.height()), (640, 360));
        assert_eq!(img.as_rgb_bytes().len(), 640 * 360 * 3);
    }

    #[test]
    fn line_runs_between_its_points() {
        let chart =
            Chart::new("Line", "x", "y").with_series(Series::line("a", vec![(0.0, 0.0), (10.0, 5.0)]));
        let (w, h) = (800, 500);
        let img = chart.render(w, h);
        let layout = Layout::new(&chart, w, h);
        let plot = layout.plot.as_ref().unwrap();
        let color = series_color(0);
        let (a, b) = ((plot.px(0.0), plot.py(0.0)), (plot.px(10.0), plot.py(5.0)));
        assert!(b.0 - a.0 > 300.0 && a.1 - b.1 > 150.0, "the data should fill the plot: {a:?} {b:?}");
        for i in 0..=20 {
            let t = i as f64 / 20.0;
            let (x, y) = (a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1));
            // A 2-pixel anti-aliased line fully covers a pixel next to any point on it.
            let near = (-1..=1).flat_map(|dy| (-1..=1).map(move |dx| (dx, dy)));
            let hit = near.clone().any(|(dx, dy)| {
                img.pixel((x.round() as i64 + dx) as u32, (y.round() as i64 + dy) as u32) == Some(color)
            });
            assert!(hit, "no series colour near t={t}");
        }
        // Well off the line (a point below its middle) there is no series colour.
        let mid = ((a.0 + b.0) / 2.0, (a.1 + b.1) / 2.0 + 40.0);
        assert_ne!(img.pixel(mid.0 as u32, mid.1 as u32), Some(color));
    }

    #[test]
    fn series_get_distinct_colours_and_a_legend() {
        let s = |name: &str, k: f64| Series::line(name, vec![(0.0, k), (1.0, k + 1.0)]);
        let chart = Chart::new("", "", "").with_series(s("one", 0.0)).with_series(s("two", 1.0));
        assert_ne!(series_color(0), series_color(1));
        let layout = Layout::new(&chart, 800, 500);
        let legend = layout.legend.as_ref().unwrap();
        assert_eq!(legend.entries, vec![(0, "one".to_string()), (1, "two".to_string())]);
        let plot = layout.plot.as_ref().unwrap();
        assert!(legend.rect.x0 >= plot.frame.x1 && legend.rect.x1 <= 800);
        let img = chart.render(800, 500);
        // Each colour appears in the legend box, not only in the plot.
        for i in 0..2 {
            let r = legend.rect;
            let found = (r.y0..r.y1)
                .any(|y| (r.x0..r.x1).any(|x| img.pixel(x as u32, y as u32) == Some(series_color(i))));
            assert!(found, "legend lacks series {i}");
        }
    }

    #[test]
    fn error_bars_and_reference_lines_are_drawn() {
        let chart = Chart::new("", "", "")
            .with_series(Series::markers("", vec![(1.0, 0.5)]).with_errors(vec![(0.2, 0.8)]))
            .with_hline(0.9)
            .with_y_range(0.0, 1.0);
        let img = chart.render(400, 300);
        let plot = Layout::new(&chart, 400, 300).plot.unwrap();
        let color = series_color(0);
        let x = plot.px(1.0).round() as u32;
        for y in [0.25, 0.4, 0.6, 0.75] {
            assert_eq!(img.pixel(x, plot.py(y).round() as u32), Some(color), "bar at y={y}");
        }
        assert_ne!(img.pixel(x, plot.py(0.1).round() as u32), Some(color));
        let yh = plot.py(0.9).round() as u32;
        let row: Vec<bool> = (plot.frame.x0 + 2..plot.frame.x1 - 2)
            .map(|x| img.pixel(x as u32, yh) == Some(REFERENCE))
            .collect();
        assert!(row.iter().filter(|&&b| b).count() > row.len() / 3, "reference line missing");
        assert!(row.iter().filter(|&&b| !b).count() > row.len() / 5, "reference line not dashed");
    }

    #[test]
    fn fixed_y_range_keeps_ticks_inside() {
        let chart =
            Chart::new("", "", "").with_y_range(0.0, 1.0).with_series(Series::line("", vec![(0.0, 3.0)]));
        let plot = Layout::new(&chart, 800, 500).plot.unwrap();
        assert_eq!(plot.y_lim, (0.0, 1.0));
        assert!(plot.y_ticks.values.iter().all(|v| (0.0..=1.0).contains(v)));
        assert_eq!(plot.y_ticks.values.first(), Some(&0.0));
        assert_eq!(plot.y_ticks.values.last(), Some(&1.0));
    }

    #[test]
    fn degenerate_inputs_do_not_panic() {
        let nan = f64::NAN;
        let inf = f64::INFINITY;
        let charts = [
            Chart::default(),
            Chart::new("No series", "x", "y"),
            Chart::new("Empty", "x", "y").with_series(Series::line("empty", vec![])),
            Chart::new("One", "x", "y").with_series(Series::line("one", vec![(3.0, 4.0)])),
            Chart::new("Flat", "x", "y").with_series(Series::default().with_errors(vec![(1.0, 1.0); 3])),
            Chart::new("Equal", "x", "y").with_series(Series::new(
                "eq",
                vec![(2.0, 2.0); 5],
                Style::default(),
            )),
            Chart::new("Bad", "x", "y")
                .with_series(Series::line(
                    "bad",
                    vec![(nan, 1.0), (1.0, inf), (2.0, 3.0), (-inf, nan), (3.0, 1.0)],
                ))
                .with_series(Series::markers("m", vec![(1.0, 1.0)]).with_errors(vec![(nan, 2.0), (0.0, 1.0)]))
                .with_hline(nan)
                .with_hline(inf)
                .with_y_range(nan, 1.0),
            Chart::new("Huge", "x", "y")
                .with_series(Series::line("huge", vec![(-f64::MAX, f64::MAX), (f64::MAX, -f64::MAX)])),
            Chart::new("Tiny", "x", "y")
                .with_series(Series::line("t", vec![(1.0, 1e-300), (1.0 + 1e-15, 2e-300)])),
            Chart::new("Reversed range", "x", "y").with_y_range(1.0, 0.0),
            Chart::new("Only a reference line", "", "").with_hline(0.5),
            Chart::new(
                "A very long title that is much wider than the image it is drawn on ±",
                "x",
                "a long y label that does not fit",
            )
            .with_series(Series::line("a very long series name indeed, too long for a legend", vec![])),
        ];
        for chart in &charts {
            for (w, h) in [(800, 500), (120, 80), (30, 20), (1, 1), (0, 0), (2000, 40)] {
                let img = chart.render(w, h);
                assert_eq!((img.width(), img.height()), (w.max(1), h.max(1)), "{}", chart.title);
            }
        }
        // A lone point between gaps still shows up.
        let chart =
            Chart::new("", "", "").with_series(Series::line("", vec![(0.0, 0.0), (nan, 1.0), (2.0, 2.0)]));
        assert!(count_color(&chart.render(300, 200), series_color(0)) > 20);
    }

    #[test]
    fn long_legend_names_are_shortened() {
        let long = "ladder: over generation 0's player";
        assert_eq!(shorten(long, 1000), long);
        let cut = shorten(long, text_width("ladder: over", 1) as i64);
        assert!(cut.ends_with("...") && long.starts_with(cut.trim_end_matches('.')), "{cut}");
        assert!(text_width(&cut, 1) <= text_width("ladder: over", 1));
        let chart = Chart::new("", "", "").with_series(Series::line("x".repeat(200), vec![(0.0, 0.0)]));
        let layout = Layout::new(&chart, 800, 500);
        assert!(layout.legend.unwrap().rect.x1 <= 800);
    }
}
