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
use crate::server::{EvaluatorFactory, Server, ServerStats};
use crate::shared::{Progress, Shared};
use crate::starts::Starts;
use crate::worker;
use hane_engine::range::{Allowed, Invalid};
use hane_host::Stop;
use std::collections::VecDeque;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

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

/// The games one run may be asked for: none up to [`MAX_GAMES`].
pub const GAMES: Allowed<u64> = Allowed::closed(0, MAX_GAMES);

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

impl SelfplayError {
    /// Whether it is bad input (a config value, a file it names), which the command line
    /// reports with exit code 2.
    pub fn is_input(&self) -> bool {
        matches!(self, SelfplayError::Invalid(_))
    }
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
    stop: Stop,
) -> Result<RunSummary, SelfplayError> {
    cfg.validate()?;
    GAMES.check("games", games)?;
    let rules = cfg.played_rules();
    let shards = out.join("shards");
    let sgfs = out.join("sgf");
    for d in [&shards, &sgfs] {
        std::fs::create_dir_all(d).map_err(|e| SelfplayError::Io(d.to_path_buf(), e))?;
        remove_stale_temporaries(d);
    }
    let (packs, finished) =
        Packs::open(&shards, &sgfs, cfg.pack_rows, source).map_err(|e| SelfplayError::Record(e.0))?;
    let starts = match (&cfg.start_positions, cfg.start_prob > 0.0) {
        (Some(path), true) => Starts::read(path, &rules).map_err(|e| SelfplayError::Invalid(Invalid(e)))?,
        _ => Starts::default(),
    };
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
        starts,
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
    let interrupted = stop.requested() || !shared.todo.lock().expect("todo lock").is_empty();
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
