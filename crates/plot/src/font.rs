//! Text in Noto Sans, the font that the `ttf-noto-sans` crate embeds in the binary, drawn with
//! `ab_glyph`'s anti-aliased outlines: text needs no font files on the machine, and reads as
//! type rather than a terminal's bitmap.
//!
//! Sizes go by `scale`: 1 for tick labels, axis labels and the legend, 2 for the title. A line
//! of text occupies [`text_height`] rows from the `y` it is drawn at, descenders included.

use crate::raster::{Image, Rgb};
use ab_glyph::{point, Font, FontRef, GlyphId, PxScale, ScaleFont};
use std::sync::OnceLock;

/// Pixels of font size per unit of `scale`.
const PX_PER_SCALE: f32 = 13.0;

fn font() -> &'static FontRef<'static> {
    static FONT: OnceLock<FontRef<'static>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(ttf_noto_sans::REGULAR).expect("the embedded font parses"))
}

fn px(scale: u32) -> PxScale {
    PxScale::from(PX_PER_SCALE * scale.max(1) as f32)
}

/// Each glyph of `text` at `scale` with the x of its origin, kerning included, and the x
/// after the last glyph.
fn layout(text: &str, scale: u32) -> (Vec<(GlyphId, f32)>, f32) {
    let f = font().as_scaled(px(scale));
    let mut caret = 0.0;
    let mut last = None;
    let mut glyphs = Vec::with_capacity(text.len());
    for c in text.chars() {
        let id = f.glyph_id(c);
        if let Some(prev) = last {
            caret += f.kern(prev, id);
        }
        glyphs.push((id, caret));
        caret += f.h_advance(id);
        last = Some(id);
    }
    (glyphs, caret)
}

/// Width in pixels of `text` drawn at `scale`, kerning included.
pub fn text_width(text: &str, scale: u32) -> u32 {
    layout(text, scale).1.ceil() as u32
}

/// Height in pixels of a line of text at `scale`, from the top of the tallest letter to the
/// bottom of the lowest descender.
pub fn text_height(scale: u32) -> u32 {
    let f = font().as_scaled(px(scale));
    (f.ascent() - f.descent()).ceil() as u32
}

/// Calls `ink(along, down, coverage)` for each pixel of `text` at `scale`, in the text's own
/// frame: `along` from its left edge, `down` from the top of its line.
fn rasterise(text: &str, scale: u32, mut ink: impl FnMut(i64, i64, f32)) {
    let ascent = font().as_scaled(px(scale)).ascent();
    for (id, x) in layout(text, scale).0 {
        let glyph = id.with_scale_and_position(px(scale), point(x, ascent));
        if let Some(outline) = font().outline_glyph(glyph) {
            let b = outline.px_bounds();
            outline.draw(|gx, gy, coverage| {
                ink(b.min.x as i64 + i64::from(gx), b.min.y as i64 + i64::from(gy), coverage)
            });
        }
    }
}

/// Draws `text` with the top-left corner of its line at `(x, y)`. Ink falling outside the
/// image is dropped.
pub fn draw_text(img: &mut Image, x: i64, y: i64, text: &str, scale: u32, color: Rgb) {
    rasterise(text, scale, |along, down, c| img.blend(x + along, y + down, color, f64::from(c)));
}

/// Draws `text` turned a quarter turn anticlockwise (reading bottom to top), for a vertical axis
/// label. `(x, y)` is the bottom-left corner of the rotated text's box: the text occupies
/// `x..x + text_height` across and `y - text_width..y` up the image.
pub fn draw_text_up(img: &mut Image, x: i64, y: i64, text: &str, scale: u32, color: Rgb) {
    rasterise(text, scale, |along, down, c| img.blend(x + down, y - 1 - along, color, f64::from(c)));
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLACK: Rgb = [0, 0, 0];
    const WHITE: Rgb = [255, 255, 255];

    /// Bounding box `(x0, y0, x1, y1)` (inclusive) of non-white pixels, if any.
    fn ink_box(img: &Image) -> Option<(u32, u32, u32, u32)> {
        let mut b: Option<(u32, u32, u32, u32)> = None;
        for y in 0..img.height() {
            for x in 0..img.width() {
                if img.pixel(x, y) != Some(WHITE) {
                    b = Some(match b {
                        None => (x, y, x, y),
                        Some((x0, y0, x1, y1)) => (x0.min(x), y0.min(y), x1.max(x), y1.max(y)),
                    });
                }
            }
        }
        b
    }

    #[test]
    fn every_character_the_charts_print_has_a_glyph_of_its_own() {
        let used = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz .,-+:/()%_=[]±'’";
        for c in used.chars() {
            assert_ne!(font().glyph_id(c).0, 0, "no glyph for {c:?}");
        }
    }

    #[test]
    fn text_ink_stays_in_its_box_and_is_anti_aliased() {
        let mut img = Image::new(200, 60, WHITE);
        draw_text(&mut img, 10, 5, "Elo (95%)", 2, BLACK);
        let (x0, y0, x1, y1) = ink_box(&img).unwrap();
        assert!(x0 >= 10 && x1 < 10 + text_width("Elo (95%)", 2), "{x0} {x1}");
        assert!(y0 >= 5 && y1 < 5 + text_height(2), "{y0} {y1}");
        // The title size is twice the label size.
        assert!((text_width("Elo", 2) as i64 - 2 * text_width("Elo", 1) as i64).abs() <= 2);
        let grey = (0..img.height())
            .flat_map(|y| (0..img.width()).map(move |x| (x, y)))
            .filter(|&(x, y)| !matches!(img.pixel(x, y), Some(BLACK) | Some(WHITE)))
            .count();
        assert!(grey > 20, "edges are blended: {grey} grey pixels");
    }

    #[test]
    fn descenders_reach_below_capitals() {
        let (mut cap, mut low) = (Image::new(40, 40, WHITE), Image::new(40, 40, WHITE));
        draw_text(&mut cap, 0, 0, "E", 1, BLACK);
        draw_text(&mut low, 0, 0, "g", 1, BLACK);
        let (c, l) = (ink_box(&cap).unwrap(), ink_box(&low).unwrap());
        assert!(l.3 > c.3 && l.3 < text_height(1), "{c:?} {l:?}");
    }

    #[test]
    fn rotated_text_runs_up() {
        let mut img = Image::new(40, 80, WHITE);
        draw_text_up(&mut img, 5, 70, "LLL", 1, BLACK);
        let (x0, y0, x1, y1) = ink_box(&img).unwrap();
        assert!(x0 >= 5 && x1 < 5 + text_height(1), "{x0} {x1}");
        assert!(y1 < 70 && y0 >= 70 - text_width("LLL", 1), "{y0} {y1}");
        assert!(y1 - y0 > x1 - x0, "taller than wide");
    }

    #[test]
    fn text_outside_the_image_is_dropped() {
        let mut img = Image::new(10, 10, WHITE);
        draw_text(&mut img, -30, -4, "Hello, world", 3, BLACK);
        draw_text_up(&mut img, 8, 2, "xyz", 1, BLACK);
        draw_text(&mut img, 0, 0, "", 1, BLACK);
        assert_eq!(text_width("", 1), 0);
        assert!(text_width("ab", 1) > text_width("a", 1));
    }
}
