//! A built-in 5x7 bitmap font (plus one descender row), drawn by hand for this crate, so that
//! text needs no font files on the machine.
//!
//! Each glyph is eight rows of five bits, the top row first and bit 4 the leftmost column. Rows
//! 0..7 hold capitals and digits; lowercase letters sit on rows 2..7 and `g j p q y` (and `_`,
//! `,`) reach into row 7. Characters without a glyph draw as a hollow box.

use crate::raster::{Image, Rgb};

/// Columns of ink in a glyph.
pub const GLYPH_WIDTH: u32 = 5;
/// Rows of a glyph cell, including the descender row.
pub const GLYPH_HEIGHT: u32 = 8;
/// Horizontal distance from one character to the next (glyph plus one column of space).
pub const ADVANCE: u32 = GLYPH_WIDTH + 1;

/// The glyph table, in no particular order.
#[rustfmt::skip]
const GLYPHS: &[(char, [u8; 8])] = &[
    (' ', [0, 0, 0, 0, 0, 0, 0, 0]),
    ('0', [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110, 0]),
    ('1', [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110, 0]),
    ('2', [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111, 0]),
    ('3', [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110, 0]),
    ('4', [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010, 0]),
    ('5', [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110, 0]),
    ('6', [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110, 0]),
    ('7', [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000, 0]),
    ('8', [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110, 0]),
    ('9', [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100, 0]),
    ('A', [0b01110, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001, 0]),
    ('B', [0b11110, 0b10001, 0b10001, 0b11110, 0b10001, 0b10001, 0b11110, 0]),
    ('C', [0b01110, 0b10001, 0b10000, 0b10000, 0b10000, 0b10001, 0b01110, 0]),
    ('D', [0b11100, 0b10010, 0b10001, 0b10001, 0b10001, 0b10010, 0b11100, 0]),
    ('E', [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b11111, 0]),
    ('F', [0b11111, 0b10000, 0b10000, 0b11110, 0b10000, 0b10000, 0b10000, 0]),
    ('G', [0b01110, 0b10001, 0b10000, 0b10111, 0b10001, 0b10001, 0b01111, 0]),
    ('H', [0b10001, 0b10001, 0b10001, 0b11111, 0b10001, 0b10001, 0b10001, 0]),
    ('I', [0b01110, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110, 0]),
    ('J', [0b00111, 0b00010, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100, 0]),
    ('K', [0b10001, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0b10001, 0]),
    ('L', [0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b10000, 0b11111, 0]),
    ('M', [0b10001, 0b11011, 0b10101, 0b10101, 0b10001, 0b10001, 0b10001, 0]),
    ('N', [0b10001, 0b10001, 0b11001, 0b10101, 0b10011, 0b10001, 0b10001, 0]),
    ('O', [0b01110, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110, 0]),
    ('P', [0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000, 0b10000, 0]),
    ('Q', [0b01110, 0b10001, 0b10001, 0b10001, 0b10101, 0b10010, 0b01101, 0]),
    ('R', [0b11110, 0b10001, 0b10001, 0b11110, 0b10100, 0b10010, 0b10001, 0]),
    ('S', [0b01111, 0b10000, 0b10000, 0b01110, 0b00001, 0b00001, 0b11110, 0]),
    ('T', [0b11111, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0]),
    ('U', [0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01110, 0]),
    ('V', [0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100, 0]),
    ('W', [0b10001, 0b10001, 0b10001, 0b10101, 0b10101, 0b10101, 0b01010, 0]),
    ('X', [0b10001, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0b10001, 0]),
    ('Y', [0b10001, 0b10001, 0b01010, 0b00100, 0b00100, 0b00100, 0b00100, 0]),
    ('Z', [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b10000, 0b11111, 0]),
    ('a', [0, 0, 0b01110, 0b00001, 0b01111, 0b10001, 0b01111, 0]),
    ('b', [0b10000, 0b10000, 0b10110, 0b11001, 0b10001, 0b10001, 0b11110, 0]),
    ('c', [0, 0, 0b01110, 0b10000, 0b10000, 0b10001, 0b01110, 0]),
    ('d', [0b00001, 0b00001, 0b01101, 0b10011, 0b10001, 0b10001, 0b01111, 0]),
    ('e', [0, 0, 0b01110, 0b10001, 0b11111, 0b10000, 0b01110, 0]),
    ('f', [0b00110, 0b01001, 0b01000, 0b11100, 0b01000, 0b01000, 0b01000, 0]),
    ('g', [0, 0, 0b01111, 0b10001, 0b10001, 0b01111, 0b00001, 0b01110]),
    ('h', [0b10000, 0b10000, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001, 0]),
    ('i', [0b00100, 0, 0b01100, 0b00100, 0b00100, 0b00100, 0b01110, 0]),
    ('j', [0b00010, 0, 0b00110, 0b00010, 0b00010, 0b00010, 0b10010, 0b01100]),
    ('k', [0b10000, 0b10000, 0b10010, 0b10100, 0b11000, 0b10100, 0b10010, 0]),
    ('l', [0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110, 0]),
    ('m', [0, 0, 0b11010, 0b10101, 0b10101, 0b10101, 0b10101, 0]),
    ('n', [0, 0, 0b10110, 0b11001, 0b10001, 0b10001, 0b10001, 0]),
    ('o', [0, 0, 0b01110, 0b10001, 0b10001, 0b10001, 0b01110, 0]),
    ('p', [0, 0, 0b11110, 0b10001, 0b10001, 0b11110, 0b10000, 0b10000]),
    ('q', [0, 0, 0b01111, 0b10001, 0b10001, 0b01111, 0b00001, 0b00001]),
    ('r', [0, 0, 0b10110, 0b11001, 0b10000, 0b10000, 0b10000, 0]),
    ('s', [0, 0, 0b01111, 0b10000, 0b01110, 0b00001, 0b11110, 0]),
    ('t', [0b01000, 0b01000, 0b11100, 0b01000, 0b01000, 0b01001, 0b00110, 0]),
    ('u', [0, 0, 0b10001, 0b10001, 0b10001, 0b10011, 0b01101, 0]),
    ('v', [0, 0, 0b10001, 0b10001, 0b10001, 0b01010, 0b00100, 0]),
    ('w', [0, 0, 0b10001, 0b10001, 0b10101, 0b10101, 0b01010, 0]),
    ('x', [0, 0, 0b10001, 0b01010, 0b00100, 0b01010, 0b10001, 0]),
    ('y', [0, 0, 0b10001, 0b10001, 0b10001, 0b01111, 0b00001, 0b01110]),
    ('z', [0, 0, 0b11111, 0b00010, 0b00100, 0b01000, 0b11111, 0]),
    ('.', [0, 0, 0, 0, 0, 0b01100, 0b01100, 0]),
    (',', [0, 0, 0, 0, 0, 0b01100, 0b00100, 0b01000]),
    (':', [0, 0b01100, 0b01100, 0, 0b01100, 0b01100, 0, 0]),
    (';', [0, 0b01100, 0b01100, 0, 0b01100, 0b00100, 0b01000, 0]),
    ('-', [0, 0, 0, 0b11111, 0, 0, 0, 0]),
    ('+', [0, 0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0, 0]),
    ('=', [0, 0, 0b11111, 0, 0b11111, 0, 0, 0]),
    ('±', [0b00100, 0b00100, 0b11111, 0b00100, 0b00100, 0, 0b11111, 0]),
    ('/', [0b00001, 0b00010, 0b00010, 0b00100, 0b01000, 0b01000, 0b10000, 0]),
    ('(', [0b00010, 0b00100, 0b01000, 0b01000, 0b01000, 0b00100, 0b00010, 0]),
    (')', [0b01000, 0b00100, 0b00010, 0b00010, 0b00010, 0b00100, 0b01000, 0]),
    ('[', [0b01110, 0b01000, 0b01000, 0b01000, 0b01000, 0b01000, 0b01110, 0]),
    (']', [0b01110, 0b00010, 0b00010, 0b00010, 0b00010, 0b00010, 0b01110, 0]),
    ('<', [0b00010, 0b00100, 0b01000, 0b10000, 0b01000, 0b00100, 0b00010, 0]),
    ('>', [0b01000, 0b00100, 0b00010, 0b00001, 0b00010, 0b00100, 0b01000, 0]),
    ('%', [0b11000, 0b11001, 0b00010, 0b00100, 0b01000, 0b10011, 0b00011, 0]),
    ('_', [0, 0, 0, 0, 0, 0, 0, 0b11111]),
    ('!', [0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0, 0b00100, 0]),
    ('?', [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0, 0b00100, 0]),
    ('\'', [0b00100, 0b00100, 0b01000, 0, 0, 0, 0, 0]),
    ('"', [0b01010, 0b01010, 0, 0, 0, 0, 0, 0]),
    ('*', [0, 0b00100, 0b10101, 0b01110, 0b10101, 0b00100, 0, 0]),
    ('#', [0b01010, 0b01010, 0b11111, 0b01010, 0b11111, 0b01010, 0b01010, 0]),
    ('|', [0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0b00100, 0]),
];

/// The drawn box for characters the table lacks.
const MISSING: [u8; 8] = [0b11111, 0b10001, 0b10001, 0b10001, 0b10001, 0b10001, 0b11111, 0];

/// The rows of `c`'s glyph.
pub fn glyph(c: char) -> [u8; 8] {
    GLYPHS.iter().find(|(g, _)| *g == c).map_or(MISSING, |(_, rows)| *rows)
}

/// Width in pixels of `text` drawn at `scale` (no trailing space after the last character).
pub fn text_width(text: &str, scale: u32) -> u32 {
    let n = text.chars().count() as u32;
    (n * ADVANCE).saturating_sub(1) * scale
}

/// Height in pixels of a line of text at `scale`, descender row included.
pub fn text_height(scale: u32) -> u32 {
    GLYPH_HEIGHT * scale
}

/// Draws `text` with its top-left corner at `(x, y)`, each font pixel a `scale` x `scale` block.
/// Ink falling outside the image is dropped.
pub fn draw_text(img: &mut Image, x: i64, y: i64, text: &str, scale: u32, color: Rgb) {
    let s = scale.max(1) as i64;
    for (i, c) in text.chars().enumerate() {
        let gx = x + i as i64 * ADVANCE as i64 * s;
        for_each_ink(c, |col, row| {
            for dy in 0..s {
                for dx in 0..s {
                    img.blend(gx + col * s + dx, y + row * s + dy, color, 1.0);
                }
            }
        });
    }
}

/// Draws `text` turned a quarter turn anticlockwise (reading bottom to top), for a vertical axis
/// label. `(x, y)` is the bottom-left corner of the rotated text's box: the text occupies
/// `x..x + text_height` across and `y - text_width..y` up the image.
pub fn draw_text_up(img: &mut Image, x: i64, y: i64, text: &str, scale: u32, color: Rgb) {
    let s = scale.max(1) as i64;
    for (i, c) in text.chars().enumerate() {
        let along = i as i64 * ADVANCE as i64 * s;
        for_each_ink(c, |col, row| {
            // Glyph column runs up the image, glyph row runs rightwards.
            for dy in 0..s {
                for dx in 0..s {
                    img.blend(x + row * s + dx, y - 1 - (along + col * s + dy), color, 1.0);
                }
            }
        });
    }
}

/// Calls `f(column, row)` for each inked font pixel of `c`.
fn for_each_ink(c: char, mut f: impl FnMut(i64, i64)) {
    for (row, bits) in glyph(c).iter().enumerate() {
        for col in 0..GLYPH_WIDTH {
            if bits & (1 << (GLYPH_WIDTH - 1 - col)) != 0 {
                f(col as i64, row as i64);
            }
        }
    }
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
    fn required_characters_have_their_own_glyphs() {
        let required = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz .,-+:/()%_=[]±";
        for c in required.chars() {
            assert!(GLYPHS.iter().any(|(g, _)| *g == c), "no glyph for {c:?}");
        }
        for (c, rows) in GLYPHS {
            assert!(rows.iter().all(|r| *r < 32), "glyph {c:?} is wider than 5 columns");
            assert!(*c == ' ' || rows.iter().any(|r| *r != 0), "glyph {c:?} is blank");
        }
        let mut chars: Vec<char> = GLYPHS.iter().map(|(c, _)| *c).collect();
        chars.sort_unstable();
        chars.dedup();
        assert_eq!(chars.len(), GLYPHS.len(), "a character appears twice");
    }

    #[test]
    fn glyphs_are_distinct() {
        for (i, (a, ra)) in GLYPHS.iter().enumerate() {
            for (b, rb) in &GLYPHS[i + 1..] {
                assert_ne!(ra, rb, "{a:?} and {b:?} look the same");
            }
        }
    }

    #[test]
    fn text_ink_stays_in_its_box() {
        let mut img = Image::new(100, 40, WHITE);
        draw_text(&mut img, 10, 5, "E1", 2, BLACK);
        // 'E' fills its first column and rows 0..7; '1' ends at column 3 of its cell.
        let (x0, y0, x1, y1) = ink_box(&img).unwrap();
        assert_eq!((x0, y0), (10, 5));
        assert_eq!(y1, 5 + 7 * 2 - 1);
        assert_eq!(x1, 10 + (ADVANCE + 3) * 2 + 1);
        assert!(x1 < 10 + text_width("E1", 2));
        assert_eq!(img.pixel(10, 5), Some(BLACK));
    }

    #[test]
    fn descenders_reach_the_last_row() {
        let mut img = Image::new(20, 20, WHITE);
        draw_text(&mut img, 0, 0, "g", 1, BLACK);
        let (_, y0, _, y1) = ink_box(&img).unwrap();
        assert_eq!((y0, y1), (2, GLYPH_HEIGHT - 1));
    }

    #[test]
    fn rotated_text_runs_up() {
        let mut img = Image::new(40, 60, WHITE);
        draw_text_up(&mut img, 5, 50, "LLL", 1, BLACK);
        let (x0, y0, x1, y1) = ink_box(&img).unwrap();
        assert!(x0 >= 5 && x1 < 5 + text_height(1));
        assert!(y1 < 50 && y0 >= 50 - text_width("LLL", 1));
        // 'L' has a full first column: drawn up, that is the row just above the baseline.
        assert_eq!(y1, 49);
        assert_eq!(x1 - x0 + 1, 7);
    }

    #[test]
    fn text_outside_the_image_is_dropped() {
        let mut img = Image::new(10, 10, WHITE);
        draw_text(&mut img, -30, -4, "Hello, world", 3, BLACK);
        draw_text_up(&mut img, 8, 2, "xyz", 1, BLACK);
        draw_text(&mut img, 0, 0, "", 1, BLACK);
        assert_eq!(text_width("", 1), 0);
        assert_eq!(text_width("ab", 1), 11);
    }
}
