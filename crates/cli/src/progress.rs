//! Progress on the terminal: bars for self-play, training and matches, and the trainer's log
//! lines, drawn from the events of the pipeline's work ([`hane_pipeline::Event`]).

use crate::output::{errln, outln};
use hane_eval::elo::Wdl;
use hane_pipeline::{Event, Stop};
use hane_selfplay::Progress as Counters;
use hane_train::Progress;
use indicatif::{ProgressBar, ProgressStyle};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A bar of `len` with `template` (see indicatif; `{bar:30}`, `{pos}`, `{len}`, `{msg}`).
fn bar(len: u64, template: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template(template).expect("a valid template"));
    bar
}

/// The bar of a self-play run: finished games, with moves/s and rows in its message, redrawn
/// four times a second from the workers' counters.
pub struct SelfplayBar {
    bar: ProgressBar,
    done: Stop,
    ticker: JoinHandle<()>,
}

impl SelfplayBar {
    /// Starts drawing the bar of `games` games from `counters`.
    pub fn start(games: u64, counters: Arc<Counters>) -> SelfplayBar {
        let bar = bar(games, "{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise}]");
        let started = Instant::now();
        let done = Stop::default();
        let (b, d) = (bar.clone(), done.clone());
        let ticker = std::thread::spawn(move || {
            while !d.requested() {
                let secs = started.elapsed().as_secs_f64().max(1e-9);
                b.set_position(
                    counters.games.load(Ordering::Relaxed) + counters.resumed.load(Ordering::Relaxed),
                );
                b.set_message(format!(
                    "{:.0} moves/s, {} rows",
                    counters.moves.load(Ordering::Relaxed) as f64 / secs,
                    counters.rows.load(Ordering::Relaxed)
                ));
                std::thread::sleep(Duration::from_millis(250));
            }
        });
        SelfplayBar { bar, done, ticker }
    }

    /// Stops drawing and clears the bar.
    pub fn finish(self) {
        self.done.request();
        let _ = self.ticker.join();
        self.bar.finish_and_clear();
    }
}

/// Prints one trainer event as a line.
pub fn print_train(p: &Progress) {
    match p {
        Progress::Started { step, resumed_from, parameters, device } => match resumed_from {
            Some(c) => {
                outln!("train: resuming at step {step} from {} ({parameters} weights, {device})", c.display())
            }
            None => outln!("train: starting at step {step} ({parameters} weights, {device})"),
        },
        Progress::Window(w) => outln!(
            "train: data window of {} rows in {} shards (of {} rows in {} shards found)",
            w.window_rows,
            w.window_shards,
            w.total_rows,
            w.shards
        ),
        Progress::Logged(l) => {
            let m: Vec<String> = l.metrics.iter().map(|(k, v)| format!("{k} {v:.4}")).collect();
            outln!(
                "step {:>7}  lr {:.2e}  {:>7.1} samples/s  {}",
                l.step,
                l.lr,
                l.samples_per_sec,
                m.join("  ")
            );
        }
        Progress::Checkpoint { step, path } => {
            outln!("train: checkpoint at step {step}: {}", path.display())
        }
        Progress::Warning(w) => errln!("train: warning: {w}"),
    }
}

/// What the phase in flight draws.
enum Phase {
    Idle,
    Selfplay(SelfplayBar),
    Training(ProgressBar),
    Match(ProgressBar, &'static str),
}

/// Shows a run's events: lines on stdout, the komi estimate's readings on stderr, a bar for
/// each phase.
pub struct RunDisplay {
    phase: Phase,
}

impl RunDisplay {
    /// Nothing shown yet.
    pub fn new() -> RunDisplay {
        RunDisplay { phase: Phase::Idle }
    }

    /// Shows `e`.
    pub fn show(&mut self, e: Event) {
        match e {
            Event::Line(l) => self.above(|| outln!("{l}")),
            Event::Trace(t) => self.above(|| errln!("{t}")),
            Event::Selfplay { games, progress } => {
                self.phase = Phase::Selfplay(SelfplayBar::start(games, progress));
            }
            Event::Training { steps } => {
                self.phase =
                    Phase::Training(bar(steps, "{bar:30} step {pos}/{len}  {msg}  [{elapsed_precise}]"));
            }
            Event::Train(p) => match (&self.phase, p) {
                (Phase::Training(b), Progress::Logged(l)) => {
                    b.set_position(l.step);
                    b.set_message(format!(
                        "loss {:.3}, {:.0} samples/s",
                        l.get("loss/total").unwrap_or(f64::NAN),
                        l.samples_per_sec
                    ));
                }
                (Phase::Training(b), Progress::Started { step, .. }) => {
                    b.set_position(*step);
                    b.suspend(|| print_train(p));
                }
                _ => self.above(|| print_train(p)),
            },
            Event::Match { games, side } => {
                let b = bar(u64::from(games), "{bar:30} {pos}/{len} games  {msg}  [{elapsed_precise}]");
                self.phase = Phase::Match(b, side);
            }
            Event::Game { done, results: Wdl { wins, draws, losses } } => {
                if let Phase::Match(b, side) = &self.phase {
                    b.set_position(u64::from(done));
                    b.set_message(format!("{side} {wins}-{draws}-{losses}"));
                }
            }
            Event::Done => match std::mem::replace(&mut self.phase, Phase::Idle) {
                Phase::Selfplay(s) => s.finish(),
                Phase::Training(b) | Phase::Match(b, _) => b.finish_and_clear(),
                Phase::Idle => {}
            },
        }
    }

    /// Runs `print` with the bar in flight, if any, out of the way.
    fn above(&self, print: impl FnOnce()) {
        match &self.phase {
            Phase::Training(b) | Phase::Match(b, _) => b.suspend(print),
            Phase::Selfplay(s) => s.bar.suspend(print),
            Phase::Idle => print(),
        }
    }
}
