//! A run of `hane loop`: generations of self-play, training, a gating match and a komi estimate, with
//! the newest accepted net driving the next generation's self-play.
//!
//! A run lives in one folder:
//!
//! ```text
//! RUN/config.toml                 the config the run started with
//! RUN/state.json                  what is finished (see `state`)
//! RUN/selfplay/gen-NNN/           shards/ and sgf/ of generation NNN's games
//! RUN/selfplay/gen-NNN-SxS/       ... on another board size S of a run on several
//! RUN/train/                      the trainer's checkpoints/ and tensorboard/ (one run, all generations)
//! RUN/models/gen-NNN.safetensors  the candidate trained in generation NNN
//! RUN/models/mean-*.safetensors   the book's net where it is a mean of several (`book_average_nets`)
//! RUN/gates/gen-NNN.json          its gating games, one by one
//! RUN/summary.json, *.png         the per-generation summary and its plots
//! ```
//!
//! Every file is written under a temporary name and renamed, and each phase resumes: self-play
//! keeps finished games (one file per game, or packed: `[selfplay] pack_rows`), the trainer restarts from its newest checkpoint,
//! a gating match from its last finished game. Interrupted (Ctrl-C or SIGKILL), the same
//! command continues the same run and loses at most the games and steps in flight. A
//! [`Stop`] request ends the run at the next safe point of the phase in flight (self-play
//! drops its games in flight, training finishes its step and checkpoints it, a match
//! abandons its game before the next move, the komi estimate before the next evaluation)
//! with [`Error::Interrupted`].
//!
//! Generation `g` plays its games at komi drawn around the newest estimate (a share from the
//! board's whole range, see `hane_selfplay::komi`), then trains the one trainer on the window
//! of all shards so far over its own learning-rate cycle, for `[loop] samples_per_row` draws
//! of each new row (or `[train] steps`). The candidate then plays the generation's player
//! (the best so far, at first hane's search without a net) at the generation's centre komi
//! and is accepted with a score of at least `gate_threshold`, or at once when ungated
//! (`gate_games = 0`). The komi estimate reads the best net, or the newest candidate while
//! none has been accepted, so a run whose candidates keep failing still estimates.
//!
//! With `[train] sizes`, one net learns several board sizes: each generation plays on each
//! of them too ([`ConfigFile::size_plan`]: its share of the generation's board points), every
//! size centred on its own newest estimate, trains on all of them, and estimates komi on each.
//! Gates and anchors play on the rules' own size.

mod anchors;
mod matches;
mod report;
mod state;
mod timing;

pub use anchors::{label, Anchor};
pub use state::{
    AnchorMatch, GateDone, Generation, OtherSize, RunState, SelfplayDone, TrainDone, BASELINE, FIRST_NET,
    LADDER,
};
pub use timing::{Phase, Spent, Timing};

use crate::config::{self, ConfigFile, SizePlan};
use crate::judge::{judge_run, JudgeEvent, JudgeSettings};
use crate::komi::{komi_report, KomiProgress, KomiReport, KomiSettings, Method};
use crate::players::{model_factory, net, BoxedEvaluator};
use crate::{write_file, write_json, Error, Interrupt, Stop};
use hane_engine::Rules;
use hane_eval::arena::MatchSettings;
use hane_eval::elo::Wdl;
use hane_eval::gate::{Decision, WinRateGate};
use hane_eval::referee::SearchPlayer;
use hane_host::read;
use hane_mcts::{Precision, UniformEvaluator};
use hane_selfplay::server::EvaluatorFactory;
use matches::MatchFile;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use timing::Clock;

/// What a run tells its caller while it works, in order.
#[derive(Debug)]
pub enum Event<'a> {
    /// A line for the user: a phase begins or ends, a result.
    Line(String),
    /// A reading of the komi estimate (the searches' win rates), for a log.
    Trace(&'a str),
    /// Self-play of `games` games began; `progress` counts while it runs, until [`Event::Done`].
    Selfplay {
        /// Games of the generation.
        games: u64,
        /// Counters updated by the workers.
        progress: Arc<hane_selfplay::Progress>,
    },
    /// Training up to step `steps` began; [`Event::Train`] follows until [`Event::Done`].
    Training {
        /// The step it ends at.
        steps: u64,
    },
    /// The trainer's own report.
    Train(&'a hane_train::Progress),
    /// A match of `games` games began; [`Event::Game`] follows each game until [`Event::Done`].
    Match {
        /// Games of the match (at most).
        games: u32,
        /// Who the results are of: "candidate" in a gate, "net" against an anchor.
        side: &'static str,
    },
    /// A game of the match in flight ended.
    Game {
        /// Games finished so far.
        done: u32,
        /// The results so far, of the match's first player.
        results: Wdl,
    },
    /// The phase with a progress display (self-play, training, a match) ended.
    Done,
}

/// A `hane loop` run: its config, rules, folder and what it has finished.
#[derive(Debug)]
pub struct Run {
    cfg: ConfigFile,
    rules: Rules,
    dir: PathBuf,
    state: RunState,
}

/// The embedded default config.
const DEFAULT_CONFIG: &str = include_str!("../../../../configs/ttakji-5x5.toml");

impl Run {
    /// Opens the run in `dir` (created if new) with the config in `config`, or the run's own
    /// copy, or the embedded default; `seed` replaces the config's run seed. A new
    /// run keeps a copy of its config; a rerun with a different one is refused (only `[loop]
    /// generations` and `judge_positions` may change), as is a folder holding a run of other
    /// rules.
    pub fn open(dir: &Path, config: Option<&Path>, seed: Option<u64>) -> Result<Run, Error> {
        let copy = dir.join("config.toml");
        let text = match config {
            Some(p) => config::read_text(p)?,
            None if copy.exists() => config::read_copy(&copy)?,
            None => DEFAULT_CONFIG.to_string(),
        };
        let text = match seed {
            Some(seed) => config::with_seed(&text, seed).map_err(|e| Error::Input(e.0))?,
            None => text,
        };
        let name = config.map_or("the embedded default config".to_string(), |p| p.display().to_string());
        let cfg = config::parse(&text).map_err(|e| Error::Input(format!("config {name}: {e}")))?;
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        if copy.exists() {
            let old = config::read_copy(&copy)?;
            let mut before =
                config::parse(&old).map_err(|e| Error::Input(format!("{}: {e}", copy.display())))?;
            before.pipeline.generations = cfg.pipeline.generations;
            before.pipeline.judge_positions = cfg.pipeline.judge_positions;
            before.pipeline.book_expansions = cfg.pipeline.book_expansions;
            before.pipeline.book_visits = cfg.pipeline.book_visits;
            before.pipeline.book_refine_visits = cfg.pipeline.book_refine_visits;
            before.pipeline.book_komi = cfg.pipeline.book_komi;
            before.pipeline.book_average_nets = cfg.pipeline.book_average_nets;
            before.pipeline.book_cross_check = cfg.pipeline.book_cross_check;
            if before != cfg {
                return Err(Error::Input(format!(
                    "{} was started with a different config ({}); only [loop] generations, \
                     judge_positions and the book_ keys may change",
                    dir.display(),
                    copy.display()
                )));
            }
        }
        write_file(&copy, text.as_bytes())?;
        let rules = cfg.selfplay.played_rules();
        let state = RunState::load(dir, &rules.to_string())?;
        Ok(Run { cfg, rules, dir: dir.to_path_buf(), state })
    }

    /// The run's config.
    pub fn config(&self) -> &ConfigFile {
        &self.cfg
    }

    /// What the run has finished.
    pub fn state(&self) -> &RunState {
        &self.state
    }

    /// Runs the generations not yet finished, telling `on` what happens; `stop` ends the run
    /// at the next safe point with [`Error::Interrupted`], and a rerun continues it.
    pub fn run(&mut self, stop: &Stop, on: &mut dyn FnMut(Event)) -> Result<(), Error> {
        let cx = Ctx { cfg: &self.cfg, rules: self.rules, dir: &self.dir, stop };
        let (cfg, rules, run_dir, st) = (cx.cfg, cx.rules, cx.dir, &mut self.state);
        let games: Vec<String> = cfg
            .size_plan(&rules)
            .iter()
            .map(|p| format!("{} games{}", p.games, on_board(&p.rules, &rules)))
            .collect();
        on(Event::Line(format!(
            "hane loop: {rules}, {} generations of {}, {} training steps each, nets playing in {}, into {}",
            cfg.pipeline.generations,
            games.join(" and "),
            cfg.train.steps,
            cfg.selfplay.precision,
            run_dir.display()
        )));
        for g in 0..cfg.pipeline.generations {
            stop.check()?;
            generation(&cx, st, g, on)?;
            let every = cfg.pipeline.book_every;
            if every > 0 && (g + 1) % every == 0 && g + 1 < cfg.pipeline.generations {
                let starts = starts_file(run_dir, g);
                if !starts.exists() {
                    if let Some(book) = timed(st, run_dir, Phase::Book, |st| book_phase(&cx, st, on))? {
                        let positions = crate::book::start_positions(&book, 3.0);
                        write_json(&starts, &positions)?;
                        on(Event::Line(format!(
                            "book: {} start positions for the next generations' self-play in {}",
                            positions.positions.len(),
                            starts.display()
                        )));
                    }
                }
            }
        }
        report::write(st, run_dir)?;
        on(Event::Line(report::final_lines(st, run_dir)));
        if cfg.pipeline.book_expansions > 0 {
            timed(st, run_dir, Phase::Book, |st| book_phase(&cx, st, on))?;
        }
        let positions = cfg.pipeline.judge_positions as usize;
        if positions > 0 {
            on(Event::Line(format!("== the exact judge: {positions} positions from the run's self-play")));
            let settings = JudgeSettings::with_defaults(positions, cfg.seed);
            let mut report = |e: JudgeEvent| {
                if e.worth_a_line() {
                    on(Event::Line(e.to_string()));
                }
            };
            timed(st, run_dir, Phase::Judge, |_| judge_run(run_dir, &settings, stop, &mut report))?;
            let scores = run_dir.join("judge/scores.json");
            let plots = ["judge.png", "judge-points.png"].map(|f| run_dir.join(f).display().to_string());
            on(Event::Line(format!("judge: {}; plots: {}", scores.display(), plots.join(", "))));
        }
        on(Event::Line(st.time.line()));
        Ok(())
    }
}

/// Runs `phase` (`run`, given the state as it is), adds its time to the run's record and
/// saves it; an interrupted run's included, so that a run stopped and continued accounts for
/// every part.
fn timed<T>(
    st: &mut RunState,
    dir: &Path,
    phase: Phase,
    run: impl FnOnce(&RunState) -> Result<T, Error>,
) -> Result<T, Error> {
    let clock = Clock::start();
    let r = run(st);
    st.time.add(phase, clock.spent());
    let saved = st.save(dir);
    let value = r?;
    saved?;
    Ok(value)
}

/// The book phase: a minimax opening book with the best net at the book's komi, grown to
/// `book_expansions`, into `book/` (the book, its SGF tree and its report, named by net and
/// komi), reported beside the last generation's curve estimate. Where the config leaves the
/// komi to the curve and the book's own margin rounds to another komi, a second book is
/// built there ([`crate::book::own_komi`]) and is the one reported: a book reads the margin
/// best at the komi it finds fair. With `book_cross_check`, the book at the neighbouring komi
/// the margin leans to is built too, and the verdict asks that it round back.
fn book_phase(cx: &Ctx, st: &RunState, on: &mut dyn FnMut(Event)) -> Result<Option<hane_book::Book>, Error> {
    let n = st.generations.len();
    let Some(best) = st.komi_net(n.saturating_sub(1)) else {
        on(Event::Line("book: no net trained yet".into()));
        return Ok(None);
    };
    let best = book_net(cx, st, best, on)?;
    let last_komi = st.generations.iter().rev().find_map(|g| g.komi.as_ref());
    let curve = last_komi.map(|k| k.estimate.clone());
    let fixed = cx.cfg.pipeline.book_komi;
    let komi = fixed.or(curve.as_ref().map(|c| c.fair)).unwrap_or(cx.rules.komi.as_f64());
    let cross = cx.cfg.pipeline.book_cross_check;
    let ((book, report), neighbour) =
        crate::book::fair_books(komi, fixed.is_some(), cross, &mut |k, why| {
            if let Some(why) = why {
                on(Event::Line(format!("book: {why}")));
            }
            book_at(cx, &best, k, on)
        })?;
    on(Event::Line(crate::book::verdict(&report, curve.as_ref(), neighbour.as_ref())));
    if let Some(k) = last_komi {
        let png = crate::komi::chart_with_book(k, &report.fair).png();
        write_file(&cx.dir.join("komi.png"), &png)?;
    }
    Ok(Some(book))
}

/// The net the book reads: `best`, or with `book_average_nets` above 1 the element-wise mean
/// of the last accepted nets, written once into `models/` and named for the first and last.
fn book_net(cx: &Ctx, st: &RunState, best: String, on: &mut dyn FnMut(Event)) -> Result<String, Error> {
    let nets = st.accepted_nets(st.generations.len(), cx.cfg.pipeline.book_average_nets as usize);
    let (Some(first), Some(last)) = (nets.first(), nets.last()) else { return Ok(best) };
    if nets.len() < 2 || *last != best {
        return Ok(best);
    }
    let stem = |net: &str| net.trim_start_matches("models/").trim_end_matches(".safetensors").to_string();
    let mean = format!("models/mean-{}-to-{}.safetensors", stem(first), stem(last));
    let out = cx.dir.join(&mean);
    if !out.exists() {
        let inputs: Vec<PathBuf> = nets.iter().map(|n| cx.dir.join(n)).collect();
        hane_nn::checkpoint::write_mean(&out, &inputs)
            .map_err(|source| Error::Net { path: out.clone(), source })?;
    }
    on(Event::Line(format!("book: its net is {mean}, the mean of the last {} accepted nets", nets.len())));
    Ok(mean)
}

/// The book of net `best` at `komi`, built or continued, its report printed.
fn book_at(
    cx: &Ctx,
    best: &str,
    komi: f64,
    on: &mut dyn FnMut(Event),
) -> Result<(hane_book::Book, crate::book::BookReport), Error> {
    let (cfg, run_dir) = (&cx.cfg.pipeline, cx.dir);
    let mut rules = cx.rules;
    rules.komi = hane_engine::Komi::from_f64(komi)
        .ok_or_else(|| Error::Input(format!("book komi {komi}: not a multiple of 0.5")))?;
    let stem = format!("{}-komi{komi}", best.trim_end_matches(".safetensors").replace('/', "-"));
    let dir = run_dir.join("book");
    let mut settings = hane_book::Settings::for_board(rules.size.into()).searching(cfg.book_visits);
    settings.solve_from_ply = crate::book::solve_from_ply(&rules);
    settings.refine_visits = cfg.book_refine_visits;
    settings.seed = cx.cfg.seed;
    // As many expansions at once as self-play has workers: the generations are done.
    settings.threads = cx.cfg.selfplay.threads.max(1);
    let job = crate::book::BookJob {
        rules,
        file: dir.join(format!("{stem}.book")),
        sgf: Some(dir.join(format!("{stem}.sgf"))),
        json: Some(dir.join(format!("{stem}.json"))),
        expansions: cfg.book_expansions.into(),
        settings,
    };
    on(Event::Line(format!("== the book: {} expansions with {best} at komi {komi}", cfg.book_expansions)));
    let path = run_dir.join(best);
    let (factory, net) = crate::book::net_factory(&path, &rules, cx.cfg.selfplay.precision)?;
    let every = (cfg.book_expansions / 20).max(1) as u64;
    let (book, report) = crate::book::build(&job, &factory, &net, cx.stop, &mut |e| match e {
        hane_book::Event::Expanded(s) if s.expansions % every == 0 => on(Event::Line(format!("book: {s}"))),
        hane_book::Event::Refined(r) => on(Event::Line(format!("book: {r}"))),
        hane_book::Event::Continuing { nodes, expansions } => {
            on(Event::Line(format!("book: continuing ({nodes} nodes, {expansions} expansions)")))
        }
        _ => {}
    })?;
    on(Event::Line(report.lines()));
    Ok((book, report))
}

/// The start positions of the book made after generation `g`.
fn starts_file(run_dir: &Path, g: u32) -> PathBuf {
    run_dir.join("book").join(format!("starts-after-{}.json", gen_name(g)))
}

/// What every phase of a run works with.
struct Ctx<'a> {
    cfg: &'a ConfigFile,
    rules: Rules,
    /// The run folder.
    dir: &'a Path,
    stop: &'a Stop,
}

/// Runs what generation `g` has not finished.
fn generation(cx: &Ctx, st: &mut RunState, g: u32, on: &mut dyn FnMut(Event)) -> Result<(), Error> {
    let (cfg, rules, run_dir) = (cx.cfg, cx.rules, cx.dir);
    let i = g as usize;
    let plan = cfg.size_plan(&rules);
    if i == st.generations.len() {
        let others: Vec<u8> = plan[1..].iter().map(|p| p.rules.size).collect();
        st.generations.push(Generation::new(g, st.best_after(i), &others));
        st.save(run_dir)?;
    }
    let anchor_settings = anchor_settings(cfg);
    let anchors_due = |st: &RunState| {
        if !anchor_settings.due(g, cfg.pipeline.generations) {
            return Vec::new();
        }
        let first = st.generations[0].candidate().map(str::to_string);
        let rung = st.generations[..i].iter().rev().find_map(|g| g.anchors.first()).map(|m| m.net.clone());
        anchor_settings.anchors(&rules, first.as_deref(), rung.as_deref(), &st.best_after(i + 1))
    };
    let due: Vec<String> = anchors_due(st).iter().map(Anchor::name).collect();
    if st.generations[i].finished(cfg.pipeline.komi_visits > 0, &due) {
        return Ok(());
    }
    let player = st.generations[i].player.clone();
    if st.generations[i].selfplay.is_none() {
        on(Event::Line(format!("== generation {g}: self-play by {player}")));
        let komi = centre_komi(st.generations[..i].iter().map(|g| g.komi.as_ref()), &rules);
        let done = timed(st, run_dir, Phase::SelfPlay, |_| selfplay(cx, g, &player, &plan[0], komi, on))?;
        st.generations[i].selfplay = Some(done);
        st.save(run_dir)?;
    }
    for (j, p) in plan[1..].iter().enumerate() {
        if st.generations[i].others[j].selfplay.is_some() {
            continue;
        }
        let size = p.rules.size;
        on(Event::Line(format!("== generation {g}: self-play{} by {player}", on_board(&p.rules, &rules))));
        let komi = centre_komi(
            st.generations[..i].iter().map(|g| other(g, size).and_then(|o| o.komi.as_ref())),
            &p.rules,
        );
        let done = timed(st, run_dir, Phase::SelfPlay, |_| selfplay(cx, g, &player, p, komi, on))?;
        st.generations[i].others[j].selfplay = Some(done);
        st.save(run_dir)?;
    }
    if st.generations[i].train.is_none() {
        on(Event::Line(format!("== generation {g}: training")));
        let from = st.generations[..i].iter().rev().find_map(|g| g.train.as_ref()).map_or(0, |t| t.step);
        let gen = &st.generations[i];
        let rows = gen
            .selfplay
            .iter()
            .chain(gen.others.iter().filter_map(|o| o.selfplay.as_ref()))
            .map(|s| s.rows)
            .sum();
        st.generations[i].train =
            Some(timed(st, run_dir, Phase::Training, |_| train(cx, g, from, rows, on))?);
        st.save(run_dir)?;
    }
    if st.generations[i].gate.is_none() {
        let candidate = st.generations[i].candidate().unwrap_or_default().to_string();
        let komi = st.generations[i].selfplay.as_ref().and_then(|s| s.komi);
        st.generations[i].gate = Some(if cfg.pipeline.gate_games == 0 {
            on(Event::Line(format!("== generation {g}: {candidate} accepted (ungated)")));
            GateDone { results: Wdl::default(), accepted: true, komi: None }
        } else {
            on(Event::Line(format!("== generation {g}: gating {candidate} against {player}")));
            let players = [candidate.as_str(), player.as_str()];
            timed(st, run_dir, Phase::Gate, |_| gate(cx, komi, g, players, on))?
        });
        st.save(run_dir)?;
    }
    let komi_done = st.generations[i].komi.is_some() || st.generations[i].komi_error.is_some();
    if cfg.pipeline.komi_visits > 0 && !komi_done {
        let best = st.komi_net(i);
        (st.generations[i].komi, st.generations[i].komi_error) =
            timed(st, run_dir, Phase::Komi, |_| komi_estimate(cx, &rules, best, g, on))?;
        st.save(run_dir)?;
    }
    for (j, p) in plan[1..].iter().enumerate() {
        let o = &st.generations[i].others[j];
        if cfg.pipeline.komi_visits == 0 || o.komi.is_some() || o.komi_error.is_some() {
            continue;
        }
        let best = st.komi_net(i);
        let (komi, error) = timed(st, run_dir, Phase::Komi, |_| komi_estimate(cx, &p.rules, best, g, on))?;
        (st.generations[i].others[j].komi, st.generations[i].others[j].komi_error) = (komi, error);
        st.save(run_dir)?;
    }
    let best = st.best_after(i + 1);
    for anchor in anchors_due(st) {
        let name = anchor.name();
        if st.generations[i].played(&name) {
            continue;
        }
        on(Event::Line(format!("== generation {g}: {best} against the anchor {name}")));
        let dir = run_dir.join("anchors");
        let file = dir.join(format!("{}-{}.json", gen_name(g), name.replace(':', "-")));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        on(Event::Match { games: cfg.pipeline.anchor_games, side: "net" });
        let m = timed(st, run_dir, Phase::Anchors, |_| {
            let m = anchors::play(cx, &anchor_settings, (&best, &anchor), &file, &mut |n, w| {
                on(Event::Game { done: n, results: *w })
            });
            on(Event::Done);
            m
        })?;
        on(Event::Line(format!(
            "anchor {name}: net {}-{}-{} (W-D-L) at komi {}",
            m.results.wins, m.results.draws, m.results.losses, m.komi
        )));
        st.generations[i].anchors.push(m);
        st.save(run_dir)?;
    }
    report::write(st, run_dir)?;
    on(Event::Line(report::generation_line(st, i)));
    Ok(())
}

/// The anchor matches' settings from the config.
fn anchor_settings(cfg: &ConfigFile) -> anchors::AnchorSettings {
    let lc = &cfg.pipeline;
    anchors::AnchorSettings {
        games: lc.anchor_games,
        every: lc.anchor_every,
        visits: lc.anchor_visits,
        gnugo_level: lc.anchor_gnugo_level,
        opening_turns: lc.anchor_opening_turns,
        komi: lc.anchor_komi,
        seed: cfg.seed ^ 0x616e_6368_6f72,
        // As many games at once as self-play has workers.
        threads: cfg.selfplay.threads,
    }
}

fn gen_name(g: u32) -> String {
    format!("gen-{g:03}")
}

/// The folder of generation `g`'s self-play under `rules`: `gen-NNN` on the run's own board,
/// `gen-NNN-SxS` on another.
fn selfplay_dir(cx: &Ctx, g: u32, rules: &Rules) -> PathBuf {
    let name = if rules.size == cx.rules.size {
        gen_name(g)
    } else {
        format!("{}-{1}x{1}", gen_name(g), rules.size)
    };
    cx.dir.join("selfplay").join(name)
}

/// How lines name the board of `rules` in a run of `own`: nothing for the run's own board,
/// " on SxS" for another.
fn on_board(rules: &Rules, own: &Rules) -> String {
    if rules.size == own.size {
        String::new()
    } else {
        format!(" on {0}x{0}", rules.size)
    }
}

/// What generation `gen` did on the other board of side `size`, if it played one.
fn other(gen: &Generation, size: u8) -> Option<&OtherSize> {
    gen.others.iter().find(|o| o.size == size)
}

/// The komi estimate of generation `g` under `rules` with the net `best` (`None`: none
/// trained yet), as the estimate or the reason there is none; only an interruption or a
/// failure to read the net is an error.
fn komi_estimate(
    cx: &Ctx,
    rules: &Rules,
    best: Option<String>,
    g: u32,
    on: &mut dyn FnMut(Event),
) -> Result<(Option<KomiReport>, Option<String>), Error> {
    let Some(best) = best else { return Ok((None, Some("no net trained yet".into()))) };
    let board = on_board(rules, &cx.rules);
    on(Event::Line(format!("== generation {g}: komi estimate{board} with {best}")));
    let method = Method::Net(cx.dir.join(&best), cx.cfg.selfplay.precision);
    let settings = KomiSettings {
        visits: cx.cfg.pipeline.komi_visits,
        sweep_games: 0,
        sweep_visits: 0,
        seed: u64::from(g),
        threads: cx.cfg.selfplay.threads,
    };
    let progress = &mut KomiProgress::default();
    match komi_report(rules, &method, settings, cx.stop, progress, &mut |l| on(Event::Trace(l))) {
        Ok(r) => Ok((Some(r), None)),
        Err(Error::Komi(e)) => {
            on(Event::Line(format!("komi{board}: no estimate: {e}")));
            Ok((None, Some(e)))
        }
        Err(e) => Err(e),
    }
}

/// The komi a generation's self-play is centred on: the newest of the estimates of the
/// generations before it (`before`, oldest first), or `None` (the config's komi) before the
/// first. An estimate is kept within the range wide komi draws cover (the board's area and
/// one domain step), which the net has been trained on, and rounded into the rule set's
/// domain.
fn centre_komi<'a>(
    before: impl DoubleEndedIterator<Item = Option<&'a KomiReport>>,
    rules: &Rules,
) -> Option<f64> {
    let range = hane_selfplay::komi::wide_range(rules);
    let (lo, hi) = (range[0].as_f64(), range[range.len() - 1].as_f64());
    before
        .rev()
        .flatten()
        .next()
        .map(|k| hane_engine::KomiDomain::of(rules).nearest(k.estimate.crossing.clamp(lo, hi)).as_f64())
}

/// Rows in the shards under `dir` as their metadata says, as the trainer's window counts
/// them (0 for a shard whose metadata is unreadable, which the trainer skips too).
fn rows_in(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "npz"))
        .map(|e| hane_data::shard::read_meta(&e.path()).map_or(0, |m| m.rows as u64))
        .sum()
}

/// Self-play of generation `g` by `player` on the board of `plan`. With a komi estimate from
/// an earlier generation (on that board), games draw their komi around it instead of the
/// config's (as KataGo's self-play centres komi on the net's fair komi), so the net learns
/// the positions that matter for the estimate; `[selfplay] komi_wide` of them draw from the
/// board's whole range, so it learns the rest of the curve too.
fn selfplay(
    cx: &Ctx,
    g: u32,
    player: &str,
    plan: &SizePlan,
    komi: Option<f64>,
    on: &mut dyn FnMut(Event),
) -> Result<SelfplayDone, Error> {
    let (cfg, rules, run_dir) = (cx.cfg, &plan.rules, cx.dir);
    let mut sp = cfg.selfplay.clone();
    sp.seed = cfg.seed.wrapping_add(1_000_003 * u64::from(g));
    if g < cfg.pipeline.exploration_cut_from {
        sp.exploration_cut = 0.0;
    }
    sp.rules = *rules;
    if rules.size != cx.rules.size {
        sp.seed ^= u64::from(rules.size) << 48;
    }
    if let Some(k) = komi.and_then(hane_engine::Komi::from_f64) {
        sp.rules.komi = k;
        on(Event::Line(format!("self-play komi centred on the latest estimate, {k}")));
    }
    // The newest book's positions before this generation, if the run makes books.
    if cfg.pipeline.book_every > 0 && cfg.pipeline.book_start_prob > 0.0 && rules.size == cx.rules.size {
        if let Some(path) = (0..g).rev().map(|k| starts_file(run_dir, k)).find(|p| p.exists()) {
            on(Event::Line(format!(
                "self-play: {} of the games from the book's positions in {}",
                cfg.pipeline.book_start_prob,
                path.display()
            )));
            sp.start_positions = Some(path);
            sp.start_prob = cfg.pipeline.book_start_prob as f32;
        }
    }
    let fac: EvaluatorFactory = if player == BASELINE {
        sp.without_search_targets();
        Arc::new(|| Box::new(UniformEvaluator))
    } else {
        model_factory(&run_dir.join(player), *rules, sp.batch_size, sp.precision)?
    };
    let out = selfplay_dir(cx, g, rules);
    let games = plan.games;
    let progress = Arc::new(hane_selfplay::Progress::default());
    on(Event::Selfplay { games, progress: progress.clone() });
    let s = hane_selfplay::run(&sp, games, &out, fac, player, progress, cx.stop.clone());
    on(Event::Done);
    let s = s.map_err(Error::Selfplay)?;
    if s.interrupted {
        return Err(Error::Interrupted);
    }
    on(Event::Line(format!(
        "self-play: {} games ({} from an earlier run) and {} side games, {} rows in {:.1}s; B/W/draw {}/{}/{}",
        s.games + s.resumed,
        s.resumed,
        s.forks,
        s.rows,
        s.seconds,
        s.results[0],
        s.results[1],
        s.results[2]
    )));
    let rows = rows_in(&out.join("shards"));
    Ok(SelfplayDone { games: s.games + s.resumed, results: s.results, seconds: s.seconds, komi, rows })
}

/// The training steps of a generation whose games wrote `rows` rows: with `[loop]
/// samples_per_row`, enough for each new row to be drawn that many times on average
/// (KataGo keeps this near 4 over a row's life in the window), else `[train] steps`.
fn generation_steps(cfg: &ConfigFile, rows: u64) -> u64 {
    let per_row = cfg.pipeline.samples_per_row;
    if per_row > 0.0 && rows > 0 {
        ((per_row * rows as f64) / cfg.train.batch_size as f64).ceil().max(1.0) as u64
    } else {
        cfg.train.steps
    }
}

/// Trains generation `g` from step `from` (where the one before ended) over its own
/// learning-rate cycle, and copies the checkpoint to `models/`.
fn train(cx: &Ctx, g: u32, from: u64, rows: u64, on: &mut dyn FnMut(Event)) -> Result<TrainDone, Error> {
    let (cfg, run_dir) = (cx.cfg, cx.dir);
    let mut tc = cfg.train.clone();
    tc.cycle_start = from;
    tc.steps = from + generation_steps(cfg, rows);
    // The run's seed reaches the trainer too (its first weights, shuffling and symmetries).
    tc.seed ^= cfg.seed << 32;
    let (data, out) = (run_dir.join("selfplay"), run_dir.join("train"));
    on(Event::Training { steps: tc.steps });
    let s = hane_train::train(&tc, &data, &out, cx.stop.clone(), &mut |p| on(Event::Train(p)));
    on(Event::Done);
    let s = s?;
    if s.interrupted {
        return Err(Error::Interrupted);
    }
    let missing = || std::io::Error::new(std::io::ErrorKind::NotFound, "the trainer wrote no checkpoint");
    let ckpt = s.checkpoint.ok_or_else(|| Error::io(&out, missing()))?;
    let candidate = format!("models/{}.safetensors", gen_name(g));
    let bytes = read::read(&ckpt, read::CHECKPOINT)?;
    let models = run_dir.join("models");
    std::fs::create_dir_all(&models).map_err(|e| Error::io(&models, e))?;
    write_file(&run_dir.join(&candidate), &bytes)?;
    let metrics =
        s.last.map(|l| l.metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect()).unwrap_or_default();
    on(Event::Line(format!("training: step {} in {:.1}s; candidate {candidate}", s.step, s.seconds)));
    Ok(TrainDone { step: s.step, candidate, metrics, seconds: s.seconds })
}

/// The search's evaluator of `player` (a net computing in `precision`, or the baseline).
fn search_evaluator(
    run_dir: &Path,
    player: &str,
    rules: &Rules,
    precision: Precision,
) -> Result<BoxedEvaluator, Error> {
    if player == BASELINE {
        Ok(Box::new(UniformEvaluator))
    } else {
        net(&run_dir.join(player), rules, precision)
    }
}

/// The gating match of generation `g`, the candidate against the generation's player
/// (`players`), resumed from `gates/gen-NNN.json`, at `komi` (the komi its self-play was
/// centred on; `None`: the config's). At a komi far from fair, the gate would mostly measure
/// who wins with the colour that cannot lose.
fn gate(
    cx: &Ctx,
    komi: Option<f64>,
    g: u32,
    [candidate, player]: [&str; 2],
    on: &mut dyn FnMut(Event),
) -> Result<GateDone, Error> {
    let (cfg, run_dir) = (cx.cfg, cx.dir);
    let lc = &cfg.pipeline;
    let mut rules = cx.rules;
    if let Some(k) = komi.and_then(hane_engine::Komi::from_f64) {
        rules.komi = k;
    }
    let rules = &rules;
    let dir = run_dir.join("gates");
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
    let path = dir.join(format!("{}.json", gen_name(g)));
    let visits = lc.gate_visits;
    let seed = cfg.seed.wrapping_add(u64::from(g) << 20);
    let mut cand = SearchPlayer {
        evaluator: search_evaluator(run_dir, candidate, rules, cx.cfg.selfplay.precision)?,
        visits,
        seed,
        label: candidate.to_string(),
    };
    let mut best = SearchPlayer {
        evaluator: search_evaluator(run_dir, player, rules, cx.cfg.selfplay.precision)?,
        visits,
        seed: seed ^ 1,
        label: player.to_string(),
    };
    let settings = MatchSettings { games: lc.gate_games, opening_turns: lc.gate_opening_turns, seed };
    let rule = WinRateGate { games: lc.gate_games, threshold: lc.gate_threshold };
    on(Event::Match { games: lc.gate_games, side: "candidate" });
    let m = MatchFile { rules, settings: &settings, file: &path, stop: cx.stop };
    let w = matches::play_resumable(
        &m,
        (&mut cand, &mut best),
        &mut |w| rule.decide(w) == Decision::Continue,
        &mut |n, w| on(Event::Game { done: n, results: *w }),
    );
    on(Event::Done);
    let w = w?;
    let accepted = rule.decide(w) == Decision::Accept;
    on(Event::Line(format!(
        "gate: candidate {}-{}-{} (W-D-L) in {} games: {}",
        w.wins,
        w.draws,
        w.losses,
        w.games(),
        if accepted { "accepted" } else { "rejected" }
    )));
    Ok(GateDone { results: w, accepted, komi })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generation_steps_follow_the_new_rows() {
        let mut cfg =
            config::parse("[train]\nbatch_size = 100\nsteps = 7\n[loop]\nsamples_per_row = 4.0\n").unwrap();
        assert_eq!(generation_steps(&cfg, 1000), 40);
        assert_eq!(generation_steps(&cfg, 1001), 41);
        assert_eq!(generation_steps(&cfg, 0), 7, "no rows counted: the fixed steps");
        cfg.pipeline.samples_per_row = 0.0;
        assert_eq!(generation_steps(&cfg, 1000), 7);
    }

    #[test]
    fn self_play_is_centred_on_the_newest_estimate_within_the_board() {
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let centre = |gens: &[Generation]| centre_komi(gens.iter().map(|g| g.komi.as_ref()), &rules);
        assert_eq!(centre(&[]), None);
        let estimate = |crossing: f64| {
            let mut g = Generation::new(0, BASELINE.into(), &[]);
            let search = hane_eval::komi::KomiSearch::for_rules(&rules);
            let mut ev = |k: hane_engine::Komi| hane_eval::komi::Eval {
                lead: crossing - k.as_f64(),
                win: 1.0 / (1.0 + ((k.as_f64() - crossing) / 2.0).exp()),
            };
            let est = hane_eval::komi::estimate(&search, &mut ev).unwrap();
            g.komi = Some(crate::komi::KomiReport {
                rules: rules.to_string(),
                method: "test".into(),
                visits: 1,
                estimate: est,
                curve: Vec::new(),
                sweep: None,
                seconds: 0.0,
            });
            g
        };
        let gens = [estimate(10.2), estimate(21.8)];
        assert_eq!(centre(&gens), Some(22.0), "the newest, rounded into the domain");
        assert_eq!(centre(&gens[..1]), Some(10.0));
        let no_estimate = Generation { komi: None, ..gens[0].clone() };
        assert_eq!(centre(&[gens[1].clone(), no_estimate]), Some(22.0));
    }
}
