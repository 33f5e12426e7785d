//! `hane judge`: the exact solver as the judge of a run's nets ([`hane_eval::judge`]), a
//! measure of strength that no anchor's ceiling limits, for boards the solver can finish
//! positions of (5x5 from about the middle game on).
//!
//! In the run's folder:
//!
//! - `judge/positions.json`: positions sampled from the run's self-play records
//!   (`selfplay/gen-*/sgf/*.sgf`, every generation pooled), each solved with the value after
//!   every legal turn; a position the solver does not finish within the node budget is
//!   skipped, and so is one where every turn keeps the value (it tests nobody). Samples are drawn one by one from the run's seed, so the same records give the
//!   same positions; the file is rewritten (atomically) after each position, and a rerun,
//!   after an interrupt or once there are more generations, keeps the positions it has and
//!   goes on sampling where it stopped.
//! - `judge/scores.json`: per generation's net (`models/gen-NNN.safetensors`), the share of
//!   the positions where its raw policy's first choice, and its search's turn, keep the exact
//!   value and the result at the game's komi. A generation is scored once for a given set of
//!   positions; a rerun scores only what is new.
//! - `judge.png`: those shares per generation, beside the run's `elo.png`, and
//!   `judge-points.png`: the points the turns give away per position, by side to move.

use crate::players::net;
use crate::{read_report, write_file, write_json, Error, Interrupt, Stop};
use hane_engine::rng::{mix64, Rng};
use hane_engine::sgf::SgfGame;
use hane_engine::Rules;
use hane_eval::judge::{judge, Accuracy, ExactPosition};
use hane_host::read;
use hane_plot::{Chart, Series};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// How positions are drawn and nets are judged.
#[derive(Clone, Debug)]
pub struct JudgeSettings {
    /// Positions wanted.
    pub positions: usize,
    /// A position is at least this many turns into its game (default: three fifths of the
    /// board's points, where the solver settles most 5x5 positions in seconds).
    pub min_turn: Option<usize>,
    /// Node budget of the solve of one position and its turns.
    pub nodes: u64,
    /// Visits of the searched turn.
    pub visits: u32,
    /// Seed of the sampling and the searches.
    pub seed: u64,
}

impl JudgeSettings {
    /// The default node budget of one position's solve.
    pub const NODES: u64 = 4_000_000;
    /// The default visits of the searched turn.
    pub const VISITS: u32 = 64;

    /// `positions` positions drawn with `seed`, at the default turn, budget and visits.
    pub fn with_defaults(positions: usize, seed: u64) -> JudgeSettings {
        JudgeSettings { positions, min_turn: None, nodes: Self::NODES, visits: Self::VISITS, seed }
    }
}

/// The positions and how many samples they took (solved or not).
#[derive(Debug, Default, Serialize, Deserialize)]
struct Sampled {
    /// Samples drawn so far; the next one is number `tried`.
    tried: u64,
    /// The earliest turn, the node budget and the seed they were drawn with.
    min_turn: usize,
    nodes: u64,
    seed: u64,
    positions: Vec<ExactPosition>,
}

/// One generation's net judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GenerationScore {
    /// The generation.
    pub generation: u32,
    /// Its raw policy's first choice.
    pub raw: Accuracy,
    /// Its search's turn.
    pub searched: Accuracy,
}

/// What the judge reports while it works.
#[derive(Clone, Debug)]
pub enum JudgeEvent {
    /// A sample was drawn: `solved` of `wanted` positions after `tried` samples.
    Sampled {
        /// Positions so far.
        solved: usize,
        /// Samples so far.
        tried: u64,
        /// Positions wanted.
        wanted: usize,
    },
    /// A generation's net was judged.
    Scored(GenerationScore),
}

impl JudgeEvent {
    /// Whether the event is worth a line of progress: every tenth sample, the last one, and
    /// every generation judged.
    pub fn worth_a_line(&self) -> bool {
        match self {
            JudgeEvent::Sampled { solved, tried, wanted } => tried % 10 == 0 || solved == wanted,
            JudgeEvent::Scored(_) => true,
        }
    }
}

impl std::fmt::Display for JudgeEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JudgeEvent::Sampled { solved, tried, wanted } => {
                write!(f, "positions: {solved} of {wanted} solved from {tried} samples")
            }
            JudgeEvent::Scored(g) => write!(
                f,
                "generation {}: raw policy keeps the value {:.3}, the result {:.3}, loses {:.3} \
                 points (Black {:.3}, White {:.3}); search keeps the value {:.3}, the result \
                 {:.3}, loses {:.3} points (Black {:.3}, White {:.3}) (result at stake in {} of {})",
                g.generation,
                g.raw.value,
                g.raw.result,
                g.raw.points_lost,
                g.raw.black_points_lost,
                g.raw.white_points_lost,
                g.searched.value,
                g.searched.result,
                g.searched.points_lost,
                g.searched.black_points_lost,
                g.searched.white_points_lost,
                g.raw.result_at_stake,
                g.raw.positions
            ),
        }
    }
}

/// Reads a JSON file of the judge's, or the default if there is none.
fn read_or_default<T: Default + for<'de> Deserialize<'de>>(path: &Path) -> Result<T, Error> {
    // Bytes that are not UTF-8 are damage like any other: bad input, not an I/O error.
    match read_report(path)? {
        Some(text) => serde_json::from_str(&text)
            .map_err(|e| Error::Input(format!("{}: not a file of hane judge's: {e}", path.display()))),
        None => Ok(T::default()),
    }
}

/// The files of `dir` whose names start with `prefix` and end with `suffix`, sorted.
fn files(dir: &Path, prefix: &str, suffix: &str) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(Error::io(dir, e)),
    };
    for entry in entries {
        let path = entry.map_err(|e| Error::io(dir, e))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with(prefix) && name.ends_with(suffix) {
            out.push(path);
        }
    }
    out.sort();
    Ok(out)
}

/// Every self-play record of the run in `dir` on its own board, generation by generation
/// (`selfplay/gen-NNN/sgf`; a run on several sizes keeps the others' in `gen-NNN-SxS`).
fn records(dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut out = Vec::new();
    for generation in files(&dir.join("selfplay"), "gen-", "")? {
        let name = generation.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name["gen-".len()..].bytes().all(|b| b.is_ascii_digit()) {
            out.extend(files(&generation.join("sgf"), "", ".sgf")?);
        }
    }
    Ok(out)
}

/// The record at `path`.
fn read_record(path: &Path) -> Result<SgfGame, Error> {
    let text = read::read_text(path, read::RECORD)?;
    SgfGame::parse(&text).map_err(|e| Error::Input(format!("{}: {e}", path.display())))
}

/// Sample number `k`: a record and a turn of it at least `min_turn` turns in where the game
/// is not over; `None` if the record drawn has no such turn.
fn sample(
    records: &[PathBuf],
    k: u64,
    seed: u64,
    min_turn: usize,
) -> Result<Option<(SgfGame, usize)>, Error> {
    let mut rng = Rng::new(mix64(seed ^ mix64(k)));
    let game = read_record(&records[rng.below(records.len())])?;
    // Turn t of a game of n turns leaves the position before its last turn at most.
    let n = game.turns.len();
    if n <= min_turn || !game.handicap.is_empty() {
        return Ok(None);
    }
    let at = min_turn + rng.below(n - min_turn);
    Ok(Some((game, at)))
}

/// Draws and solves positions until there are `s.positions` (see the module docs).
fn sample_positions(
    dir: &Path,
    s: &JudgeSettings,
    stop: &Stop,
    progress: &mut dyn FnMut(JudgeEvent),
) -> Result<Vec<ExactPosition>, Error> {
    let records = records(dir)?;
    let Some(first) = records.first() else {
        return Err(Error::Input(format!(
            "{}: no self-play records under selfplay/gen-*/sgf",
            dir.display()
        )));
    };
    let min_turn = match s.min_turn {
        Some(t) => t,
        None => usize::from(read_record(first)?.rules.size).pow(2) * 3 / 5,
    };
    let path = dir.join("judge").join("positions.json");
    let mut sampled: Sampled = read_or_default(&path)?;
    if sampled.tried == 0 {
        (sampled.min_turn, sampled.nodes, sampled.seed) = (min_turn, s.nodes, s.seed);
    } else if (sampled.min_turn, sampled.nodes, sampled.seed) != (min_turn, s.nodes, s.seed) {
        return Err(Error::Input(format!(
            "{} holds positions drawn with --min-turn {} --nodes {} --seed {}; pass those, or delete it",
            path.display(),
            sampled.min_turn,
            sampled.nodes,
            sampled.seed
        )));
    }
    if sampled.positions.len() >= s.positions {
        sampled.positions.truncate(s.positions);
        return Ok(sampled.positions);
    }
    // Give up on a run whose records give (almost) no position the budget settles.
    let limit = sampled.tried + 50 * s.positions as u64;
    while sampled.positions.len() < s.positions && sampled.tried < limit {
        stop.check()?;
        let drawn = sample(&records, sampled.tried, s.seed, min_turn)?;
        if let Some((game, at)) = drawn {
            let turns = &game.turns[..at];
            let position = ExactPosition::solve(&game.rules, turns, s.nodes, stop.clone())
                .map_err(|e| Error::Input(format!("a self-play record does not replay: {e}")))?;
            // A solve cut short by a stop is not a sample that failed.
            stop.check()?;
            let new =
                |p: &ExactPosition| p.is_a_test() && !sampled.positions.iter().any(|q| q.turns == p.turns);
            if let Some(p) = position.filter(new) {
                sampled.positions.push(p);
            }
        }
        sampled.tried += 1;
        write_json(&path, &sampled)?;
        progress(JudgeEvent::Sampled {
            solved: sampled.positions.len(),
            tried: sampled.tried,
            wanted: s.positions,
        });
    }
    Ok(sampled.positions)
}

/// The generation of a checkpoint named `gen-NNN.safetensors`.
fn generation_of(path: &Path) -> Option<u32> {
    path.file_name()?.to_str()?.strip_prefix("gen-")?.strip_suffix(".safetensors")?.parse().ok()
}

/// The format of `scores.json`: 1 added the points lost; an older file's nets are scored again.
const SCORES_FORMAT: u32 = 1;

/// The scores so far, and what they were judged on.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Scores {
    /// What the scores hold ([`SCORES_FORMAT`]; 0: a file from before the points lost).
    #[serde(default)]
    format: u32,
    /// The number of positions and a hash of them.
    positions: usize,
    positions_hash: u64,
    visits: u32,
    generations: Vec<GenerationScore>,
}

/// A hash of a list of positions (of their JSON text).
fn hash_of(positions: &[ExactPosition]) -> u64 {
    let text = serde_json::to_string(positions).unwrap_or_default();
    text.bytes().fold(0x9E37_79B9_7F4A_7C15, |h, b| mix64(h ^ u64::from(b)))
}

/// Judges every generation's net of the run in `dir` (see the module docs) and returns the
/// scores, oldest first.
pub fn judge_run(
    dir: &Path,
    s: &JudgeSettings,
    stop: &Stop,
    progress: &mut dyn FnMut(JudgeEvent),
) -> Result<Vec<GenerationScore>, Error> {
    let folder = dir.join("judge");
    std::fs::create_dir_all(&folder).map_err(|e| Error::io(&folder, e))?;
    let positions = sample_positions(dir, s, stop, progress)?;
    if positions.is_empty() {
        return Err(Error::Input(format!(
            "{}: no position within {} nodes; try a later --min-turn or more --nodes",
            dir.display(),
            s.nodes
        )));
    }
    let path = dir.join("judge").join("scores.json");
    let mut scores: Scores = read_or_default(&path)?;
    let hash = hash_of(&positions);
    let judged_on = (SCORES_FORMAT, positions.len(), hash, s.visits);
    if (scores.format, scores.positions, scores.positions_hash, scores.visits) != judged_on {
        scores = Scores {
            format: SCORES_FORMAT,
            positions: positions.len(),
            positions_hash: hash,
            visits: s.visits,
            generations: Vec::new(),
        };
    }
    let rules = positions[0].rules;
    for model in files(&dir.join("models"), "gen-", ".safetensors")? {
        let Some(generation) = generation_of(&model) else { continue };
        if scores.generations.iter().any(|g| g.generation == generation) {
            continue;
        }
        stop.check()?;
        // FP32: a generation's judged score is kept and compared with later ones.
        let mut ev = net(&model, &rules, hane_mcts::Precision::Fp32)?;
        let (raw, searched) = judge(&mut ev, &positions, s.visits, s.seed).map_err(|e| {
            Error::Input(format!("{}: {e}", dir.join("judge").join("positions.json").display()))
        })?;
        let score = GenerationScore { generation, raw, searched };
        scores.generations.push(score.clone());
        scores.generations.sort_by_key(|g| g.generation);
        write_json(&path, &scores)?;
        progress(JudgeEvent::Scored(score));
    }
    let (shares, points) = charts(&rules, &scores);
    write_file(&dir.join("judge.png"), &shares.png())?;
    write_file(&dir.join("judge-points.png"), &points.png())?;
    Ok(scores.generations)
}

/// `judge.png`, the four shares per generation, and `judge-points.png`, the points lost.
fn charts(rules: &Rules, scores: &Scores) -> (Chart, Chart) {
    let line = |name: &str, f: fn(&GenerationScore) -> f64| {
        Series::new(
            name,
            scores.generations.iter().map(|g| (f64::from(g.generation), f(g))).collect(),
            hane_plot::Style::LineAndMarkers,
        )
    };
    // The rules without the komi, which varies from record to record.
    let mut shown = *rules;
    let text = rules.to_string();
    if let Ok(preset) = Rules::preset_sized(text.split(',').next().unwrap_or(""), rules.size) {
        shown.komi = preset.komi;
    }
    let title = format!("Exact judge: {shown}, {} positions", scores.positions);
    let search = format!("search {}", scores.visits);
    let shares = Chart::new(title.as_str(), "generation", "share of turns keeping the value / result")
        .with_y_range(0.0, 1.0)
        .with_series(line(&format!("{search}: value"), |g| g.searched.value))
        .with_series(line("search: result", |g| g.searched.result))
        .with_series(line("policy: value", |g| g.raw.value))
        .with_series(line("policy: result", |g| g.raw.result));
    let points = Chart::new(title, "generation", "points lost per position")
        .with_series(line(&format!("{search}: Black to move"), |g| g.searched.black_points_lost))
        .with_series(line("search: White to move", |g| g.searched.white_points_lost))
        .with_series(line("policy: Black to move", |g| g.raw.black_points_lost))
        .with_series(line("policy: White to move", |g| g.raw.white_points_lost));
    (shares, points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoint_names_give_their_generation() {
        assert_eq!(generation_of(Path::new("models/gen-017.safetensors")), Some(17));
        assert_eq!(generation_of(Path::new("models/gen-x.safetensors")), None);
        assert_eq!(generation_of(Path::new("models/best.safetensors")), None);
    }

    #[test]
    fn bytes_that_are_not_utf8_are_bad_input_like_other_damage() {
        let dir = std::env::temp_dir().join(format!("hane-judge-utf8-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("scores.json");
        for bytes in [&b"{\"a\": \xff}"[..], &b"not json"[..]] {
            std::fs::write(&path, bytes).unwrap();
            let read = read_or_default::<serde_json::Value>(&path);
            assert!(matches!(read, Err(Error::Input(_))), "{read:?}");
            assert!(matches!(read_record(&path), Err(Error::Input(_))));
        }
        assert_eq!(
            read_or_default::<serde_json::Value>(&dir.join("none.json")).unwrap(),
            serde_json::Value::Null
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
