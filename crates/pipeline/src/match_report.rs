//! `hane match`'s report file (`--json`): the report, the arguments that made it, and whether
//! the match was finished. A match that stops early (a stop request, an engine that fails)
//! writes the games it finished, marked `"partial": true`; a rerun with the same arguments
//! and the same file reads them back and plays only the games still missing. A file of other
//! arguments is refused rather than mixed in: its games were another match's.

use crate::{read_report, write_json, Error};
use hane_eval::arena::MatchReport;
use hane_eval::referee::GameResult;
use hane_mcts::Precision;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The arguments that decide a match's games: a rerun resumes only a file of the same.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchArgs {
    /// The rules, as they print.
    pub rules: String,
    /// The first player's spec (`model:PATH`, `rollout`, `gtp:COMMAND`...).
    pub a: String,
    /// The second player's spec.
    pub b: String,
    /// Games in the match.
    pub games: u32,
    /// Search visits per decision of hane's players.
    pub visits: u32,
    /// Random opening turns.
    pub opening_turns: u32,
    /// Seed of openings and searches.
    pub seed: u64,
    /// What the first player's net computes in (files from before this field: FP32).
    #[serde(default)]
    pub a_precision: Precision,
    /// What the second player's net computes in.
    #[serde(default)]
    pub b_precision: Precision,
}

impl std::fmt::Display for MatchArgs {
    /// In words: `ttakji,size=5, rollout (fp32) against uniform (fp32), 10 games, 100 visits,
    /// 2 opening turns, seed 1`.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let MatchArgs { rules, a, b, games, visits, opening_turns, seed, a_precision, b_precision } = self;
        write!(
            f,
            "{rules}, {a} ({a_precision}) against {b} ({b_precision}), {games} games, {visits} visits, \
             {opening_turns} opening turns, seed {seed}"
        )
    }
}

/// The file as written.
#[derive(Serialize)]
struct Saved<'a> {
    args: &'a MatchArgs,
    /// Whether games are missing (the match stopped early).
    partial: bool,
    #[serde(flatten)]
    report: &'a MatchReport,
}

/// What a rerun reads back.
#[derive(Deserialize)]
struct Resumed {
    args: MatchArgs,
    games: Vec<GameResult>,
}

/// The games already played of the match of `args`, from `file` (none when it does not
/// exist, or is not a regular file: a device or FIFO such as `/dev/stdout` is only written
/// through, never read back); a file of another match, or damaged, is refused as bad input.
pub fn resume(file: &Path, args: &MatchArgs) -> Result<Vec<GameResult>, Error> {
    match std::fs::metadata(file) {
        Ok(m) if !m.is_file() => return Ok(Vec::new()),
        _ => {}
    }
    let Some(text) = read_report(file)? else { return Ok(Vec::new()) };
    let shown = file.display();
    let saved: Resumed = serde_json::from_str(&text).map_err(|e| {
        Error::Input(format!("{shown}: not a match report to resume ({e}); remove it or give another --json"))
    })?;
    if saved.args != *args {
        return Err(Error::Input(format!(
            "{shown} holds another match ({}); rerun with its arguments to resume it, or give another --json",
            saved.args
        )));
    }
    if saved.games.len() > args.games as usize {
        return Err(Error::Input(format!(
            "{shown}: {} games, more than the match's {}",
            saved.games.len(),
            args.games
        )));
    }
    Ok(saved.games)
}

/// Writes `report` of the match of `args` to `file` (whole or not at all), `partial` when
/// games are missing.
pub fn save(file: &Path, args: &MatchArgs, report: &MatchReport, partial: bool) -> Result<(), Error> {
    write_json(file, &Saved { args, partial, report })
}

#[cfg(test)]
mod tests {
    use super::*;
    use hane_engine::Rules;

    fn game(winner: &str) -> GameResult {
        GameResult {
            black: "x".into(),
            white: "y".into(),
            winner: winner.into(),
            margin_black: 1.0,
            turns: 3,
            forfeit: None,
            moves: vec!["a1".into()],
        }
    }

    #[test]
    fn a_partial_report_resumes_only_the_same_match() {
        let dir = std::env::temp_dir().join(format!("hane-match-report-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("m.json");
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let args = MatchArgs {
            rules: rules.to_string(),
            a: "rollout".into(),
            b: "uniform".into(),
            games: 4,
            visits: 8,
            opening_turns: 2,
            seed: 1,
            a_precision: Precision::Fp32,
            b_precision: Precision::Fp32,
        };
        assert!(resume(&file, &args).unwrap().is_empty());
        let report = MatchReport::of(&rules, "r".into(), "u".into(), vec![game("b"), game("b")]);
        save(&file, &args, &report, true).unwrap();
        let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!((json["partial"].as_bool(), json["a_results"]["wins"].as_u64()), (Some(true), Some(1)));
        assert_eq!(resume(&file, &args).unwrap(), report.games);
        let other = MatchArgs { seed: 2, ..args.clone() };
        let e = resume(&file, &other).unwrap_err().to_string();
        assert!(e.contains("m.json holds another match") && e.contains("seed 1"), "{e}");
        // Another precision plays other games.
        let bf16 = MatchArgs { b_precision: Precision::Bf16, ..args.clone() };
        let e = resume(&file, &bf16).unwrap_err().to_string();
        assert!(e.contains("uniform (fp32)"), "{e}");
        std::fs::write(&file, "{}").unwrap();
        let e = resume(&file, &args).unwrap_err().to_string();
        assert!(e.contains("not a match report to resume"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
