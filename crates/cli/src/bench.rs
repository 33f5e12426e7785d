//! `hane bench`: speed measurements that print numbers (never pass/fail).

use crate::selfplay_cmd;
use crate::Failure;
use hane_engine::playout::{random_light_action, random_playout};
use hane_engine::rng::Rng;
use hane_engine::{Game, GameState, Rules};
use hane_mcts::EvalRequest;
use hane_selfplay::{Progress, SelfplayConfig};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Arguments of `hane bench`.
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    what: What,
}

#[derive(clap::Subcommand)]
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
        /// Timed steps per measurement.
        #[arg(long, default_value_t = 10)]
        steps: u64,
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
        /// Games in flight (one worker thread).
        #[arg(long, default_value_t = 64)]
        in_flight: usize,
        /// Evaluator: uniform or rollout.
        #[arg(long, default_value = "uniform")]
        evaluator: String,
        /// Checkpoints to measure instead (comma-separated); each plays its own rules and
        /// board size, and --rules, --size and --evaluator are ignored.
        #[arg(long, value_delimiter = ',')]
        model: Vec<std::path::PathBuf>,
        /// Evaluator batch size.
        #[arg(long, default_value_t = 128)]
        batch: usize,
    },
}

pub fn run(a: Args) -> Result<(), Failure> {
    match a.what {
        What::Playouts { rules, size, seconds, rounds, seed } => playouts(rules, size, seconds, rounds, seed),
        What::Train { config, data, steps } => {
            let cfg = match config {
                Some(p) => crate::config::load(&p)?.train,
                None => hane_train::TrainConfig::default(),
            };
            let report =
                hane_train::bench(&cfg, data.as_deref(), steps, &mut crate::train_cmd::print_progress)
                    .map_err(|e| Failure { code: 1, message: e.to_string() })?;
            println!("{report}");
            Ok(())
        }
        What::Selfplay { rules, size, games, in_flight, evaluator, batch, model } => {
            let runs = if model.is_empty() {
                default_rules(rules)
                    .into_iter()
                    .map(|r| Ok((format!("{r},size={size}"), Source::Named(evaluator.clone()))))
                    .collect::<Result<Vec<_>, Failure>>()?
            } else {
                model
                    .into_iter()
                    .map(|p| {
                        let meta = hane_nn::Checkpoint::read(&p)
                            .map_err(|e| Failure::input(format!("--model {}: {e}", p.display())))?
                            .meta;
                        let rules = meta.parsed_rules().map_err(Failure::input)?;
                        Ok((rules.to_string(), Source::Model(p)))
                    })
                    .collect::<Result<Vec<_>, Failure>>()?
            };
            selfplay(runs, games, in_flight, batch)
        }
    }
}

fn default_rules(names: Vec<String>) -> Vec<String> {
    if names.is_empty() {
        ["ttakji", "brainking", "loose", "sligo"].map(String::from).to_vec()
    } else {
        names
    }
}

/// What evaluates positions in a self-play benchmark.
enum Source {
    /// `uniform` or `rollout`.
    Named(String),
    /// A checkpoint's net.
    Model(std::path::PathBuf),
}

impl Source {
    fn factory(
        &self,
        rules: hane_engine::Rules,
        batch: usize,
    ) -> Result<hane_selfplay::server::EvaluatorFactory, Failure> {
        match self {
            Source::Named(n) => selfplay_cmd::factory(n, 1),
            Source::Model(p) => selfplay_cmd::model_factory(p, rules, batch),
        }
    }

    fn name(&self) -> String {
        match self {
            Source::Named(n) => n.clone(),
            Source::Model(p) => p.display().to_string(),
        }
    }
}

fn selfplay(runs: Vec<(String, Source)>, games: u64, in_flight: usize, batch: usize) -> Result<(), Failure> {
    println!(
        "self-play: {games} games per run, {in_flight} in flight, 1 worker, batch {batch}, \
         visits 64 full / 16 fast (p_full 0.25)"
    );
    println!(
        "{:<22} {:>10} {:>11} {:>11} {:>13} {:>7}  evaluator",
        "rules", "positions/s", "games/hour", "evals/s", "bare evals/s", "ratio"
    );
    for (name, source) in runs {
        let cfg = SelfplayConfig {
            rules: name.clone(),
            games_in_flight: in_flight,
            batch_size: batch,
            ..SelfplayConfig::default()
        };
        cfg.validate().map_err(|e| Failure::input(format!("--rules: {e}")))?;
        let rules = cfg.parsed_rules().map_err(Failure::input)?;
        let dir =
            std::env::temp_dir().join(format!("hane-bench-{}-{}", std::process::id(), rules.variant as u8));
        let _ = std::fs::remove_dir_all(&dir);
        let s = hane_selfplay::run(
            &cfg,
            games,
            &dir,
            source.factory(rules, batch)?,
            &source.name(),
            Arc::new(Progress::default()),
            Arc::new(AtomicBool::new(false)),
        )
        .map_err(|e| Failure { code: 1, message: e })?;
        let _ = std::fs::remove_dir_all(&dir);
        let bare = bare_evals(rules, &source, batch)?;
        let evals = s.evals as f64 / s.seconds;
        println!(
            "{:<22} {:>10.0} {:>11.0} {:>11.0} {:>13.0} {:>7.2}  {}",
            name,
            s.moves as f64 / s.seconds,
            s.games as f64 / s.seconds * 3600.0,
            evals,
            bare,
            evals / bare,
            source.name()
        );
    }
    if let Some(kb) = peak_rss_kib() {
        println!("peak resident memory of this process: {:.1} MiB", kb as f64 / 1024.0);
    }
    Ok(())
}

/// Evaluations per second of the evaluator alone on full batches of self-play-like positions
/// (the median of five one-second rounds after a warm-up call).
fn bare_evals(rules: hane_engine::Rules, source: &Source, batch: usize) -> Result<f64, Failure> {
    let mut rng = Rng::new(5);
    let batch_reqs: Vec<EvalRequest<GameState>> = (0..batch)
        .map(|i| {
            let mut g = GameState::new(rules);
            for _ in 0..(i % 40) {
                if g.is_over() {
                    break;
                }
                g.play_unchecked(random_light_action(&g, &mut rng));
            }
            let mut legal = Vec::new();
            g.legal_actions(&mut legal);
            EvalRequest { state: g, legal }
        })
        .collect();
    let mut ev = (source.factory(rules, batch)?)();
    // A warm-up call (first calls allocate), then the median of five one-second rounds: a
    // single round moves with the machine's load.
    ev.evaluate(&batch_reqs);
    let mut rounds: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            let mut n = 0u64;
            while t.elapsed() < Duration::from_secs(1) {
                n += ev.evaluate(&batch_reqs).len() as u64;
            }
            n as f64 / t.elapsed().as_secs_f64()
        })
        .collect();
    rounds.sort_by(f64::total_cmp);
    Ok(rounds[2])
}

/// CPU time of the calling thread in seconds (Linux `/proc/thread-self/stat`, utime + stime in
/// clock ticks of 1/100 s), so a benchmark on a busy machine still measures one core's work.
fn thread_cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name (which ends with ')'): state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// The process's peak resident set size (Linux `VmHWM`).
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn playouts(names: Vec<String>, size: u8, seconds: f64, rounds: usize, seed: u64) -> Result<(), Failure> {
    let names = default_rules(names);
    if !(seconds > 0.0 && seconds < 1e6) {
        return Err(Failure::input("--seconds must be positive"));
    }
    if !(1..=1000).contains(&rounds) {
        return Err(Failure::input("--rounds must be in 1..=1000"));
    }
    println!("light playouts from the empty {size}x{size} board, one thread, {rounds} rounds of {seconds} s");
    println!("(playouts per CPU-second of this thread: best, median and worst round)");
    println!(
        "{:<14} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "rules", "playouts", "best", "median", "worst", "avg turns"
    );
    for name in names {
        let rules: Rules =
            format!("{name},size={size}").parse().map_err(|e| Failure::input(format!("--rules: {e}")))?;
        let start = GameState::new(rules);
        let mut g = start.clone();
        let mut rng = Rng::new(seed);
        let budget = Duration::from_secs_f64(seconds);
        let (mut games, mut turns) = (0u64, 0u64);
        let mut rates = Vec::with_capacity(rounds);
        for _ in 0..rounds {
            let cpu0 = thread_cpu_seconds();
            let t = Instant::now();
            let mut n = 0u64;
            while t.elapsed() < budget {
                for _ in 0..16 {
                    g.clone_from(&start);
                    turns += u64::from(random_playout(&mut g, &mut rng));
                    n += 1;
                }
            }
            // CPU time where the system reports it (it has a 10 ms tick), wall time otherwise.
            let secs = thread_cpu_seconds()
                .zip(cpu0)
                .map(|(b, a)| b - a)
                .filter(|&c| c > 0.0)
                .unwrap_or_else(|| t.elapsed().as_secs_f64());
            rates.push(n as f64 / secs);
            games += n;
        }
        rates.sort_by(f64::total_cmp);
        println!(
            "{:<14} {:>10} {:>10.0} {:>10.0} {:>10.0} {:>10.1}",
            name,
            games,
            rates[rates.len() - 1],
            rates[rates.len() / 2],
            rates[0],
            turns as f64 / games as f64
        );
    }
    Ok(())
}
