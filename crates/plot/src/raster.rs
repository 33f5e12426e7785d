//! An RGB image and the few shapes a chart needs: rectangles, anti-aliased thick line segments
//! (coverage from the distance to the segment), filled circles, and PNG encoding.
//!
//! Shape coordinates are in pixel-centre space: pixel `(i, j)` covers the square around the point
//! `(i, j)`, so a segment from `(0, 0)` to `(10, 0)` runs through the centres of row 0.

use std::io::{self, Write};

/// An RGB colour, 8 bits per channel.
pub type Rgb = [u8; 3];

/// A rectangle of pixels, `x0..x1` by `y0..y1` (end exclusive).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Rect {
    pub x0: i64,
    pub y0: i64,
    pub x1: i64,
    pub y1: i64,
}

impl Rect {
    /// The rectangle with corner `(x, y)` and the given size.
    pub fn new(x: i64, y: i64, w: i64, h: i64) -> Rect {
        Rect { x0: x, y0: y, x1: x + w.max(0), y1: y + h.max(0) }
    }

    /// The overlap of two rectangles (possibly empty).
    fn intersect(self, o: Rect) -> Rect {
        Rect { x0: self.x0.max(o.x0), y0: self.y0.max(o.y0), x1: self.x1.min(o.x1), y1: self.y1.min(o.y1) }
    }

    /// Whether the rectangle holds no pixel.
    pub fn is_empty(self) -> bool {
        self.x0 >= self.x1 || self.y0 >= self.y1
    }
}

/// An 8-bit RGB raster image, rows top to bottom.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    width: u32,
    height: u32,
    data: Vec<u8>,
}

impl Image {
    /// An image of the given size filled with `background`.
    pub fn new(width: u32, height: u32, background: Rgb) -> Image {
        let n = width as usize * height as usize;
        let mut data = Vec::with_capacity(n * 3);
        for _ in 0..n {
            data.extend_from_slice(&background);
        }
        Image { width, height, data }
    }

    /// Width in pixels.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Height in pixels.
    pub fn height(&self) -> u32 {
        self.height
    }

    /// The colour at `(x, y)`, or `None` outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> Option<Rgb> {
        if x >= self.width || y >= self.height {
            return None;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        Some([self.data[i], self.data[i + 1], self.data[i + 2]])
    }

    /// The raw RGB bytes, row by row.
    pub fn as_rgb_bytes(&self) -> &[u8] {
        &self.data
    }

    /// Encodes the image as an 8-bit RGB PNG into `out`.
    pub fn encode_png<W: Write>(&self, out: W) -> io::Result<()> {
        let mut enc = png::Encoder::new(out, self.width, self.height);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(io::Error::other)?;
        writer.write_image_data(&self.data).map_err(io::Error::other)?;
        writer.finish().map_err(io::Error::other)
    }

    /// The image as PNG bytes.
    pub fn png(&self) -> Vec<u8> {
        let mut bytes = Vec::new();
        self.encode_png(&mut bytes).expect("encoding into memory does not fail");
        bytes
    }

    /// The whole image as a rectangle.
    pub(crate) fn bounds(&self) -> Rect {
        Rect::new(0, 0, self.width as i64, self.height as i64)
    }

    /// Mixes `color` into pixel `(x, y)` with opacity `alpha` in `0..=1`; ignores pixels outside.
    pub(crate) fn blend(&mut self, x: i64, y: i64, color: Rgb, alpha: f64) {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 || alpha <= 0.0 {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        if alpha >= 1.0 {
            self.data[i..i + 3].copy_from_slice(&color);
            return;
        }
        for (c, &src) in self.data[i..i + 3].iter_mut().zip(&color) {
            *c = (*c as f64 * (1.0 - alpha) + src as f64 * alpha).round() as u8;
        }
    }

    /// Fills `rect` (clipped to the image) with `color`.
    pub(crate) fn fill_rect(&mut self, rect: Rect, color: Rgb) {
        let r = rect.intersect(self.bounds());
        for y in r.y0..r.y1 {
            for x in r.x0..r.x1 {
                self.blend(x, y, color, 1.0);
            }
        }
    }

    /// Draws the one-pixel outline of `rect`.
    pub(crate) fn stroke_rect(&mut self, rect: Rect, color: Rgb) {
        if rect.is_empty() {
            return;
        }
        self.fill_rect(Rect { y1: rect.y0 + 1, ..rect }, color);
        self.fill_rect(Rect { y0: rect.y1 - 1, ..rect }, color);
        self.fill_rect(Rect { x1: rect.x0 + 1, ..rect }, color);
        self.fill_rect(Rect { x0: rect.x1 - 1, ..rect }, color);
    }

    /// Strokes the segment `a`–`b` with the given `width` in pixels, anti-aliased, touching only
    /// pixels inside `clip`. Segments with non-finite ends are skipped.
    pub(crate) fn line(&mut self, a: (f64, f64), b: (f64, f64), width: f64, color: Rgb, clip: Rect) {
        let clip = clip.intersect(self.bounds());
        if clip.is_empty() {
            return;
        }
        let half = width.max(0.5) / 2.0;
        // Clip the segment first so that far-away ends never make the scan area huge.
        let pad = half + 1.0;
        let window = (clip.x0 as f64 - pad, clip.y0 as f64 - pad, clip.x1 as f64 + pad, clip.y1 as f64 + pad);
        let Some((a, b)) = clip_segment(a, b, window) else { return };
        let x0 = ((a.0.min(b.0) - half - 1.0).floor() as i64).max(clip.x0);
        let x1 = ((a.0.max(b.0) + half + 1.0).ceil() as i64).min(clip.x1 - 1);
        let y0 = ((a.1.min(b.1) - half - 1.0).floor() as i64).max(clip.y0);
        let y1 = ((a.1.max(b.1) + half + 1.0).ceil() as i64).min(clip.y1 - 1);
        for y in y0..=y1 {
            for x in x0..=x1 {
                let d = distance_to_segment((x as f64, y as f64), a, b);
                self.blend(x, y, color, (half + 0.5 - d).clamp(0.0, 1.0));
            }
        }
    }

    /// Strokes the segment `a`–`b` as dashes of `on` pixels separated by gaps of `off` pixels.
    pub(crate) fn dashed_line(
        &mut self,
        a: (f64, f64),
        b: (f64, f64),
        width: f64,
        (on, off): (f64, f64),
        color: Rgb,
        clip: Rect,
    ) {
        if on <= 0.0 || off < 0.0 {
            return;
        }
        // Clip first, so that the number of dashes is bounded by the clip's size.
        let c = clip.intersect(self.bounds());
        let window = (c.x0 as f64 - width, c.y0 as f64 - width, c.x1 as f64 + width, c.y1 as f64 + width);
        let Some((a, b)) = clip_segment(a, b, window) else { return };
        let len = ((b.0 - a.0).powi(2) + (b.1 - a.1).powi(2)).sqrt();
        if len == 0.0 {
            return;
        }
        let at = |t: f64| (a.0 + (b.0 - a.0) * t / len, a.1 + (b.1 - a.1) * t / len);
        let mut t = 0.0;
        while t < len {
            let end = (t + on).min(len);
            self.line(at(t), at(end), width, color, clip);
            t += on + off;
        }
    }

    /// Fills the disc of `radius` around `c`, anti-aliased, inside `clip`.
    pub(crate) fn disc(&mut self, c: (f64, f64), radius: f64, color: Rgb, clip: Rect) {
        if !c.0.is_finite() || !c.1.is_finite() || !radius.is_finite() || radius <= 0.0 {
            return;
        }
        let clip = clip.intersect(self.bounds());
        let x0 = ((c.0 - radius - 1.0).floor().max(clip.x0 as f64)) as i64;
        let x1 = ((c.0 + radius + 1.0).ceil().min(clip.x1 as f64 - 1.0)) as i64;
        let y0 = ((c.1 - radius - 1.0).floor().max(clip.y0 as f64)) as i64;
        let y1 = ((c.1 + radius + 1.0).ceil().min(clip.y1 as f64 - 1.0)) as i64;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let d = ((x as f64 - c.0).powi(2) + (y as f64 - c.1).powi(2)).sqrt();
                self.blend(x, y, color, (radius + 0.5 - d).clamp(0.0, 1.0));
            }
        }
    }
}

/// Distance from `p` to the segment `a`–`b`.
fn distance_to_segment(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    let t = if len2 > 0.0 { (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0) } else { 0.0 };
    let (qx, qy) = (a.0 + t * dx, a.1 + t * dy);
    ((p.0 - qx).powi(2) + (p.1 - qy).powi(2)).sqrt()
}

/// Cohen–Sutherland clipping of the segment `a`–`b` to the window `(x0, y0, x1, y1)`; `None` when
/// the segment misses the window or has a non-finite end. Each cut sets one coordinate exactly to
/// the window's edge, so horizontal and vertical segments stay exact even from far away.
fn clip_segment(
    mut a: (f64, f64),
    mut b: (f64, f64),
    (x0, y0, x1, y1): (f64, f64, f64, f64),
) -> Option<((f64, f64), (f64, f64))> {
    if ![a.0, a.1, b.0, b.1].iter().all(|v| v.is_finite()) {
        return None;
    }
    let code = |p: (f64, f64)| {
        let h = if p.0 < x0 {
            1
        } else if p.0 > x1 {
            2
        } else {
            0
        };
        let v = if p.1 < y0 {
            4
        } else if p.1 > y1 {
            8
        } else {
            0
        };
        h | v
    };
    // Each pass moves one end onto an edge it was outside of; a few passes always suffice, and
    // the caller clamps its scan to the window anyway should rounding leave an end just outside.
    for _ in 0..8 {
        let (ca, cb) = (code(a), code(b));
        if ca | cb == 0 {
            break;
        }
        if ca & cb != 0 {
            return None;
        }
        let out = if ca != 0 { ca } else { cb };
        // Divide before multiplying so that nothing overflows for ends near f64::MAX.
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let p = if out & 1 != 0 {
            (x0, a.1 + (x0 - a.0) / dx * dy)
        } else if out & 2 != 0 {
            (x1, a.1 + (x1 - a.0) / dx * dy)
        } else if out & 4 != 0 {
            (a.0 + (y0 - a.1) / dy * dx, y0)
        } else {
            (a.0 + (y1 - a.1) / dy * dx, y1)
        };
        if !p.0.is_finite() || !p.1.is_finite() {
            return None;
        }
        if ca != 0 {
            a = p;
        } else {
            b = p;
        }
    }
    Some((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: Rgb = [255, 0, 0];
    const WHITE: Rgb = [255, 255, 255];

    #[test]
    fn line_covers_the_pixels_between_its_ends() {
        let mut img = Image::new(40, 30, WHITE);
        let clip = img.bounds();
        img.line((5.0, 5.0), (35.0, 25.0), 2.0, RED, clip);
        for i in 0..=30 {
            let x = 5.0 + i as f64;
            let y = 5.0 + 20.0 * i as f64 / 30.0;
            assert_eq!(img.pixel(x as u32, y.round() as u32), Some(RED), "at x={x}");
        }
        assert_eq!(img.pixel(35, 5), Some(WHITE));
        assert_eq!(img.pixel(5, 25), Some(WHITE));
    }

    #[test]
    fn line_respects_the_clip_and_survives_huge_coordinates() {
        let mut img = Image::new(20, 20, WHITE);
        let clip = Rect::new(5, 5, 10, 10);
        img.line((-1e300, 10.0), (1e300, 10.0), 2.0, RED, clip);
        img.line((f64::NAN, 0.0), (10.0, 10.0), 2.0, RED, clip);
        assert_eq!(img.pixel(10, 10), Some(RED));
        assert_eq!(img.pixel(4, 10), Some(WHITE));
        assert_eq!(img.pixel(15, 10), Some(WHITE));
    }

    #[test]
    fn dashed_line_has_gaps() {
        let mut img = Image::new(50, 5, WHITE);
        let clip = img.bounds();
        img.dashed_line((0.0, 2.0), (49.0, 2.0), 1.0, (6.0, 4.0), RED, clip);
        assert_eq!(img.pixel(3, 2), Some(RED));
        assert_eq!(img.pixel(8, 2), Some(WHITE));
        assert_eq!(img.pixel(13, 2), Some(RED));
    }

    #[test]
    fn disc_is_filled_and_round() {
        let mut img = Image::new(21, 21, WHITE);
        let clip = img.bounds();
        img.disc((10.0, 10.0), 4.0, RED, clip);
        assert_eq!(img.pixel(10, 10), Some(RED));
        assert_eq!(img.pixel(13, 10), Some(RED));
        assert_eq!(img.pixel(14, 14), Some(WHITE));
        assert_eq!(img.pixel(16, 10), Some(WHITE));
    }

    #[test]
    fn clip_segment_cuts_to_the_window() {
        let w = (0.0, 0.0, 10.0, 10.0);
        let (a, b) = clip_segment((-5.0, 5.0), (15.0, 5.0), w).unwrap();
        assert_eq!((a, b), ((0.0, 5.0), (10.0, 5.0)));
        assert!(clip_segment((-5.0, -5.0), (-1.0, 20.0), w).is_none());
    }
}
