//! The exact solver as a judge of a net: positions that [`hane_solver`] settles
//! within a node budget, each with its exact value and the value after every legal turn, and
//! the share of a player's turns there that keep the value. No anchor can saturate it: a net
//! that plays perfectly scores 1, and every mistake it still makes shows.
//!
//! Two measures per turn: whether it keeps the exact value (Black's margin under perfect
//! play, which the solver maximises), and whether it keeps the result at the position's komi
//! (what a net playing to win is trained for: a turn that gives away points it does not need
//! keeps the result), the second counted only where some turn loses the result. And two
//! players per net: the raw policy's first choice, and the turn of a search with the net.

use crate::referee::search_turn;
use hane_engine::{Action, Game, GameState, PlayError, Rules, Turn, TurnError};
use hane_host::Stop;
use hane_mcts::{EvalRequest, Evaluator};
use hane_solver::{outcome_at, solve_after, SolveError, SolveOptions, TurnValue};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A position with its exact value and the value after each of its legal turns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExactPosition {
    /// The rules, with the komi of the game the position comes from.
    pub rules: Rules,
    /// Its turns from the empty board (`C3`, `pass`, a Sligo slide as `D3>D4+C3`).
    pub turns: Vec<String>,
    /// Its value, `4 * margin + tie` (see [`hane_solver::domain`]).
    pub value: i32,
    /// The value after each legal turn, turns that the position's symmetries map onto each
    /// other together.
    pub values: Vec<TurnValue>,
}

/// What one turn keeps of a position's exact result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kept {
    /// The exact value: Black's margin under perfect play.
    pub value: bool,
    /// The result (win, draw or loss) at the position's komi.
    pub result: bool,
    /// Whether some turn of the position loses the result (else every turn keeps it).
    pub result_at_stake: bool,
    /// The points the turn gives away against the exact value (0 when it keeps it).
    pub points_lost: f64,
    /// Whether Black is to move.
    pub black_to_move: bool,
}

impl ExactPosition {
    /// The position after `turns` under `rules`, solved with its turns' values in at most
    /// `nodes` nodes; `Ok(None)` if that is not enough (or `stop` was set). An illegal turn
    /// is [`SolveError::Illegal`].
    pub fn solve(
        rules: &Rules,
        turns: &[Turn],
        nodes: u64,
        stop: Stop,
    ) -> Result<Option<ExactPosition>, SolveError> {
        let mut g = GameState::new(*rules);
        let mut actions: Vec<Action> = Vec::new();
        for &t in turns {
            let played = t.play(&mut g).map_err(SolveError::Illegal)?;
            actions.extend(played);
        }
        let options =
            SolveOptions { table_bits: 20, node_limit: nodes, stop, values: true, ..SolveOptions::default() };
        match solve_after(rules, &actions, &options, &mut |_| ()) {
            Ok(s) => Ok(Some(ExactPosition {
                rules: *rules,
                turns: turns.iter().map(|t| t.name(g.geo())).collect(),
                value: s.value,
                values: s.values,
            })),
            Err(SolveError::Unfinished(_)) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// The position as a game state; `index` names it in the error if its turns do not
    /// replay under its rules.
    fn state(&self, index: usize) -> Result<GameState, JudgeError> {
        let mut g = GameState::new(self.rules);
        for name in &self.turns {
            Turn::play_named(&mut g, name).map_err(|error| JudgeError::Replay {
                position: index,
                turn: name.clone(),
                error,
            })?;
        }
        Ok(g)
    }

    /// What playing `t` here keeps; `None` for a turn that is not among its legal turns.
    pub fn keeps(&self, t: Turn) -> Option<Kept> {
        let geo = hane_engine::Geometry::new(self.rules.size);
        let name = t.name(geo);
        let after = self.values.iter().find(|v| v.turns.contains(&name))?.value;
        let keeps_result = |v: i32| outcome_at(v, self.rules.komi) == outcome_at(self.value, self.rules.komi);
        // Values are 4 × Black's margin + tie, the best for the mover the position's own; a
        // game's turns alternate sides (a Sligo turn is a slide and a placement of one side).
        let black_to_move = self.turns.len() % 2 == 0;
        Some(Kept {
            value: after == self.value,
            result: keeps_result(after),
            result_at_stake: self.values.iter().any(|v| !keeps_result(v.value)),
            points_lost: f64::from((self.value - after).abs()) / 4.0,
            black_to_move,
        })
    }

    /// Whether some turn loses the exact value: a position where every turn keeps it tells
    /// nothing about a player.
    pub fn is_a_test(&self) -> bool {
        self.values.iter().any(|v| v.value != self.value)
    }
}

/// Why a list of positions could not be judged; each names the position by its index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum JudgeError {
    /// A turn of the position does not replay under its rules.
    Replay {
        /// The position's index.
        position: usize,
        /// The turn.
        turn: String,
        /// Why.
        error: TurnError,
    },
    /// A player's turn is not among the position's listed turns (a list made for other
    /// rules).
    Unlisted {
        /// The position's index.
        position: usize,
        /// The turn.
        turn: String,
    },
    /// The search chose an illegal action.
    Search {
        /// The position's index.
        position: usize,
        /// Why the action was refused.
        error: PlayError,
    },
}

impl fmt::Display for JudgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JudgeError::Replay { position, turn, error } => {
                write!(f, "position {position}: its turn {turn} does not replay: {error}")
            }
            JudgeError::Unlisted { position, turn } => {
                write!(f, "position {position}: {turn} is not among its listed turns")
            }
            JudgeError::Search { position, error } => {
                write!(f, "position {position}: the search failed: {error}")
            }
        }
    }
}

impl std::error::Error for JudgeError {}

/// The shares of a player's turns that keep the exact value and the result.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Accuracy {
    /// Positions judged.
    pub positions: usize,
    /// Share of them whose turn kept the exact value.
    pub value: f64,
    /// Positions where some turn loses the result at the komi.
    pub result_at_stake: usize,
    /// Share of those whose turn kept the result.
    pub result: f64,
    /// The points its turns gave away against the exact value, on average per position (0 in
    /// a file written before it was measured).
    #[serde(default)]
    pub points_lost: f64,
    /// The same, over the positions with Black to move.
    #[serde(default)]
    pub black_points_lost: f64,
    /// The same, over the positions with White to move.
    #[serde(default)]
    pub white_points_lost: f64,
}

impl Accuracy {
    /// The shares of `kept`.
    fn of(kept: &[Kept]) -> Accuracy {
        let share = |of: &mut dyn Iterator<Item = bool>| {
            let (n, yes) = of.fold((0, 0), |(n, yes), k| (n + 1, yes + usize::from(k)));
            (n, yes as f64 / n.max(1) as f64)
        };
        let (positions, value) = share(&mut kept.iter().map(|k| k.value));
        let (result_at_stake, result) =
            share(&mut kept.iter().filter(|k| k.result_at_stake).map(|k| k.result));
        let mean_lost = |of: &mut dyn Iterator<Item = &Kept>| {
            let (n, sum) = of.fold((0usize, 0.0), |(n, sum), k| (n + 1, sum + k.points_lost));
            sum / n.max(1) as f64
        };
        Accuracy {
            positions,
            value,
            result_at_stake,
            result,
            points_lost: mean_lost(&mut kept.iter()),
            black_points_lost: mean_lost(&mut kept.iter().filter(|k| k.black_to_move)),
            white_points_lost: mean_lost(&mut kept.iter().filter(|k| !k.black_to_move)),
        }
    }
}

/// The raw policy's turn: its most likely action, and so on while the same side is to move
/// (a Sligo turn is two actions).
fn policy_turn<E: Evaluator<GameState>>(ev: &mut E, g: &GameState) -> Turn {
    let mut next = g.clone();
    let mut actions = Vec::new();
    while !next.is_over() && (actions.is_empty() || next.to_move() == g.to_move()) {
        let mut legal = Vec::new();
        next.legal_actions(&mut legal);
        let policy =
            ev.evaluate(&[EvalRequest { state: next.clone(), legal: legal.clone() }]).remove(0).policy;
        let best = (0..legal.len())
            .max_by(|&i, &j| policy[i].partial_cmp(&policy[j]).unwrap_or(std::cmp::Ordering::Equal))
            .expect("a position that is not over has a legal action");
        actions.push(legal[best]);
        next.play_unchecked(legal[best]);
    }
    Turn::of_actions(g, &actions).expect("the policy's actions make a turn")
}

/// Judges the evaluator `ev` on `positions`: the accuracy of its raw policy's first choice,
/// and of a search of `visits` visits with it (seeded by `seed`, no noise, the most visited
/// turn).
pub fn judge<E: Evaluator<GameState>>(
    ev: &mut E,
    positions: &[ExactPosition],
    visits: u32,
    seed: u64,
) -> Result<(Accuracy, Accuracy), JudgeError> {
    let (mut raw, mut searched) = (Vec::new(), Vec::new());
    for (i, p) in positions.iter().enumerate() {
        let g = p.state(i)?;
        let kept = |t: Turn| p.keeps(t).ok_or(JudgeError::Unlisted { position: i, turn: t.name(g.geo()) });
        raw.push(kept(policy_turn(ev, &g))?);
        let (actions, _) = search_turn(ev, &g, visits, seed ^ i as u64, false)
            .map_err(|error| JudgeError::Search { position: i, error })?;
        let t = Turn::of_actions(&g, &actions).expect("a search's actions make a turn");
        searched.push(kept(t)?);
    }
    Ok((Accuracy::of(&raw), Accuracy::of(&searched)))
}
