//! Turning a finished game into training rows and an SGF record.

use hane_data::features::encode;
use hane_data::shard::Row;
use hane_engine::rules::Variant;
use hane_engine::score::{dead_stones, owners};
use hane_engine::sgf::{SgfError, SgfGame};
use hane_engine::{Action, Color, Game, GameState, Outcome, Point};

/// A position recorded during the game, waiting for the game's result.
#[derive(Debug)]
pub struct PendingRow {
    /// Feature planes.
    pub planes: Vec<u8>,
    /// Global features.
    pub globals: Vec<f32>,
    /// Policy target over the whole action space.
    pub policy: Vec<f32>,
    /// The side to move at that position.
    pub to_move: Color,
    /// The search's win/draw/loss for the side to move, read at its most visited move.
    pub search_wdl: [f32; 3],
}

/// Records the current root of a full search: its features, the search's policy target and
/// its win/draw/loss for the side to move.
pub fn pending_row(g: &GameState, target: &[(Action, f32)], search_wdl: [f32; 3]) -> PendingRow {
    let (planes, globals) = encode(g);
    let mut policy = vec![0.0f32; g.action_space()];
    for &(a, p) in target {
        policy[g.action_index(a)] = p;
    }
    let sum: f32 = policy.iter().sum();
    if sum > 0.0 {
        policy.iter_mut().for_each(|p| *p /= sum);
    }
    PendingRow { planes, globals, policy, to_move: g.to_move(), search_wdl }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ending {
    /// The winner.
    pub winner: Outcome,
    /// Final score margin, Black minus White (komi included). For a resigned game, the
    /// search's estimate at the resignation.
    pub margin_black: f32,
    /// The player who resigned, if any.
    pub resigned: Option<Color>,
}

impl Ending {
    /// The ending of a game played to its end.
    pub fn scored(g: &GameState) -> Ending {
        let s = g.score();
        Ending { winner: s.winner, margin_black: s.margin_black() as f32, resigned: None }
    }
}

/// Final owner of each point (dense order) under the rules: stones only for Loose, area with
/// the rules' dead stones otherwise. For a resigned game this is the position at resignation.
pub fn final_ownership(g: &GameState) -> Vec<Option<Color>> {
    let b = g.turn_start_board();
    if g.rules().variant == Variant::Loose {
        return g.geo().points().map(|p| b.color(p)).collect();
    }
    owners(&b, &dead_stones(g, &b))
}

/// Completes the pending rows with the game's result, each from its own side to move's view.
/// The value target is the result, mixed with weight `search_mix` with the search's own
/// win/draw/loss at the position: the result of one game also carries every later
/// exploratory move of both sides, while the search judges the position as the players
/// would play it (in the spirit of KataGo's targets from later searches, `docs/references.md`).
pub fn rows(g: &GameState, pending: Vec<PendingRow>, end: Ending, search_mix: f32) -> Vec<Row> {
    let own = final_ownership(g);
    pending
        .into_iter()
        .map(|p| {
            let c = p.to_move;
            let result = match end.winner {
                Outcome::Draw => [0.0, 1.0, 0.0],
                w if w.value_for(c) > 0.0 => [1.0, 0.0, 0.0],
                _ => [0.0, 0.0, 1.0],
            };
            let value = blend(result, p.search_wdl, search_mix);
            let score = if c == Color::Black { end.margin_black } else { -end.margin_black };
            let ownership = own
                .iter()
                .map(|o| match o {
                    Some(x) if *x == c => 1,
                    Some(_) => -1,
                    None => 0,
                })
                .collect();
            Row { planes: p.planes, globals: p.globals, policy: p.policy, value, score, ownership }
        })
        .collect()
}

/// `(1 - w) * result + w * search`, renormalised so that it sums to 1 exactly as far as
/// floats allow (the search's numbers may be off by rounding).
fn blend(result: [f32; 3], search: [f32; 3], w: f32) -> [f32; 3] {
    if w <= 0.0 {
        return result;
    }
    let clean = search.map(|x| if x.is_finite() { x.max(0.0) } else { 0.0 });
    let total: f32 = clean.iter().sum();
    if total <= 0.0 {
        return result;
    }
    let mixed: [f32; 3] = std::array::from_fn(|i| (1.0 - w) * result[i] + w * clean[i] / total);
    let sum: f32 = mixed.iter().sum();
    mixed.map(|x| x / sum)
}

/// The SGF of a game given its actions (handicap none), with the result written as SGF `RE`.
pub fn sgf(rules: hane_engine::Rules, actions: &[Action], end: Ending) -> Result<String, SgfError> {
    let handicap: [Point; 0] = [];
    let mut game = SgfGame::from_actions(rules, &handicap, actions)?;
    game.result = Some(match (end.resigned, end.winner) {
        (Some(Color::Black), _) => "W+R".into(),
        (Some(Color::White), _) => "B+R".into(),
        (None, Outcome::Draw) => "0".into(),
        (None, Outcome::Black) => format!("B+{}", end.margin_black.abs()),
        (None, Outcome::White) => format!("W+{}", end.margin_black.abs()),
    });
    game.to_sgf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_target_mixes_the_result_with_the_search() {
        let win = [1.0, 0.0, 0.0];
        assert_eq!(blend(win, [0.2, 0.0, 0.8], 0.0), win);
        let m = blend(win, [0.2, 0.0, 0.8], 0.5);
        assert!((m[0] - 0.6).abs() < 1e-6 && m[1] == 0.0 && (m[2] - 0.4).abs() < 1e-6, "{m:?}");
        assert!((m.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        // A search that says nothing usable leaves the result.
        assert_eq!(blend(win, [f32::NAN, 0.0, 0.0], 0.5), win);
        // The search's numbers are normalised first.
        let m = blend([0.0, 0.0, 1.0], [2.0, 0.0, 2.0], 0.5);
        assert!((m[0] - 0.25).abs() < 1e-6 && (m[2] - 0.75).abs() < 1e-6, "{m:?}");
    }
}
