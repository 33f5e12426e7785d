//! A whole self-play job: folders, resuming, the inference thread, the workers, counters.
//!
//! Output layout under the run directory: `shards/gNNNNNNNN.npz` (the training rows of game
//! N, if it has any) and `sgf/gNNNNNNNN.sgf`. A game counts as finished once its SGF exists
//! as a regular file (a folder or another node named like a game's SGF or shard stops the run
//! with an error naming it); both files are written to a temporary name and renamed, the shard first, so a killed run
//! loses only the games in flight and a rerun plays exactly the unfinished game numbers
//! again (each game's randomness comes from the run seed and its number). With
//! [`SelfplayConfig::pack_rows`] finished games are then packed, many to a file
//! (`shards/pNNNNNNNN.npz`, `sgf/pNNNNNNNN.sgf`; see [`crate::pack`]), and a game also counts
//! as finished once a pack names it.

use crate::config::SelfplayConfig;
use crate::pack::Packs;
use crate::record::{self, Ending, PendingRow};
use crate::server::{EvaluatorFactory, Server, ServerStats};
use crate::worker;
use hane_data::shard;
use hane_engine::range::{in_range, Invalid};
use hane_engine::{Action, Color, GameState, Outcome, Rules};
use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Live counters, readable from another thread for a progress display.
#[derive(Debug, Default)]
pub struct Progress {
    /// Games finished in this process.
    pub games: AtomicU64,
    /// Games already finished by an earlier run of the same job.
    pub resumed: AtomicU64,
    /// Side games forked from the games' positions (not counted in `games` or `results`).
    pub forks: AtomicU64,
    /// Moves (decisions) played.
    pub moves: AtomicU64,
    /// Training rows written.
    pub rows: AtomicU64,
    /// Games won by Black, by White, drawn.
    pub results: [AtomicU64; 3],
    /// Games ended by resignation.
    pub resigned: AtomicU64,
    /// Played-out games in which someone would have resigned.
    pub would_resign: AtomicU64,
    /// ... and in which that player won after all (false resignations).
    pub false_resign: AtomicU64,
}

/// What a finished run reports.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunSummary {
    /// Games finished in this process.
    pub games: u64,
    /// Games found finished from an earlier run.
    pub resumed: u64,
    /// Side games forked from positions of the games ([`SelfplayConfig::fork_prob`]).
    pub forks: u64,
    /// Decisions played.
    pub moves: u64,
    /// Training rows written.
    pub rows: u64,
    /// Wall time.
    pub seconds: f64,
    /// Positions evaluated by the inference thread.
    pub evals: u64,
    /// Seconds the inference thread spent inside the evaluator.
    pub eval_busy_seconds: f64,
    /// Black wins, White wins, draws.
    pub results: [u64; 3],
    /// Resigned games.
    pub resigned: u64,
    /// Played-out games where a player would have resigned / of those, won anyway.
    pub would_resign: u64,
    /// False resignations observed in played-out games.
    pub false_resign: u64,
    /// Whether the run was stopped before all games were played.
    pub interrupted: bool,
}

impl fmt::Display for RunSummary {
    /// The one-line summary `hane selfplay` prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let per_sec = |n: u64| n as f64 / self.seconds.max(1e-9);
        write!(
            f,
            "{} games ({} already done) and {} side games, {} moves, {} rows in {:.1}s: {:.0} moves/s, \
             {:.0} evals/s; B/W/draw {}/{}/{}, resigned {}, false resigns {}/{}{}",
            self.games,
            self.resumed,
            self.forks,
            self.moves,
            self.rows,
            self.seconds,
            per_sec(self.moves),
            per_sec(self.evals),
            self.results[0],
            self.results[1],
            self.results[2],
            self.resigned,
            self.false_resign,
            self.would_resign,
            if self.interrupted { " (unfinished)" } else { "" }
        )
    }
}

/// A game's files are named `g{id:08}`, a side game's `g{id:08}-f{turn:03}` after the game
/// and the turn it forked from. Resuming counts the games' files only: a rerun replays an
/// unfinished game, and with it its side games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameName {
    /// The game's number.
    pub id: u64,
    /// For a side game, the turn of the game it forked from.
    pub fork_turn: Option<u32>,
}

impl std::str::FromStr for GameName {
    type Err = Invalid;

    /// Parses what [`GameName`]'s `Display` writes.
    fn from_str(s: &str) -> Result<GameName, Invalid> {
        let bad = || Invalid(format!("{s:?} is not a game name (g00000012 or g00000012-f034)"));
        let (game, fork) = match s.split_once("-f") {
            Some((g, f)) => (g, Some(f)),
            None => (s, None),
        };
        let number = |digits: &str, width: usize| match digits.len() >= width
            && digits.bytes().all(|b| b.is_ascii_digit())
        {
            true => digits.parse().ok(),
            false => None,
        };
        let id = game.strip_prefix('g').and_then(|d| number(d, 8)).ok_or_else(bad)?;
        let fork_turn = match fork {
            Some(t) => Some(number(t, 3).and_then(|t| u32::try_from(t).ok()).ok_or_else(bad)?),
            None => None,
        };
        Ok(GameName { id, fork_turn })
    }
}

impl std::fmt::Display for GameName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "g{:08}", self.id)?;
        match self.fork_turn {
            Some(t) => write!(f, "-f{t:03}"),
            None => Ok(()),
        }
    }
}

/// State shared by the workers.
#[derive(Debug)]
pub struct Shared {
    /// The configuration.
    pub cfg: SelfplayConfig,
    /// Parsed rules (before komi randomisation).
    pub rules: Rules,
    todo: Mutex<VecDeque<u64>>,
    /// Counters.
    pub progress: Arc<Progress>,
    /// Set to stop starting and playing games.
    pub stop: Arc<AtomicBool>,
    shards: PathBuf,
    sgfs: PathBuf,
    source: String,
    packs: Packs,
    errors: Mutex<Vec<String>>,
}

impl Shared {
    /// The next game number to play, if any.
    pub fn claim(&self) -> Option<u64> {
        self.todo.lock().expect("todo lock").pop_front()
    }

    /// Writes a finished game's shard and SGF, named `name`, and updates the counters (a
    /// side game only counts as a fork and by its rows).
    pub fn finish(
        &self,
        name: GameName,
        game: &GameState,
        actions: &[Action],
        pending: Vec<PendingRow>,
        end: Ending,
        would_resign: Option<Color>,
    ) {
        let rows = record::rows(game, pending, end, self.cfg.value_search_mix);
        let size = game.geo().size();
        let rules = game.rules().to_string();
        let result = (|| -> Result<(), String> {
            if !rows.is_empty() {
                let bytes = shard::encode(&rows, &rules, size, 1, &self.source);
                shard::write_atomic(&self.shards.join(format!("{name}.npz")), &bytes)
                    .map_err(|e| e.to_string())?;
            }
            let text = record::sgf(*game.rules(), actions, end).map_err(|e| e.to_string())?;
            shard::write_atomic(&self.sgfs.join(format!("{name}.sgf")), text.as_bytes())
                .map_err(|e| e.to_string())?;
            self.packs.add(name, rows.len()).map_err(|e| e.0)
        })();
        if let Err(e) = result {
            self.errors.lock().expect("errors lock").push(format!("game {name}: {e}"));
            self.stop.store(true, Ordering::Relaxed);
            return;
        }
        let p = &self.progress;
        p.rows.fetch_add(rows.len() as u64, Ordering::Relaxed);
        if name.fork_turn.is_some() {
            p.forks.fetch_add(1, Ordering::Relaxed);
            return;
        }
        p.games.fetch_add(1, Ordering::Relaxed);
        let k = match end.winner {
            Outcome::Black => 0,
            Outcome::White => 1,
            Outcome::Draw => 2,
        };
        p.results[k].fetch_add(1, Ordering::Relaxed);
        if end.resigned.is_some() {
            p.resigned.fetch_add(1, Ordering::Relaxed);
        }
        if let Some(c) = would_resign {
            p.would_resign.fetch_add(1, Ordering::Relaxed);
            if end.winner.value_for(c) > 0.0 {
                p.false_resign.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

/// Removes temporary files a killed run left behind (never read: readers only take `.npz`
/// and `.sgf` files).
fn remove_stale_temporaries(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.extension().and_then(|x| x.to_str()).is_some_and(|x| x.starts_with("tmp")) {
            let _ = std::fs::remove_file(p);
        }
    }
}

/// The most games one run may be asked for: the numbers of the unfinished ones are listed up
/// front (80 MB at this limit), and ten million games is months of self-play on one machine.
pub const MAX_GAMES: u64 = 10_000_000;

/// Why self-play stopped before its games were played.
#[derive(Debug)]
pub enum SelfplayError {
    /// A config value or argument that is not allowed.
    Invalid(Invalid),
    /// An output folder could not be made.
    Io(PathBuf, std::io::Error),
    /// A finished game could not be written (its shard or its SGF): the first such error.
    Record(String),
    /// A worker thread panicked.
    Panicked,
}

impl fmt::Display for SelfplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SelfplayError::Invalid(e) => write!(f, "{e}"),
            SelfplayError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            SelfplayError::Record(e) => f.write_str(e),
            SelfplayError::Panicked => f.write_str("a self-play worker panicked"),
        }
    }
}

impl std::error::Error for SelfplayError {}

impl From<Invalid> for SelfplayError {
    fn from(e: Invalid) -> SelfplayError {
        SelfplayError::Invalid(e)
    }
}

/// Plays `games` games (minus those an earlier run of the same job finished) into `out`.
/// `source` names the evaluator in the shards' metadata. At most [`MAX_GAMES`].
pub fn run(
    cfg: &SelfplayConfig,
    games: u64,
    out: &Path,
    factory: EvaluatorFactory,
    source: &str,
    progress: Arc<Progress>,
    stop: Arc<AtomicBool>,
) -> Result<RunSummary, SelfplayError> {
    cfg.validate()?;
    in_range("games", games, 0..=MAX_GAMES)?;
    let rules = cfg.parsed_rules()?;
    let shards = out.join("shards");
    let sgfs = out.join("sgf");
    for d in [&shards, &sgfs] {
        std::fs::create_dir_all(d).map_err(|e| SelfplayError::Io(d.to_path_buf(), e))?;
        remove_stale_temporaries(d);
    }
    let (packs, finished) =
        Packs::open(&shards, &sgfs, cfg.pack_rows, source).map_err(|e| SelfplayError::Record(e.0))?;
    let todo: VecDeque<u64> = (0..games).filter(|id| !finished.contains(id)).collect();
    progress.resumed.store(games - todo.len() as u64, Ordering::Relaxed);
    let shared = Arc::new(Shared {
        cfg: cfg.clone(),
        rules,
        todo: Mutex::new(todo),
        progress: progress.clone(),
        stop: stop.clone(),
        shards,
        sgfs,
        source: source.into(),
        packs,
        errors: Mutex::new(Vec::new()),
    });
    let start = Instant::now();
    let stats = Arc::new(ServerStats::default());
    let servers: Vec<Server> = (0..cfg.inference_threads.min(cfg.threads))
        .map(|_| Server::start(factory.clone(), cfg.batch_size, stats.clone()))
        .collect();
    let handles: Vec<_> = (0..cfg.threads)
        .map(|i| {
            let shared = shared.clone();
            let mut ev = servers[i % servers.len()].handle();
            std::thread::Builder::new()
                .name(format!("hane-selfplay-{i}"))
                .spawn(move || worker::work(&shared, &mut ev))
                .expect("spawn worker")
        })
        .collect();
    let mut panicked = false;
    for h in handles {
        panicked |= h.join().is_err();
    }
    drop(servers);
    if panicked {
        return Err(SelfplayError::Panicked);
    }
    if let Some(e) = shared.errors.lock().expect("errors lock").first() {
        return Err(SelfplayError::Record(e.clone()));
    }
    let interrupted = stop.load(Ordering::Relaxed) || !shared.todo.lock().expect("todo lock").is_empty();
    if !interrupted {
        shared.packs.flush().map_err(|e| SelfplayError::Record(e.0))?;
    }
    let p = &progress;
    let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
    Ok(RunSummary {
        games: get(&p.games),
        resumed: get(&p.resumed),
        forks: get(&p.forks),
        moves: get(&p.moves),
        rows: get(&p.rows),
        seconds: start.elapsed().as_secs_f64(),
        evals: get(&stats.evals),
        eval_busy_seconds: get(&stats.busy_ns) as f64 / 1e9,
        results: [get(&p.results[0]), get(&p.results[1]), get(&p.results[2])],
        resigned: get(&p.resigned),
        would_resign: get(&p.would_resign),
        false_resign: get(&p.false_resign),
        interrupted,
    })
}
