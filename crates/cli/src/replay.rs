//! `hane replay`: play a move list (or an SGF file) and print the resulting position as JSON.

use crate::output::outln;
use crate::rules_args::RulesArgs;
use crate::Failure;
use hane_engine::sgf::SgfGame;
use hane_engine::{Game, GameState, Turn};
use hane_host::read;
use std::path::{Path, PathBuf};

/// Arguments of `hane replay`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    rules: RulesArgs,
    /// Replay this SGF file instead of a move list (its RU, SZ and KM set the rules;
    /// --rules, --size and --komi are then not allowed).
    #[arg(long, conflicts_with_all = ["size", "komi", "moves"])]
    sgf: Option<PathBuf>,
    /// Moves alternating from Black: `D4`, `pass`, or for Sligo `E5>F6+D4`.
    moves: Vec<String>,
}

/// Runs `hane replay`.
pub fn run(a: Args) -> Result<(), Failure> {
    let g = match &a.sgf {
        Some(path) => from_sgf(path)?,
        None => from_moves(&a)?,
    };
    outln!("{}", serde_json::to_string(&position_json(&g)).map_err(anyhow::Error::from)?);
    Ok(())
}

fn from_sgf(path: &Path) -> Result<GameState, Failure> {
    let text = read::read_text(path, read::SGF).map_err(|e| Failure::input(format!("cannot read {e}")))?;
    let game = SgfGame::parse(&text).map_err(|e| Failure::input(format!("{}: {e}", path.display())))?;
    game.replay().map_err(|e| Failure::input(format!("{}: {e}", path.display())))
}

fn from_moves(a: &Args) -> Result<GameState, Failure> {
    let mut g = GameState::new(a.rules.rules()?);
    for (i, m) in a.moves.iter().enumerate() {
        Turn::play_named(&mut g, m).map_err(|e| Failure::input(format!("move {} ({m}): {e}", i + 1)))?;
    }
    Ok(g)
}

/// The JSON object `hane replay` prints for a position.
pub fn position_json(g: &GameState) -> serde_json::Value {
    let s = g.score();
    serde_json::json!({
        "board": g.board().rows(),
        "to_move": g.to_move().letter().to_string(),
        "legal": Turn::legal(g).iter().map(|t| t.name(g.geo())).collect::<Vec<_>>(),
        "over": g.is_over(),
        "score": {
            "black": s.black,
            "white": s.white,
            "winner": s.winner.letter(),
        },
    })
}
