//! `hane bench`: speed measurements that print numbers (never pass/fail).

use crate::nets::PrecisionArg;
use crate::output::outln;
use crate::Failure;
use hane_pipeline::bench::{self, Source, Workers};

/// Arguments of `hane bench`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand, Debug)]
enum What {
    /// Uniformly random light playouts per second on one core, from the empty board.
    Playouts {
        /// Rule sets to measure (default: ttakji, brainking, loose, sligo).
        #[arg(long, value_delimiter = ',')]
        rules: Vec<String>,
        /// Board size.
        #[arg(long, default_value_t = 9)]
        size: u8,
        /// Seconds per round.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        /// Rounds per rule set: a shared machine's speed moves from second to second, so the
        /// best, median and worst round are all reported.
        #[arg(long, default_value_t = 5)]
        rounds: usize,
        /// Random seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Training samples/s against a bare forward+backward loop of the same net and batch.
    Train {
        /// Config file with a [train] table (default: the built-in defaults).
        #[arg(long)]
        config: Option<std::path::PathBuf>,
        /// Shard folder (default: generated random-game shards).
        #[arg(long)]
        data: Option<std::path::PathBuf>,
        /// Timed steps per measurement (with --loader: batches).
        #[arg(long, default_value_t = 10)]
        steps: u64,
        /// Time the data loader alone (shards, shuffling, symmetries, batches), no training.
        #[arg(long)]
        loader: bool,
    },
    /// Net evaluations/s inside a book's searches against the bare batched forward pass of
    /// the same net (one expansion thread, the solver off, nothing saved).
    Book {
        /// The checkpoint; the book is of its rules and board.
        #[arg(long)]
        model: std::path::PathBuf,
        /// The book's komi (default: the net's rules').
        #[arg(long, allow_hyphen_values = true)]
        komi: Option<f64>,
        /// Expansions.
        #[arg(long, default_value_t = 40)]
        expansions: u64,
        /// Visits per search.
        #[arg(long, default_value_t = 800)]
        visits: u32,
        /// Leaves per evaluator call.
        #[arg(long, default_value_t = 16)]
        batch: usize,
        #[command(flatten)]
        precision: PrecisionArg,
    },
    /// Net evaluations/s in FP32 and in bf16 side by side: the same net, batch and positions,
    /// in alternating rounds.
    Precision {
        /// The checkpoint; positions are of its rules and board.
        #[arg(long)]
        model: std::path::PathBuf,
        /// Rows per forward pass (self-play's batch_size).
        #[arg(long, default_value_t = 128)]
        batch: usize,
        /// Rounds (each times both precisions).
        #[arg(long, default_value_t = 6)]
        rounds: usize,
        /// Seconds per precision per round.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
    },
    /// bf16 against FP32 on positions from self-play shards: top-move agreement, and the mean
    /// and largest difference of value (W-L) and score.
    Accuracy {
        /// The checkpoint.
        #[arg(long)]
        model: std::path::PathBuf,
        /// Folders of shards of the net's board (comma-separated), e.g. a run's
        /// selfplay/gen-NNN/shards.
        #[arg(long, value_delimiter = ',', required = true)]
        data: Vec<std::path::PathBuf>,
        /// Positions to compare at most (every row of each file in name order).
        #[arg(long, default_value_t = 10_000)]
        positions: usize,
        /// Rows per forward pass.
        #[arg(long, default_value_t = 128)]
        batch: usize,
    },
    /// Self-play throughput (positions/s, games/hour, evaluations/s) against the bare
    /// batched throughput of the same evaluator, and peak memory.
    Selfplay {
        /// Rule sets to measure (default: ttakji, brainking, loose, sligo).
        #[arg(long, value_delimiter = ',')]
        rules: Vec<String>,
        /// Board size.
        #[arg(long, default_value_t = 9)]
        size: u8,
        /// Games per rule set.
        #[arg(long, default_value_t = 64)]
        games: u64,
        /// Games in flight per worker thread.
        #[arg(long, default_value_t = 64)]
        in_flight: usize,
        /// Worker threads running searches.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Inference threads, each with its own copy of the evaluator (at most --threads).
        #[arg(long, default_value_t = 1)]
        inference_threads: usize,
        /// Evaluator: uniform, rollout, or encode (a net's input encoding without the forward
        /// pass: the CPU side of self-play alone).
        #[arg(long, default_value = "uniform")]
        evaluator: String,
        /// Checkpoints to measure instead (comma-separated); each plays its own rules and
        /// board size, and --rules, --size and --evaluator are ignored.
        #[arg(long, value_delimiter = ',')]
        model: Vec<std::path::PathBuf>,
        /// Evaluator batch size.
        #[arg(long, default_value_t = 128)]
        batch: usize,
        #[command(flatten)]
        precision: PrecisionArg,
    },
}

/// Runs `hane bench`.
pub fn run(a: Args) -> Result<(), Failure> {
    match a.what {
        What::Playouts { rules, size, seconds, rounds, seed } => playouts(rules, size, seconds, rounds, seed),
        What::Train { config, data, steps, loader } => {
            let cfg = match config {
                Some(p) => hane_pipeline::config::load(&p)?.train,
                None => hane_train::TrainConfig::default(),
            };
            if loader {
                let rate = hane_train::bench_loader(&cfg, data.as_deref(), steps).map_err(Failure::other)?;
                outln!("loader: {rate:.0} samples/s per thread (batch {}, {})", cfg.batch_size, cfg.rules);
                return Ok(());
            }
            let report = hane_train::bench(&cfg, data.as_deref(), steps, &mut crate::progress::print_train)
                .map_err(Failure::other)?;
            outln!("{report}");
            Ok(())
        }
        What::Book { model, komi, expansions, visits, batch, precision } => {
            hane_mcts::VISITS.check("--visits", visits).map_err(Failure::input)?;
            check_batch(batch)?;
            let r = bench::book_rates(&model, komi, expansions, visits, batch, precision.get())?;
            outln!(
                "book of {} with {}: {} expansions of {visits} + {} visits, batch {batch}",
                r.rules,
                model.display(),
                r.expansions,
                (visits / 2).max(1)
            );
            outln!(
                "evaluations/s: {:.0} in the book, {:.0} bare (the same net on full batches of {batch}), ratio {:.2}",
                r.evals,
                r.bare_evals,
                r.evals / r.bare_evals
            );
            Ok(())
        }
        What::Precision { model, batch, rounds, seconds } => precision(&model, batch, rounds, seconds),
        What::Accuracy { model, data, positions, batch } => {
            check_batch(batch)?;
            let a = hane_pipeline::precision_check::compare(&model, &data, positions, batch)?;
            let data: Vec<String> = data.iter().map(|d| d.display().to_string()).collect();
            outln!(
                "{} on {}: bf16 against fp32, {} positions",
                model.display(),
                data.join(", "),
                a.positions
            );
            outln!(
                "top move agrees: {:.4} ({} of {})",
                a.top_move,
                (a.top_move * a.positions as f64).round(),
                a.positions
            );
            outln!("value (W-L) difference: mean {:.5}, largest {:.5}", a.value_mean, a.value_max);
            outln!("score difference (points): mean {:.5}, largest {:.5}", a.score_mean, a.score_max);
            Ok(())
        }
        What::Selfplay {
            rules,
            size,
            games,
            in_flight,
            threads,
            inference_threads,
            evaluator,
            batch,
            model,
            precision,
        } => {
            let workers = Workers { threads, inference_threads, in_flight };
            let runs = bench::selfplay_runs(&rules, size, &evaluator, &model, precision.get())?;
            selfplay(runs, games, workers, batch)
        }
    }
}

/// `--batch` of the net benchmarks: 1 to 4096 rows per forward pass.
fn check_batch(batch: usize) -> Result<(), Failure> {
    match (1..=4096).contains(&batch) {
        true => Ok(()),
        false => Err(Failure::input(format!("--batch {batch}: allowed 1 to 4096"))),
    }
}

fn precision(model: &std::path::Path, batch: usize, rounds: usize, seconds: f64) -> Result<(), Failure> {
    check_batch(batch)?;
    outln!("{}: batch {batch}, one thread, {rounds} rounds of {seconds} s per precision", model.display());
    outln!("{:>5} {:>12} {:>12} {:>7}", "round", "fp32 evals/s", "bf16 evals/s", "ratio");
    let rounds = bench::precision_rounds(model, batch, rounds, seconds, &mut |r, x| {
        outln!("{:>5} {:>12.0} {:>12.0} {:>7.3}", r + 1, x.fp32, x.bf16, x.bf16 / x.fp32);
    })?;
    let mut ratios: Vec<f64> = rounds.iter().map(|x| x.bf16 / x.fp32).collect();
    ratios.sort_by(f64::total_cmp);
    let mean = |f: fn(&bench::PrecisionRound) -> f64| rounds.iter().map(f).sum::<f64>() / rounds.len() as f64;
    outln!(
        "mean: fp32 {:.0}, bf16 {:.0} evals/s; ratio median {:.3} (lowest {:.3}, highest {:.3})",
        mean(|x| x.fp32),
        mean(|x| x.bf16),
        (ratios[(ratios.len() - 1) / 2] + ratios[ratios.len() / 2]) / 2.0,
        ratios[0],
        ratios[ratios.len() - 1]
    );
    Ok(())
}

fn selfplay(runs: Vec<(String, Source)>, games: u64, workers: Workers, batch: usize) -> Result<(), Failure> {
    let Workers { threads, inference_threads, in_flight } = workers;
    outln!(
        "self-play: {games} games per run, {threads} workers with {in_flight} in flight each, \
         {inference_threads} inference threads, batch {batch}, visits 64 full / 16 fast (p_full 0.25)"
    );
    outln!(
        "{:<22} {:>10} {:>11} {:>11} {:>13} {:>7}  evaluator",
        "rules",
        "positions/s",
        "games/hour",
        "evals/s",
        "bare evals/s",
        "ratio"
    );
    for (name, source) in runs {
        let r = bench::selfplay_rates(&name, &source, games, workers, batch)?;
        outln!(
            "{:<22} {:>10.0} {:>11.0} {:>11.0} {:>13.0} {:>7.2}  {}",
            name,
            r.positions,
            r.games_per_hour,
            r.evals,
            r.bare_evals,
            r.evals / r.bare_evals,
            source.name()
        );
        if let Source::Encode = source {
            outln!("cpu side: {:.0} leaves/s per worker thread", r.evals / threads as f64);
        }
    }
    if let Some(kb) = bench::peak_rss_kib() {
        outln!("peak resident memory of this process: {:.1} MiB", kb as f64 / 1024.0);
    }
    Ok(())
}

fn playouts(names: Vec<String>, size: u8, seconds: f64, rounds: usize, seed: u64) -> Result<(), Failure> {
    outln!("light playouts from the empty {size}x{size} board, one thread, {rounds} rounds of {seconds} s");
    outln!("(playouts per CPU-second of this thread: best, median and worst round)");
    outln!(
        "{:<14} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "rules",
        "playouts",
        "best",
        "median",
        "worst",
        "avg turns"
    );
    for name in bench::bench_rules(&names) {
        let r = bench::playout_rates(&format!("{name},size={size}"), seconds, rounds, seed)?;
        outln!(
            "{:<14} {:>10} {:>10.0} {:>10.0} {:>10.0} {:>10.1}",
            name,
            r.playouts,
            r.best,
            r.median,
            r.worst,
            r.mean_turns
        );
    }
    Ok(())
}
