//! `hane selfplay`: generate training games with a progress bar; Ctrl-C or SIGTERM stops
//! cleanly with exit code 130 (finished games are kept, games in flight are dropped, no
//! partial file is left) and a rerun of the same command resumes.

use crate::config;
use crate::stop::{self, Second, RERUN};
use crate::Failure;
use hane_mcts::{RolloutEvaluator, UniformEvaluator};
use hane_selfplay::server::EvaluatorFactory;
use hane_selfplay::{run, Progress, RunSummary, SelfplayConfig};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `hane selfplay`.
#[derive(clap::Args)]
pub struct Args {
    /// Config file (TOML with a [selfplay] table; see configs/).
    #[arg(long)]
    config: PathBuf,
    /// Games to play in total (a rerun only plays the unfinished ones; at most 10000000).
    #[arg(long)]
    games: u64,
    /// Seed of the run, replacing the config's: give every worker of a scaled-out run its
    /// own (for example its job index), or they play the same games.
    #[arg(long)]
    seed: Option<u64>,
    /// Output folder (shards/ and sgf/ are created inside).
    #[arg(long)]
    out: PathBuf,
    /// Evaluator without a network: uniform or rollout (ignored with --model).
    #[arg(long, default_value = "uniform")]
    evaluator: String,
    /// A checkpoint (.safetensors from `hane train`) to evaluate positions with, or a
    /// trainer's output folder, meaning its newest checkpoint.
    #[arg(long)]
    model: Option<PathBuf>,
}

/// An evaluator factory for a checkpoint; the net is loaded on the inference thread and runs
/// every forward pass on `batch` rows (the config's `batch_size`), so that the games do not
/// depend on how the inference thread happened to batch them. A checkpoint that does not
/// load, or belongs to other rules, is reported before any game.
pub fn model_factory(
    path: &std::path::Path,
    rules: hane_engine::Rules,
    batch: usize,
) -> Result<EvaluatorFactory, Failure> {
    hane_nn::NetEvaluator::load(path, &rules, "auto", 1)
        .map_err(|e| Failure::input(format!("--model {}: {e}", path.display())))?;
    let path = path.to_path_buf();
    Ok(Arc::new(move || {
        Box::new(
            hane_nn::NetEvaluator::load(&path, &rules, "auto", 1)
                .expect("checkpoint loaded a moment ago")
                .with_random_symmetries()
                .with_fixed_batch(batch),
        )
    }))
}

/// Runs self-play with a progress bar of finished games (moves/s and rows in its message);
/// a stop request ([`crate::stop`]) ends it early, keeping every finished game.
pub fn play_with_bar(
    cfg: &SelfplayConfig,
    games: u64,
    out: &Path,
    fac: EvaluatorFactory,
    source: &str,
) -> Result<RunSummary, Failure> {
    let progress = Arc::new(Progress::default());
    let bar = ProgressBar::new(games);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise}]")
            .expect("template"),
    );
    let started = Instant::now();
    let (p, b) = (progress.clone(), bar.clone());
    let done = Arc::new(AtomicBool::new(false));
    let d = done.clone();
    let ticker = std::thread::spawn(move || {
        while !d.load(Ordering::Relaxed) {
            let secs = started.elapsed().as_secs_f64().max(1e-9);
            let games = p.games.load(Ordering::Relaxed) + p.resumed.load(Ordering::Relaxed);
            b.set_position(games);
            b.set_message(format!(
                "{:.0} moves/s, {} rows",
                p.moves.load(Ordering::Relaxed) as f64 / secs,
                p.rows.load(Ordering::Relaxed)
            ));
            std::thread::sleep(Duration::from_millis(250));
        }
    });
    let result = run(cfg, games, out, fac, source, progress, stop::flag());
    done.store(true, Ordering::Relaxed);
    let _ = ticker.join();
    bar.finish_and_clear();
    result.map_err(|e| Failure { code: 1, message: e })
}

/// The evaluator named on the command line.
pub fn factory(name: &str, seed: u64) -> Result<EvaluatorFactory, Failure> {
    match name {
        "uniform" => Ok(Arc::new(|| Box::new(UniformEvaluator))),
        "rollout" => Ok(Arc::new(move || Box::new(RolloutEvaluator::new(seed)))),
        _ => Err(Failure::input(format!("--evaluator {name:?}: allowed: uniform, rollout"))),
    }
}

pub fn run_cmd(a: Args) -> Result<(), Failure> {
    let mut cfg = config::load(&a.config)?.selfplay;
    hane_engine::range::in_range("--games", a.games, 0..=hane_selfplay::MAX_GAMES).map_err(Failure::input)?;
    cfg.seed = a.seed.unwrap_or(cfg.seed);
    let model = match &a.model {
        Some(dir) if dir.is_dir() => Some(hane_train::latest_checkpoint(dir).ok_or_else(|| {
            Failure::input(format!(
                "--model {}: no checkpoint in {}/checkpoints",
                dir.display(),
                dir.display()
            ))
        })?),
        m => m.clone(),
    };
    let (fac, source) = match &model {
        Some(m) => (
            model_factory(m, cfg.parsed_rules().map_err(Failure::input)?, cfg.batch_size)?,
            m.display().to_string(),
        ),
        None => (factory(&a.evaluator, cfg.seed)?, a.evaluator.clone()),
    };
    if model.is_none() && a.evaluator == "uniform" {
        // The uniform evaluator values every leaf as a draw: no opinion to mix into targets.
        cfg.value_search_mix = 0.0;
    }
    // Without a net nothing runs libtorch, and a second Ctrl-C may quit at once.
    let second = if model.is_some() { Second::Wait } else { Second::Exit };
    stop::install("after the moves in flight (finished games are kept)", second)?;
    let s = play_with_bar(&cfg, a.games, &a.out, fac, &source)?;
    println!(
        "{} games ({} already done) and {} side games, {} moves, {} rows in {:.1}s: {:.0} moves/s, {:.0} evals/s; B/W/draw {}/{}/{}, resigned {}, false resigns {}/{}{}",
        s.games,
        s.resumed,
        s.forks,
        s.moves,
        s.rows,
        s.seconds,
        s.moves as f64 / s.seconds.max(1e-9),
        s.evals as f64 / s.seconds.max(1e-9),
        s.results[0],
        s.results[1],
        s.results[2],
        s.resigned,
        s.false_resign,
        s.would_resign,
        if s.interrupted { " (unfinished)" } else { "" }
    );
    if s.interrupted && stop::requested() {
        return Err(stop::interrupted(RERUN));
    }
    Ok(())
}
