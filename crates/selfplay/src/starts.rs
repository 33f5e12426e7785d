//! Start positions: self-play games that begin at a given position instead of the empty
//! board, each with a move the first search must look at (KataGo's book positions with their
//! hints, `booktoposes`). An opening book writes them where the net and the book disagree,
//! so that self-play searches the book's move there and the net learns what the book found.
//!
//! The file is JSON: the rule set, then the positions, each as the dense indices
//! ([`Action::index`]) of the actions from the empty board, the hint's index (or none) and a
//! weight (positions are drawn in proportion to it). Reading checks every position against
//! the rules (each action legal in turn, the hint legal at the end) and refuses the file
//! with the position named otherwise.

use hane_engine::{Action, Game, GameState, Rules};
use hane_host::read;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The share of the root's prior a start position's hint gets in its first search
/// ([`hane_mcts::Search::set_root_hint`]).
pub const HINT_SHARE: f32 = 0.25;

/// One start position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartPosition {
    /// The actions from the empty board, as dense indices.
    pub actions: Vec<u16>,
    /// The move the first search must look at, as a dense index.
    pub hint: Option<u16>,
    /// How often it is drawn, relative to the others.
    pub weight: f32,
}

/// A file of start positions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartPositions {
    /// The rule set they are positions of (its komi aside: games draw their own).
    pub rules: String,
    /// The positions.
    pub positions: Vec<StartPosition>,
}

/// A start position ready to play: its actions and hint, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    /// The actions from the empty board.
    pub actions: Vec<Action>,
    /// The hint.
    pub hint: Option<Action>,
}

/// Start positions to draw from, by weight.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Starts {
    starts: Vec<Start>,
    /// Cumulative weights.
    cumulative: Vec<f64>,
}

impl Starts {
    /// Reads and checks the start positions at `path` for `rules`.
    pub fn read(path: &Path, rules: &Rules) -> Result<Starts, String> {
        let at = |why: String| format!("start positions {}: {why}", path.display());
        let text = read::read_text(path, read::REPORT).map_err(|e| at(e.why()))?;
        let file: StartPositions = serde_json::from_str(&text).map_err(|e| at(e.to_string()))?;
        Starts::check(&file, rules).map_err(at)
    }

    /// The positions of `file`, checked against `rules`.
    pub fn check(file: &StartPositions, rules: &Rules) -> Result<Starts, String> {
        let theirs: Rules = file.rules.parse().map_err(|e| format!("rules: {e}"))?;
        if !theirs.same_game(rules) || theirs.size != rules.size {
            return Err(format!("positions of {}, not of {rules}", file.rules));
        }
        let geo = GameState::new(*rules).geo();
        let action = |i: u16| Action::from_index(geo, i.into());
        let mut out = Starts::default();
        let mut total = 0.0;
        for (n, p) in file.positions.iter().enumerate() {
            let mut g = GameState::new(*rules);
            let mut actions = Vec::with_capacity(p.actions.len());
            for &i in &p.actions {
                let a = action(i).ok_or_else(|| format!("position {n}: action index {i}"))?;
                g.play(a).map_err(|e| format!("position {n}: {e}"))?;
                actions.push(a);
            }
            let hint = match p.hint {
                None => None,
                Some(i) => {
                    let a = action(i).ok_or_else(|| format!("position {n}: hint index {i}"))?;
                    let mut legal = Vec::new();
                    g.legal_actions(&mut legal);
                    if !legal.contains(&a) {
                        return Err(format!("position {n}: the hint {} is not legal there", a.name(geo)));
                    }
                    Some(a)
                }
            };
            if g.is_over() || !p.weight.is_finite() || p.weight < 0.0 {
                return Err(format!(
                    "position {n}: the game is over there, or its weight is not a number >= 0"
                ));
            }
            total += f64::from(p.weight);
            out.cumulative.push(total);
            out.starts.push(Start { actions, hint });
        }
        if total <= 0.0 {
            return Err("no position with a weight above 0".into());
        }
        Ok(out)
    }

    /// A start drawn by weight with the uniform number `u` in `[0, 1)`.
    pub fn draw(&self, u: f64) -> &Start {
        let total = self.cumulative.last().copied().unwrap_or(0.0);
        let k = self.cumulative.partition_point(|&c| c <= u * total);
        &self.starts[k.min(self.starts.len() - 1)]
    }

    /// How many positions there are.
    pub fn len(&self) -> usize {
        self.starts.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.starts.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(positions: Vec<StartPosition>) -> StartPositions {
        StartPositions { rules: "ttakji,size=5".into(), positions }
    }

    #[test]
    fn positions_are_checked_and_drawn_by_weight() {
        let rules: Rules = "ttakji,size=5,komi=24".parse().unwrap();
        let p = |actions: Vec<u16>, hint, weight| StartPosition { actions, hint, weight };
        let starts =
            Starts::check(&file(vec![p(vec![12], Some(6), 1.0), p(vec![12, 6], None, 3.0)]), &rules).unwrap();
        assert_eq!(starts.len(), 2);
        assert_eq!(starts.draw(0.2).actions.len(), 1);
        assert_eq!(starts.draw(0.3).actions.len(), 2);
        assert_eq!(starts.draw(0.99).hint, None);
        // An illegal action, an illegal hint, another board, no weight: refused, named.
        let e = Starts::check(&file(vec![p(vec![12, 12], None, 1.0)]), &rules).unwrap_err();
        assert!(e.starts_with("position 0:"), "{e}");
        let e = Starts::check(&file(vec![p(vec![12], Some(12), 1.0)]), &rules).unwrap_err();
        assert!(e.contains("hint C3 is not legal"), "{e}");
        let other: Rules = "ttakji,size=7".parse().unwrap();
        assert!(Starts::check(&file(vec![p(vec![12], None, 1.0)]), &other).unwrap_err().contains("not of"));
        assert!(Starts::check(&file(vec![p(vec![12], None, 0.0)]), &rules).is_err());
    }
}
