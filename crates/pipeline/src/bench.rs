//! The measurements of `hane bench`: random playouts per CPU-second, and self-play throughput
//! against the bare batched throughput of its evaluator. They return numbers; the caller
//! prints them (speed targets live in benchmarks, never in tests).

use crate::players::{model_factory, named_factory};
use crate::{Error, Stop};
use hane_data::batch::BatchEncoder;
use hane_engine::playout::{random_light_action, random_playout};
use hane_engine::range::Allowed;
use hane_engine::rng::Rng;
use hane_engine::{Game, GameState, PolicyLayout, Rules};
use hane_mcts::{EvalRequest, Evaluation, Evaluator, Precision, UniformEvaluator};
use hane_selfplay::server::EvaluatorFactory;
use hane_selfplay::{Progress, SelfplayConfig};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Light playouts per CPU-second of one thread, over several rounds.
#[derive(Clone, Debug)]
pub struct PlayoutRates {
    /// Playouts played in all rounds.
    pub playouts: u64,
    /// The best, median and worst round's playouts per second.
    pub best: f64,
    /// See `best`.
    pub median: f64,
    /// See `best`.
    pub worst: f64,
    /// Mean turns per playout.
    pub mean_turns: f64,
}

/// The rounds of a playout benchmark.
pub const ROUNDS: Allowed<usize> = Allowed::closed(1, 1000);

/// Uniformly random light playouts of `rules` (a rule string) from the empty board on this
/// thread, `rounds` rounds ([`ROUNDS`]) of `seconds` each: a shared machine's speed moves from
/// second to second, so the best, median and worst round are all reported.
pub fn playout_rates(rules: &str, seconds: f64, rounds: usize, seed: u64) -> Result<PlayoutRates, Error> {
    let rules: Rules = rules.parse().map_err(|e| Error::Input(format!("--rules: {e}")))?;
    if !(seconds > 0.0 && seconds < 1e6) {
        return Err(Error::Input("--seconds must be positive".into()));
    }
    ROUNDS.check("--rounds", rounds).map_err(|e| Error::Input(e.0))?;
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
    Ok(PlayoutRates {
        playouts: games,
        best: rates[rates.len() - 1],
        median: rates[rates.len() / 2],
        worst: rates[0],
        mean_turns: turns as f64 / games as f64,
    })
}

/// What evaluates positions in a self-play benchmark.
#[derive(Debug)]
pub enum Source {
    /// `uniform` or `rollout`.
    Named(String),
    /// A checkpoint's net, computing in a precision.
    Model(PathBuf, Precision),
    /// The CPU side of a net's evaluator without its forward pass ([`EncodeEvaluator`]).
    Encode,
}

impl Source {
    fn factory(&self, rules: Rules, batch: usize) -> Result<EvaluatorFactory, Error> {
        match self {
            Source::Named(n) => named_factory(n, 1),
            Source::Model(p, precision) => model_factory(p, rules, batch, *precision),
            Source::Encode => Ok(Arc::new(move || Box::new(EncodeEvaluator::new(rules, batch)))),
        }
    }

    /// How reports name it.
    pub fn name(&self) -> String {
        match self {
            Source::Named(n) => n.clone(),
            Source::Model(p, precision) => format!("{} ({precision})", p.display()),
            Source::Encode => "encode".into(),
        }
    }
}

/// The rule sets a benchmark measures: `names`, or else the four variants' presets.
pub fn bench_rules(names: &[String]) -> Vec<String> {
    if names.is_empty() {
        ["ttakji", "brainking", "loose", "sligo"].map(String::from).to_vec()
    } else {
        names.to_vec()
    }
}

/// The runs of a self-play benchmark, each a rule set and what evaluates its positions: each
/// checkpoint of `models` on its own rules and board computing in `precision`, or else each of
/// [`bench_rules`]`(rules)` on a `size` board with `evaluator` (`uniform`, `rollout` or `encode`).
pub fn selfplay_runs(
    rules: &[String],
    size: u8,
    evaluator: &str,
    models: &[PathBuf],
    precision: Precision,
) -> Result<Vec<(String, Source)>, Error> {
    if models.is_empty() {
        let source = || match evaluator {
            "encode" => Source::Encode,
            _ => Source::Named(evaluator.to_string()),
        };
        return Ok(bench_rules(rules).into_iter().map(|r| (format!("{r},size={size}"), source())).collect());
    }
    models
        .iter()
        .map(|p| {
            let (rules, _) = crate::net_rules::trained_rules(p).map_err(|e| Error::net_load(p, e))?;
            Ok((rules.to_string(), Source::Model(p.clone(), precision)))
        })
        .collect()
}

/// A net's evaluator without the net: it encodes every batch as self-play's net evaluator
/// does ([`BatchEncoder`] with random symmetries, padded to the batch size) and maps every
/// legal action to its policy entry, then answers as [`UniformEvaluator`] does. Self-play
/// with it measures the CPU side of self-play alone: what the search workers and the input
/// encoding cost per leaf, whatever accelerator runs the forward passes.
#[derive(Debug)]
pub struct EncodeEvaluator {
    input: BatchEncoder,
}

impl EncodeEvaluator {
    /// For positions of `rules`, in batches padded to `batch` rows.
    pub fn new(rules: Rules, batch: usize) -> EncodeEvaluator {
        let input = BatchEncoder::new(usize::from(rules.size), PolicyLayout::of(&rules).len());
        EncodeEvaluator { input: input.with_random_symmetries().with_fixed_batch(batch) }
    }
}

impl Evaluator<GameState> for EncodeEvaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<GameState>]) -> Vec<Evaluation> {
        if batch.is_empty() {
            return Vec::new();
        }
        self.input.encode(batch.iter().map(|r| &r.state));
        // The entries a net's policy would be read at, looked up and then unused.
        for (k, r) in batch.iter().enumerate() {
            let entries: usize = r.legal.iter().map(|&a| self.input.entry(k, &r.state, a)).sum();
            std::hint::black_box(entries);
        }
        UniformEvaluator.evaluate(batch)
    }
}

/// Self-play throughput with one worker thread.
#[derive(Clone, Debug)]
pub struct SelfplayRates {
    /// Positions (moves) per second.
    pub positions: f64,
    /// Games per hour.
    pub games_per_hour: f64,
    /// Evaluations per second in self-play.
    pub evals: f64,
    /// Evaluations per second of the evaluator alone on full batches.
    pub bare_evals: f64,
}

/// How a self-play benchmark runs its games.
#[derive(Clone, Copy, Debug)]
pub struct Workers {
    /// Worker threads running searches.
    pub threads: usize,
    /// Inference threads, each with its own copy of the evaluator.
    pub inference_threads: usize,
    /// Games in flight per worker.
    pub in_flight: usize,
}

/// Plays `games` games of `rules` (a rule string) with `source`, run by `workers`, in batches
/// of `batch`, in a temporary folder, and measures the evaluator alone beside it.
pub fn selfplay_rates(
    rules: &str,
    source: &Source,
    games: u64,
    workers: Workers,
    batch: usize,
) -> Result<SelfplayRates, Error> {
    let Workers { threads, inference_threads, in_flight } = workers;
    let rules: Rules = rules.parse().map_err(|e| Error::Input(format!("--rules: {e}")))?;
    let cfg = SelfplayConfig {
        rules,
        threads,
        inference_threads,
        games_in_flight: in_flight,
        batch_size: batch,
        ..SelfplayConfig::default()
    };
    cfg.validate().map_err(|e| Error::Input(format!("rules: {e}")))?;
    let dir = std::env::temp_dir().join(format!("hane-bench-{}-{}", std::process::id(), rules.variant as u8));
    let _ = std::fs::remove_dir_all(&dir);
    let s = hane_selfplay::run(
        &cfg,
        games,
        &dir,
        source.factory(rules, batch)?,
        &source.name(),
        Arc::new(Progress::default()),
        Stop::default(),
    )
    .map_err(Error::Selfplay)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(SelfplayRates {
        positions: s.moves as f64 / s.seconds,
        games_per_hour: s.games as f64 / s.seconds * 3600.0,
        evals: s.evals as f64 / s.seconds,
        bare_evals: bare_evals(rules, source, batch)?,
    })
}

/// Evaluations per second of the evaluator alone on full batches of self-play-like positions
/// (the median of five one-second rounds after a warm-up call).
fn bare_evals(rules: Rules, source: &Source, batch: usize) -> Result<f64, Error> {
    let batch_reqs = bench_requests(rules, batch);
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

/// `batch` positions of `rules` for timing an evaluator: random games of 0 to 39 turns.
fn bench_requests(rules: Rules, batch: usize) -> Vec<EvalRequest<GameState>> {
    let mut rng = Rng::new(5);
    (0..batch)
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
        .collect()
}

/// One round of [`precision_rounds`]: evaluations per second in each precision.
#[derive(Clone, Copy, Debug)]
pub struct PrecisionRound {
    /// With the net in FP32.
    pub fp32: f64,
    /// With its trunk in bf16.
    pub bf16: f64,
}

/// The net of `model` on its own rules and board, FP32 against bf16, each as self-play runs
/// it (one libtorch thread, batches of `batch` rows, random symmetries) on the same `batch`
/// positions: `rounds` rounds ([`ROUNDS`]) of `seconds` per precision, the first precision
/// alternating from round to round so that a drift of the machine's speed falls on both.
/// Each round goes to `on_round` as it ends.
pub fn precision_rounds(
    model: &std::path::Path,
    batch: usize,
    rounds: usize,
    seconds: f64,
    on_round: &mut dyn FnMut(usize, PrecisionRound),
) -> Result<Vec<PrecisionRound>, Error> {
    ROUNDS.check("--rounds", rounds).map_err(|e| Error::Input(e.0))?;
    if !(seconds > 0.0 && seconds < 1e6) {
        return Err(Error::Input("--seconds must be positive".into()));
    }
    let (rules, _) = crate::net_rules::trained_rules(model).map_err(|e| Error::net_load(model, e))?;
    let reqs = bench_requests(rules, batch);
    let mut evs = [Precision::Fp32, Precision::Bf16]
        .map(|p| model_factory(model, rules, batch, p).map(|f| f()))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    for ev in &mut evs {
        ev.evaluate(&reqs);
    }
    let budget = Duration::from_secs_f64(seconds);
    let mut out = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let mut rate = [0.0; 2];
        for k in [r % 2, 1 - r % 2] {
            let t = Instant::now();
            let mut n = 0u64;
            while t.elapsed() < budget {
                n += evs[k].evaluate(&reqs).len() as u64;
            }
            rate[k] = n as f64 / t.elapsed().as_secs_f64();
        }
        let round = PrecisionRound { fp32: rate[0], bf16: rate[1] };
        on_round(r, round);
        out.push(round);
    }
    Ok(out)
}

/// CPU time of the calling thread in seconds, so a benchmark on a busy machine still measures
/// one core's work.
fn thread_cpu_seconds() -> Option<f64> {
    hane_host::cpu::cpu_seconds("/proc/thread-self/stat")
}

/// The process's peak resident set size in KiB (Linux `VmHWM`).
pub fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// What `hane bench book` measured.
#[derive(Clone, Debug)]
pub struct BookRates {
    /// The rules the net plays, with the book's komi.
    pub rules: Rules,
    /// Expansions made.
    pub expansions: u64,
    /// Net evaluations per second inside the book's searches (one expansion thread, the
    /// solver off).
    pub evals: f64,
    /// Evaluations per second of the same net alone on full batches of the book's batch size.
    pub bare_evals: f64,
}

/// Grows an unsaved book of `expansions` expansions with the net of `model` on its own rules
/// (at `komi`, or theirs), `visits` per search in batches of `batch`, computing in
/// `precision`, and measures the net alone beside it.
pub fn book_rates(
    model: &std::path::Path,
    komi: Option<f64>,
    expansions: u64,
    visits: u32,
    batch: usize,
    precision: Precision,
) -> Result<BookRates, Error> {
    let (mut rules, _) = crate::net_rules::trained_rules(model).map_err(|e| Error::net_load(model, e))?;
    if let Some(k) = komi {
        rules.komi = hane_engine::Komi::from_f64(k).ok_or_else(|| Error::Input(format!("--komi {k}")))?;
    }
    let (factory, _) = crate::book::net_factory(model, &rules, precision)?;
    let mut settings = hane_book::Settings::for_board(rules.size.into()).searching(visits);
    settings.batch = batch;
    settings.solve_from_ply = u32::MAX;
    let mut book = hane_book::Book::new(&rules, "bench");
    let t = Instant::now();
    hane_book::Builder::new(settings)
        .run(&mut book, &factory, expansions, &Stop::default(), &mut |_| {})
        .map_err(|e| Error::Input(e.to_string()))?;
    let evals = book.evaluations as f64 / t.elapsed().as_secs_f64();
    let bare = bare_evals(rules, &Source::Model(model.to_path_buf(), precision), batch)?;
    Ok(BookRates { rules, expansions: book.expansions, evals, bare_evals: bare })
}
