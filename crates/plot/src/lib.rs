//! PNG line charts for hane's reports: Elo per generation with error bars, training losses per
//! step, Black's win rate against komi with a fitted curve and a 50% line.
//!
//! The crate owns everything between numbers and PNG bytes: ticks at "nice" numbers (1, 2 or 5
//! times a power of ten), the layout of title, axes and legend, an anti-aliased rasteriser for
//! lines, markers and error bars, and text in a font embedded in the binary (Noto Sans, drawn
//! by `ab_glyph`). Plotting libraries usually find fonts through the system (fontconfig, font
//! files), which CI machines and headless training boxes lack; with its own rasteriser and an
//! embedded font this crate needs nothing on the machine, so `hane loop`, `hane komi` and
//! `hane match` can draw plots anywhere.
//! It returns PNG bytes; writing them (atomically) is the caller's.
//!
//! ```no_run
//! use hane_plot::{Chart, Series};
//! let elo = Series::markers("Elo", vec![(0.0, 0.0), (1.0, 35.0)]);
//! let elo = elo.with_errors(vec![(0.0, 0.0), (20.0, 50.0)]);
//! let chart = Chart::new("Elo per generation", "generation", "Elo (95% interval)").with_series(elo);
//! std::fs::write("elo.png", chart.png())?;
//! # Ok::<(), std::io::Error>(())
//! ```

mod chart;
mod font;
mod raster;
mod ticks;

pub use chart::{series_color, Chart, Series, Style, DEFAULT_HEIGHT, DEFAULT_WIDTH};
pub use raster::{Image, Rgb};

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// Decodes a PNG file into `(width, height, rgb bytes)`.
    fn decode(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
        let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
        let mut reader = png::Decoder::new(file).read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!(info.color_type, png::ColorType::Rgb);
        buf.truncate(info.buffer_size());
        (info.width, info.height, buf)
    }

    fn temp_path(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("hane-plot-{}-{name}", std::process::id()))
    }

    /// A chart like `hane komi`'s: measured win rates with intervals, a fitted curve, a 50% line.
    fn komi_chart() -> Chart {
        let komi: Vec<f64> = (0..=8).map(|k| k as f64).collect();
        let measured: Vec<(f64, f64)> =
            komi.iter().map(|&k| (k, 1.0 / (1.0 + (0.8 * (k - 5.5)).exp()))).collect();
        let errors = measured.iter().map(|&(_, p)| ((p - 0.08).max(0.0), (p + 0.08).min(1.0))).collect();
        let fit =
            (0..=80).map(|i| i as f64 / 10.0).map(|k| (k, 1.0 / (1.0 + (0.75 * (k - 5.4)).exp()))).collect();
        Chart::new("Black's win rate against komi (7x7, area scoring)", "komi", "Black win rate")
            .with_series(Series::markers("measured, 95% interval", measured).with_errors(errors))
            .with_series(Series::line("logistic fit", fit))
            .with_hline(0.5)
            .with_y_range(0.0, 1.0)
    }

    #[test]
    fn the_png_decodes_to_the_rendered_image() {
        let chart = komi_chart();
        let path = temp_path("komi.png");
        std::fs::write(&path, chart.png()).unwrap();
        let (w, h, bytes) = decode(&path);
        assert_eq!((w, h), (DEFAULT_WIDTH, DEFAULT_HEIGHT));
        assert_eq!(bytes, chart.render(DEFAULT_WIDTH, DEFAULT_HEIGHT).as_rgb_bytes());
        std::fs::remove_file(&path).unwrap();
        let small = temp_path("small.png");
        std::fs::write(&small, Chart::default().render(33, 17).png()).unwrap();
        assert_eq!(decode(&small).0, 33);
        std::fs::remove_file(&small).unwrap();
    }

    /// Writes a sample of each kind of chart hane draws into the temp folder, for a look by eye.
    #[test]
    fn sample_charts() {
        let dir = std::env::temp_dir();
        std::fs::write(dir.join("hane-plot-sample.png"), komi_chart().png()).unwrap();
        let gens: Vec<f64> = (0..25).map(f64::from).collect();
        let elo: Vec<(f64, f64)> = gens.iter().map(|&g| (g, 400.0 * (1.0 - (-g / 8.0).exp()))).collect();
        let err = elo.iter().map(|&(g, e)| (e - 30.0 - g, e + 30.0 + g)).collect();
        let chart = Chart::new("Elo per generation", "generation", "Elo (95% interval)")
            .with_series(Series::new("Elo vs generation 0", elo, Style::LineAndMarkers).with_errors(err));
        std::fs::write(dir.join("hane-plot-sample-elo.png"), chart.png()).unwrap();
        let steps: Vec<f64> = (0..400).map(|s| f64::from(s) * 250.0).collect();
        let loss = |a: f64, b: f64| -> Vec<(f64, f64)> {
            steps.iter().map(|&s| (s, a + b * (-s / 20000.0).exp() + 0.05 * (s / 700.0).sin())).collect()
        };
        let chart = Chart::new("Training losses", "step", "loss")
            .with_series(Series::line("policy", loss(1.6, 2.0)))
            .with_series(Series::line("value", loss(0.55, 0.4)))
            .with_series(Series::line("score", loss(0.2, 0.9)));
        std::fs::write(dir.join("hane-plot-sample-loss.png"), chart.png()).unwrap();
    }
}
