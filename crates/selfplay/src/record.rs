//! Turning a finished game into training rows and an SGF record.

use hane_data::features::encode;
use hane_data::shard::Row;
use hane_engine::rules::Variant;
use hane_engine::score::{dead_stones, owners};
use hane_engine::sgf::SgfGame;
use hane_engine::{Action, Color, Game, GameState, Outcome, Point};

/// A position recorded during the game, waiting for the game's result.
pub struct PendingRow {
    /// Feature planes.
    pub planes: Vec<u8>,
    /// Global features.
    pub globals: Vec<f32>,
    /// Policy target over the whole action space.
    pub policy: Vec<f32>,
    /// The side to move at that position.
    pub to_move: Color,
}

/// Records the current root of a full search: its features and the search's policy target.
pub fn pending_row(g: &GameState, target: &[(Action, f32)]) -> PendingRow {
    let (planes, globals) = encode(g);
    let mut policy = vec![0.0f32; g.action_space()];
    for &(a, p) in target {
        policy[g.action_index(a)] = p;
    }
    let sum: f32 = policy.iter().sum();
    if sum > 0.0 {
        policy.iter_mut().for_each(|p| *p /= sum);
    }
    PendingRow { planes, globals, policy, to_move: g.to_move() }
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
pub fn rows(g: &GameState, pending: Vec<PendingRow>, end: Ending) -> Vec<Row> {
    let own = final_ownership(g);
    pending
        .into_iter()
        .map(|p| {
            let c = p.to_move;
            let value = match end.winner {
                Outcome::Draw => [0.0, 1.0, 0.0],
                w if w.value_for(c) > 0.0 => [1.0, 0.0, 0.0],
                _ => [0.0, 0.0, 1.0],
            };
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

/// The SGF of a game given its actions (handicap none), with the result written as SGF `RE`.
pub fn sgf(rules: hane_engine::Rules, actions: &[Action], end: Ending) -> Result<String, String> {
    let handicap: [Point; 0] = [];
    let mut game = SgfGame::from_actions(rules, &handicap, actions).map_err(|e| e.to_string())?;
    game.result = Some(match (end.resigned, end.winner) {
        (Some(Color::Black), _) => "W+R".into(),
        (Some(Color::White), _) => "B+R".into(),
        (None, Outcome::Draw) => "0".into(),
        (None, Outcome::Black) => format!("B+{}", end.margin_black.abs()),
        (None, Outcome::White) => format!("W+{}", end.margin_black.abs()),
    });
    game.to_sgf().map_err(|e| e.to_string())
}
