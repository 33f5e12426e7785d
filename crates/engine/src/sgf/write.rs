//! Writing: a game record as SGF text (the `# Writing` section of the module docs).

use super::{SgfError, SgfGame, Turn};
use crate::board::Color;
use crate::game::{Game, GameState};
use crate::point::{Geometry, Point};
use crate::score::Outcome;

impl SgfGame {
    /// The game as SGF text (see the module docs). Fails if the game does not replay.
    pub fn to_sgf(&self) -> Result<String, SgfError> {
        let end = self.replay()?;
        let geo = end.geo();
        let mut s = String::with_capacity(64 + 8 * self.turns.len());
        s.push_str("(;GM[1]FF[4]CA[UTF-8]AP[hane]");
        s.push_str(&format!(
            "SZ[{}]KM[{}]RU[{}]",
            self.rules.size,
            self.rules.komi,
            escape(&self.rules.to_string())
        ));
        if let Some(b) = &self.black {
            s.push_str(&format!("PB[{}]", escape(b)));
        }
        if let Some(w) = &self.white {
            s.push_str(&format!("PW[{}]", escape(w)));
        }
        let result = match &self.result {
            Some(r) => Some(r.clone()),
            None if end.is_over() => Some(result_string(&end)),
            None => None,
        };
        if let Some(r) = result {
            s.push_str(&format!("RE[{}]", escape(&r)));
        }
        if !self.handicap.is_empty() {
            s.push_str(&format!("HA[{}]AB", self.handicap.len()));
            for &p in &self.handicap {
                s.push_str(&format!("[{}]", sgf_point(geo, p)));
            }
        }
        let mut color = if self.handicap.is_empty() { Color::Black } else { Color::White };
        for (i, t) in self.turns.iter().enumerate() {
            if i % 16 == 0 {
                s.push('\n');
            }
            let c = match color {
                Color::Black => 'B',
                Color::White => 'W',
            };
            match *t {
                Turn::Pass => s.push_str(&format!(";{c}[]")),
                Turn::Place(p) => s.push_str(&format!(";{c}[{}]", sgf_point(geo, p))),
                Turn::Slide { from, to, place } => s.push_str(&format!(
                    ";{c}[{}]XS[{}:{}]",
                    sgf_point(geo, place),
                    sgf_point(geo, from),
                    sgf_point(geo, to)
                )),
            }
            color = color.opp();
        }
        s.push_str(")\n");
        Ok(s)
    }
}

/// `B+2`, `W+3.5` or `0` from the engine's score of a state.
pub(super) fn result_string(g: &GameState) -> String {
    let sc = g.score();
    let margin = sc.margin_black().abs();
    match sc.winner {
        Outcome::Draw => "0".to_string(),
        Outcome::Black => format!("B+{margin}"),
        Outcome::White => format!("W+{margin}"),
    }
}

/// Escapes a text value: `\` and `]` get a backslash.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch == '\\' || ch == ']' {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// The two-letter SGF name of an on-board point.
fn sgf_point(geo: Geometry, p: Point) -> String {
    let (x, y) = geo.xy(p);
    let letter = |i: usize| (b'a' + i as u8) as char;
    format!("{}{}", letter(x), letter(y))
}
