//! SGF (FF\[4\]) reading and writing for hane games.
//!
//! A game is an [`SgfGame`]: rules, handicap stones and the list of [`Turn`]s. Colours are not
//! stored: Black moves first (White after a handicap) and the players alternate, as in the
//! engine.
//!
//! # Writing
//!
//! [`SgfGame::to_sgf`] replays the game (so only legal games are written) and produces one
//! main line:
//!
//! ```text
//! (;GM[1]FF[4]CA[UTF-8]AP[hane]SZ[9]KM[7]RU[ttakji]PB[..]PW[..]RE[B+2]
//! ;B[ee];W[cc];B[];W[])
//! ```
//!
//! * `RU` is the hane rules string ([`Rules`]'s `Display`, e.g. `ttakji`,
//!   `brainking,size=13`), which fixes every rule; `SZ` and `KM` repeat size and komi for other
//!   programs.
//! * `RE` is [`SgfGame::result`] when set (e.g. `B+R`), otherwise, for a finished game, the
//!   engine's score: `B+2`, `W+3.5`, or `0` for a draw.
//! * A handicap is `HA[n]` and `AB[..]` in the root node; White then moves first.
//! * Points are two lowercase letters, column then row from the top-left; a pass is `[]`.
//! * **Sligo**: a turn's placement is the ordinary move `B[xy]`/`W[xy]`, so Go tools still read
//!   the stones. A slide before it is the private property **`XS[from:to]`** (compose type,
//!   two points, e.g. `;B[ff]XS[dd:ee]` slides D..E one step and places at `ff`) on the same
//!   node. `XS` is not a standard SGF identifier.
//!
//! # Reading
//!
//! [`SgfGame::parse`] reads the first game tree of a collection and follows its main line
//! (the first variation at every branch; other variations are checked for syntax and then
//! ignored, as is anything after the first game tree). Property values may contain escaped
//! `\]` and `\\`, soft line breaks and surrounding whitespace. Lowercase letters in property
//! identifiers (old FF\[3\] style) are ignored. Unknown properties are ignored.
//!
//! * `GM` must be 1 if present. `SZ` is a single size up to 19 (`SZ[n:n]` is accepted).
//! * `RU` is first parsed as a hane rules string (preset names are case-insensitive, so
//!   `Chinese`, `Japanese` and `Tromp-Taylor` are the presets of those names); otherwise the
//!   standard names map to the nearest fields: `AGA` = `chinese,ko=positional`, `GOE`/`Ing` =
//!   `chinese,suicide=allow`, `NZ` = `chinese,ko=positional,suicide=allow,komi=7`, `Korean` =
//!   `japanese`, and KataGo's `ko…score…sui…` strings by their ko, scoring and suicide parts.
//!   Without `RU` the game is read as `japanese` (the most common default of Go servers).
//! * `SZ` overrides the size in `RU` (size-dependent defaults such as BrainKing's komi follow
//!   it); without `SZ` the size is the one `RU` gives if it is a hane rules string, else 19
//!   (the SGF default). `KM`, if present, overrides the komi.
//! * `AB` before the first move is a handicap (Go only, at least two stones; `HA` is
//!   ignored); point lists may use the compressed `aa:cc` rectangle form. `AW` and non-empty
//!   `AE` are not supported and are errors, as is `AB` after the first move.
//! * `B`/`W` are moves; a pass is `[]` or `[tt]`. A move's colour must be the side to move.
//! * Every move is replayed through the engine: an illegal move is an error.
//!
//! Every problem is an [`SgfError`] with a message and, when it comes from the text, the byte
//! offset, line and column. The reader never panics.
//!
//! The writer is `write.rs`; the reader is `syntax.rs` (text to main-line nodes) and `read.rs`
//! (nodes to a game); [`Turn`] and its notation are the engine's `turn.rs`.

mod read;
mod syntax;
mod write;

use crate::action::Action;
use crate::board::Color;
use crate::game::{Game, GameState, Phase};
use crate::point::Point;
use crate::rules::Rules;
use std::fmt;

pub use crate::turn::Turn;

/// A place in the SGF text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SgfPos {
    /// Byte offset from the start of the text.
    pub offset: usize,
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

/// Why an SGF text could not be read, or a game could not be replayed or written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfError {
    /// What is wrong.
    pub message: String,
    /// Where, when the error comes from a text.
    pub pos: Option<SgfPos>,
}

impl SgfError {
    fn new(message: impl Into<String>) -> SgfError {
        SgfError { message: message.into(), pos: None }
    }

    fn at(src: &str, offset: usize, message: impl Into<String>) -> SgfError {
        let offset = offset.min(src.len());
        let before = src.as_bytes()[..offset].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = 1 + src.as_bytes()[..offset].iter().filter(|&&b| b == b'\n').count();
        // Count characters (not bytes) on the line; `offset` may sit inside a character only
        // if a caller passed such an offset, so count lossily.
        let column = 1 + String::from_utf8_lossy(&src.as_bytes()[before..offset]).chars().count();
        SgfError { message: message.into(), pos: Some(SgfPos { offset, line, column }) }
    }
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some(p) => write!(f, "SGF line {}, column {}: {}", p.line, p.column, self.message),
            None => write!(f, "SGF: {}", self.message),
        }
    }
}

impl std::error::Error for SgfError {}

/// A recorded game: what an SGF file holds for hane (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfGame {
    /// The rules, size and komi included.
    pub rules: Rules,
    /// Handicap stones (Go only), placed as Black's first move; empty for none.
    pub handicap: Vec<Point>,
    /// The turns in order.
    pub turns: Vec<Turn>,
    /// Black player's name (`PB`).
    pub black: Option<String>,
    /// White player's name (`PW`).
    pub white: Option<String>,
    /// A result to write verbatim as `RE` (e.g. `B+R`); when `None` the writer scores the
    /// game. The reader fills it from `RE`.
    pub result: Option<String>,
}

impl SgfGame {
    /// An empty game record under `rules`.
    pub fn new(rules: Rules) -> SgfGame {
        SgfGame { rules, handicap: Vec::new(), turns: Vec::new(), black: None, white: None, result: None }
    }

    /// A record of the game that plays `actions` (engine actions, as a search emits them)
    /// from the start, after the handicap stones if any. The actions are replayed and checked.
    pub fn from_actions(rules: Rules, handicap: &[Point], actions: &[Action]) -> Result<SgfGame, SgfError> {
        let mut rec = SgfGame::new(rules);
        rec.handicap = handicap.to_vec();
        let mut g = rec.start()?;
        for (i, &a) in actions.iter().enumerate() {
            let turn = Turn::from_action(&g, a);
            g.play(a).map_err(|e| SgfError::new(format!("action {} ({}): {e}", i + 1, a.name(g.geo()))))?;
            rec.turns.extend(turn);
        }
        if g.phase() != Phase::Start {
            return Err(SgfError::new("the actions end in the middle of a Sligo turn".to_string()));
        }
        Ok(rec)
    }

    /// The initial state: validated rules and the handicap placed, if the game has one (a
    /// game without `AB` starts on the empty board with Black to move).
    pub fn start(&self) -> Result<GameState, SgfError> {
        self.rules.validate().map_err(|e| SgfError::new(format!("invalid rules: {e}")))?;
        let mut g = GameState::new(self.rules);
        if !self.handicap.is_empty() {
            g.set_handicap(&self.handicap).map_err(|e| SgfError::new(format!("handicap: {e}")))?;
        }
        Ok(g)
    }

    /// Plays the whole game through the engine and returns the final state.
    pub fn replay(&self) -> Result<GameState, SgfError> {
        let mut g = self.start()?;
        for (i, &t) in self.turns.iter().enumerate() {
            t.play(&mut g).map_err(|e| {
                SgfError::new(format!(
                    "turn {} ({} {}): {e}",
                    i + 1,
                    color_letter(g.to_move()),
                    t.name(g.geo())
                ))
            })?;
        }
        Ok(g)
    }
}

fn color_letter(c: Color) -> char {
    match c {
        Color::Black => 'B',
        Color::White => 'W',
    }
}

#[cfg(test)]
mod tests {
    use super::write::result_string;
    use super::*;
    use crate::playout::random_light_action;
    use crate::point::Geometry;
    use crate::rng::Rng;
    use crate::rules::PRESETS;

    /// A random game record under `rules` (light playout actions), at most `max` turns.
    fn random_record(rules: Rules, seed: u64, max: usize) -> SgfGame {
        let mut g = GameState::new(rules);
        let mut rng = Rng::new(seed);
        let mut actions = Vec::new();
        let mut turns = 0;
        while !g.is_over() && turns < max {
            let a = random_light_action(&g, &mut rng);
            if Turn::from_action(&g, a).is_some() {
                turns += 1;
            }
            g.play(a).unwrap();
            actions.push(a);
        }
        SgfGame::from_actions(rules, &[], &actions).unwrap()
    }

    #[test]
    fn every_preset_round_trips() {
        for name in PRESETS {
            for size in [5u8, 9] {
                let rules = Rules::preset_sized(name, size).unwrap();
                for seed in 0..4 {
                    let mut rec = random_record(rules, seed, 400);
                    if seed == 1 {
                        rec.black = Some("hane ] \\ test".into());
                        rec.white = Some("other".into());
                    }
                    let text = rec.to_sgf().unwrap();
                    let back = SgfGame::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                    let end = rec.replay().unwrap();
                    let mut want = rec.clone();
                    if end.is_over() {
                        want.result = Some(result_string(&end));
                    }
                    assert_eq!(back, want, "{text}");
                    assert_eq!(back.replay().unwrap().board().rows(), end.board().rows());
                    // Writing again gives the same text.
                    assert_eq!(back.to_sgf().unwrap(), text);
                }
            }
        }
    }

    #[test]
    fn sligo_slides_are_written_as_xs() {
        let rules = Rules::preset_sized("sligo", 5).unwrap();
        let rec = (0..40)
            .map(|seed| random_record(rules, seed, 60))
            .find(|r| r.turns.iter().any(|t| matches!(t, Turn::Slide { .. })))
            .expect("some random Sligo game slides");
        let text = rec.to_sgf().unwrap();
        assert!(text.contains("XS["), "{text}");
        assert_eq!(SgfGame::parse(&text).unwrap().turns, rec.turns);
        // A handwritten Sligo record: Black's stone at bb slides west to ab, then Black places
        // at cc; the placement and the slide read back exactly.
        let text = "(;GM[1]FF[4]SZ[5]RU[sligo,size=5];B[bb];W[dd];B[cc]XS[bb:ab])";
        let rec = SgfGame::parse(text).unwrap();
        let geo = Geometry::new(5);
        assert_eq!(
            rec.turns[2],
            Turn::Slide { from: geo.point(1, 1), to: geo.point(0, 1), place: geo.point(2, 2) }
        );
        assert_eq!(rec.rules, rules);
    }

    #[test]
    fn handicap_round_trips() {
        let rules = Rules::preset_sized("brainking", 9).unwrap();
        let geo = Geometry::new(9);
        let hcp = vec![geo.point(2, 2), geo.point(6, 6)];
        let first = geo.point(4, 4);
        let rec = SgfGame::from_actions(rules, &hcp, &[Action::Place(first), Action::Pass]).unwrap();
        let text = rec.to_sgf().unwrap();
        assert!(text.contains("HA[2]AB[cc][gg]"), "{text}");
        assert!(text.contains(";W[ee];B[]"), "{text}");
        let back = SgfGame::parse(&text).unwrap();
        assert_eq!(back.handicap, hcp);
        assert_eq!(back.turns, vec![Turn::Place(first), Turn::Pass]);
        // Compressed rectangle lists work too.
        let back = SgfGame::parse("(;SZ[9]RU[japanese]AB[aa:ab];W[ee])").unwrap();
        assert_eq!(back.handicap, vec![geo.point(0, 0), geo.point(0, 1)]);
    }

    #[test]
    fn from_actions_and_replay_report_errors() {
        let rules = Rules::preset("ttakji").unwrap();
        let geo = Geometry::new(9);
        let p = Action::Place(geo.point(0, 0));
        let e = SgfGame::from_actions(rules, &[], &[p, p]).unwrap_err();
        assert!(e.message.contains("occupied"), "{e}");
        let sligo = Rules::preset("sligo").unwrap();
        let e = SgfGame::from_actions(sligo, &[], &[Action::NoSlide]).unwrap_err();
        assert!(e.message.contains("middle"), "{e}");
        let mut rec = SgfGame::new(rules);
        rec.turns.push(Turn::Place(Point(0)));
        assert!(rec.replay().is_err());
        assert!(rec.to_sgf().is_err());
        rec.turns = vec![Turn::Slide { from: geo.point(0, 0), to: geo.point(0, 1), place: geo.point(5, 5) }];
        assert!(rec.replay().err().unwrap().message.contains("only in Sligo"));
        let mut bad = SgfGame::new(rules);
        bad.rules.size = 40;
        assert!(bad.replay().err().unwrap().message.contains("invalid rules"));
    }
}
