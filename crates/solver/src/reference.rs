//! The independent check: minimax over the engine's game tree without pruning, bounds,
//! symmetry or move ordering, sharing nothing with the solver but the rules and the final
//! count. Values are memoised by the complete state: stones, side to move, Sligo phase,
//! passes, turn count, last placer, prisoners and, under a ko rule, the set of every earlier
//! position (positional superko) or the previous one (simple ko). Keying on the whole history
//! set is the simple, obviously sound way to handle superko that the solver avoids (it finds
//! few transpositions); it makes whole tiny games feasible.

use super::{final_value, replay};
use hane_engine::rules::KoRule;
use hane_engine::{Action, Color, Game, GameState, Phase, PlayError, Rules};
use std::collections::HashMap;

/// The minimax value (`4 * margin + tie`, komi 0, see [`crate::domain`]) after `moves`, or
/// `Ok(None)` once more than `node_limit` positions would have to be expanded.
pub fn minimax(rules: &Rules, moves: &[Action], node_limit: u64) -> Result<Option<i32>, PlayError> {
    let (g, line) = replay(rules, moves)?;
    let mut history: Vec<Rows> = line.iter().chain([&g]).map(|s| s.board().rows()).collect();
    history.dedup();
    let mut walk = Walk { budget: node_limit, memo: HashMap::new(), history };
    Ok(walk.value(&g))
}

/// A position: its board's rows.
type Rows = Vec<String>;

/// The complete state the memo keys on (see the module docs): the position, side to move,
/// phase, passes, turn count, last placer, both prisoner counts and the earlier positions
/// the ko rule looks at.
type Key = (Rows, Color, Phase, u8, u32, Option<Color>, u32, u32, Vec<Rows>);

struct Walk {
    budget: u64,
    memo: HashMap<Key, i32>,
    /// The distinct positions of the line so far, the current one last.
    history: Vec<Rows>,
}

impl Walk {
    fn value(&mut self, g: &GameState) -> Option<i32> {
        if g.is_over() {
            return Some(final_value(g));
        }
        let board = self.history.last().expect("the current position").clone();
        let earlier = match g.rules().ko {
            KoRule::None => Vec::new(),
            KoRule::Simple => self.history[self.history.len().saturating_sub(2)..].to_vec(),
            KoRule::Positional => {
                let mut set = self.history.clone();
                set.sort();
                set
            }
        };
        let key = (
            board,
            g.to_move(),
            g.phase(),
            g.passes(),
            g.turns(),
            g.last_placer(),
            g.captured(Color::Black),
            g.captured(Color::White),
            earlier,
        );
        if let Some(&v) = self.memo.get(&key) {
            return Some(v);
        }
        self.budget = self.budget.checked_sub(1)?;
        let mut actions = Vec::new();
        g.legal_actions(&mut actions);
        let mut values = Vec::with_capacity(actions.len());
        for a in actions {
            let mut child = g.clone();
            child.play(a).expect("a listed action is legal");
            let rows = child.board().rows();
            let new = *self.history.last().expect("the current position") != rows;
            if new {
                self.history.push(rows);
            }
            let v = self.value(&child);
            if new {
                self.history.pop();
            }
            values.push(v?);
        }
        let v = match g.to_move() {
            Color::Black => values.into_iter().max(),
            Color::White => values.into_iter().min(),
        }
        .expect("an unfinished game has a legal action");
        self.memo.insert(key, v);
        Some(v)
    }
}
