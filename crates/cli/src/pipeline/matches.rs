//! The loop's matches (gates and anchor matches), saved game by game to a JSON file under a
//! temporary name and renamed, so that a rerun resumes after the last finished game.

use crate::Failure;
use hane_data::shard::write_atomic;
use hane_engine::Rules;
use hane_eval::arena::{play_match_game, tally, MatchSettings};
use hane_eval::elo::Wdl;
use hane_eval::referee::{GameResult, Player};
use std::path::Path;

/// Plays the match of `a` against `b` from the games already in `file`, while `more` says so
/// for `a`'s results so far, saving every game; returns `a`'s results. `on_game` hears the
/// number of games and the results after each new one.
pub fn play_resumable(
    rules: &Rules,
    a: &mut dyn Player,
    b: &mut dyn Player,
    settings: &MatchSettings,
    file: &Path,
    more: &mut dyn FnMut(Wdl) -> bool,
    on_game: &mut dyn FnMut(u32, &Wdl),
) -> Result<Wdl, Failure> {
    let mut games: Vec<GameResult> = match std::fs::read_to_string(file) {
        Ok(t) => serde_json::from_str(&t)
            .map_err(|e| Failure::input(format!("{} is damaged: {e}", file.display())))?,
        Err(_) => Vec::new(),
    };
    let mut w = Wdl::default();
    for (i, r) in games.iter().enumerate() {
        tally(&mut w, i as u32, r);
    }
    while more(w) {
        let i = games.len() as u32;
        let r = play_match_game(rules, a, b, settings, i)
            .map_err(|e| Failure { code: 1, message: e.to_string() })?;
        tally(&mut w, i, &r);
        games.push(r);
        let text = serde_json::to_string_pretty(&games).map_err(anyhow::Error::from)?;
        write_atomic(file, text.as_bytes())
            .map_err(|e| Failure { code: 1, message: format!("{}: {e}", file.display()) })?;
        on_game(i + 1, &w);
    }
    Ok(w)
}
