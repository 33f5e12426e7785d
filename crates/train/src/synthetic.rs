//! Shards of random games, for the training benchmark when no self-play data is given and
//! for tests. The positions are real (random light playouts of the rule set, encoded by the
//! real encoder); the targets are the move actually played (as a one-hot policy), the game's
//! result and margin, and the final area ownership, each from the side to move's view. A net
//! can fit them, which is all a benchmark or an overfitting test needs.

use hane_data::features::encode;
use hane_data::shard::{self, Row, ShardError};
use hane_engine::playout::random_light_action;
use hane_engine::rng::Rng;
use hane_engine::score::{dead_stones, owners};
use hane_engine::{Color, Game, GameState, Outcome, Rules};
use std::path::{Path, PathBuf};

/// The rows of one random game (at most `max_rows`, from its first positions).
pub fn game_rows(rules: &Rules, rng: &mut Rng, max_rows: usize) -> Vec<Row> {
    let mut g = GameState::new(*rules);
    let mut pending = Vec::new();
    while !g.is_over() {
        let a = random_light_action(&g, rng);
        if pending.len() < max_rows {
            let (planes, globals) = encode(&g);
            let mut policy = vec![0.0; g.action_space()];
            policy[g.action_index(a)] = 1.0;
            pending.push((g.to_move(), planes, globals, policy));
        }
        g.play(a).expect("playouts choose legal actions");
    }
    let score = g.score();
    let b = g.turn_start_board();
    let own = owners(&b, &dead_stones(&g, &b));
    pending
        .into_iter()
        .map(|(me, planes, globals, policy)| {
            let value = match score.winner {
                Outcome::Draw => [0.0, 1.0, 0.0],
                w if w.value_for(me) > 0.0 => [1.0, 0.0, 0.0],
                _ => [0.0, 0.0, 1.0],
            };
            let margin = score.margin_black() as f32;
            Row {
                planes,
                globals,
                policy,
                value,
                score: if me == Color::Black { margin } else { -margin },
                ownership: own.iter().map(|o| o.map_or(0, |c| if c == me { 1 } else { -1 })).collect(),
            }
        })
        .collect()
}

/// Writes `games` shards of one random game each (`g00000000.npz`, ...) into `dir`, keeping
/// at most `rows_per_game` rows of each; returns their paths.
pub fn write_shards(
    dir: &Path,
    rules: &Rules,
    games: usize,
    rows_per_game: usize,
    seed: u64,
) -> Result<Vec<PathBuf>, ShardError> {
    std::fs::create_dir_all(dir).map_err(|e| ShardError::Io(dir.to_path_buf(), e))?;
    let mut rng = Rng::new(seed);
    (0..games)
        .map(|i| {
            let rows = game_rows(rules, &mut rng, rows_per_game);
            let path = dir.join(format!("g{i:08}.npz"));
            let bytes = shard::encode(&rows, &rules.to_string(), usize::from(rules.size), 1, "random");
            shard::write_atomic(&path, &bytes)?;
            Ok(path)
        })
        .collect()
}
