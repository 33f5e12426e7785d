//! `hane loop`: generations of self-play, training, a gating match and a komi estimate, with
//! the newest accepted net driving the next generation's self-play.
//!
//! A run lives in one folder:
//!
//! ```text
//! RUN/config.toml                 the config the run started with
//! RUN/state.json                  what is finished (see `state`)
//! RUN/selfplay/gen-NNN/           shards/ and sgf/ of generation NNN's games
//! RUN/train/                      the trainer's checkpoints/ and tensorboard/ (one run, all generations)
//! RUN/models/gen-NNN.safetensors  the candidate trained in generation NNN
//! RUN/gates/gen-NNN.json          its gating games, one by one
//! RUN/summary.json, *.png         the per-generation summary and its plots
//! ```
//!
//! Every file is written under a temporary name and renamed, and each phase resumes: self-play
//! keeps finished games (one file per game), the trainer restarts from its newest checkpoint,
//! a gating match from its last finished game. Interrupted (Ctrl-C or SIGKILL), the same
//! command continues the same run and loses at most the games and steps in flight. Ctrl-C or
//! SIGTERM stops at the next safe point of the phase in flight (see [`crate::stop`]: self-play
//! drops its games in flight, training finishes its step and checkpoints it, a match
//! abandons its game before the next move, the komi estimate before the next evaluation) and
//! exits with code 130.
//!
//! Generation `g` plays its games at komi drawn around the newest estimate (a share from the
//! board's whole range, see `hane_selfplay::komi`), then trains the one trainer on the window
//! of all shards so far over its own learning-rate cycle, for `[loop] samples_per_row` draws
//! of each new row (or `[train] steps`). The candidate then plays the generation's player
//! (the best so far, at first hane's search without a net) at the generation's centre komi
//! and is accepted with a score of at least `gate_threshold`, or at once when ungated
//! (`gate_games = 0`). The komi estimate reads the best net, or the newest candidate while
//! none has been accepted, so a run whose candidates keep failing still estimates.

mod anchors;
mod matches;
mod report;
mod state;

use crate::config::{self, ConfigFile};
use crate::players::{net, BoxedEvaluator};
use crate::selfplay_cmd::{model_factory, play_with_bar};
use crate::stop::{self, Second, RERUN};
use crate::train_cmd::print_progress;
use crate::Failure;
use hane_data::shard::write_atomic;
use hane_engine::Rules;
use hane_eval::arena::MatchSettings;
use hane_eval::elo::Wdl;
use hane_eval::gate::{Decision, WinRateGate};
use hane_eval::referee::SearchPlayer;
use hane_mcts::UniformEvaluator;
use hane_selfplay::server::EvaluatorFactory;
use indicatif::{ProgressBar, ProgressStyle};
use state::{GateDone, Generation, RunState, SelfplayDone, TrainDone, BASELINE};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Arguments of `hane loop`.
#[derive(clap::Args)]
pub struct Args {
    /// Config file with [selfplay], [train] and [loop] tables (see configs/). Without it, the
    /// embedded default: a quick 5x5 ttakji run (configs/ttakji-5x5.toml).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Run folder; rerunning the same command continues the run.
    #[arg(long)]
    out: PathBuf,
    /// Seed of the run, in place of the config's `[selfplay] seed` (kept in the run's copy of
    /// the config, so a rerun without it continues the same run).
    #[arg(long)]
    seed: Option<u64>,
}

/// The embedded default config.
const DEFAULT_CONFIG: &str = include_str!("../../../../configs/ttakji-5x5.toml");

fn io_failure(path: &Path, e: impl std::fmt::Display) -> Failure {
    Failure { code: 1, message: format!("{}: {e}", path.display()) }
}

/// The config of a run: the one given, or the run's own copy, or the embedded default. A new
/// run keeps a copy; a rerun with a different file is refused.
fn run_config(a: &Args) -> Result<ConfigFile, Failure> {
    let copy = a.out.join("config.toml");
    let text = match &a.config {
        Some(p) => config::read_text(p)?,
        None if copy.exists() => config::read_text(&copy)?,
        None => DEFAULT_CONFIG.to_string(),
    };
    let text = match a.seed {
        Some(seed) => config::with_seed(&text, seed),
        None => text,
    };
    let name =
        a.config.as_ref().map_or("the embedded default config".to_string(), |p| p.display().to_string());
    let cfg = config::parse(&text).map_err(|e| Failure::input(format!("config {name}: {e}")))?;
    std::fs::create_dir_all(&a.out).map_err(|e| io_failure(&a.out, e))?;
    if copy.exists() {
        let old = config::read_text(&copy)?;
        let mut before =
            config::parse(&old).map_err(|e| Failure::input(format!("{}: {e}", copy.display())))?;
        before.pipeline.generations = cfg.pipeline.generations;
        if before != cfg {
            return Err(Failure::input(format!(
                "{} was started with a different config ({}); only [loop] generations may change",
                a.out.display(),
                copy.display()
            )));
        }
    }
    write_atomic(&copy, text.as_bytes()).map_err(|e| io_failure(&copy, e))?;
    Ok(cfg)
}

pub fn run(a: Args) -> Result<(), Failure> {
    let cfg = run_config(&a)?;
    let rules = cfg.selfplay.parsed_rules().map_err(Failure::input)?;
    let st = RunState::load(&a.out, &rules.to_string())?;
    stop::install("at the next safe point of the phase in flight", Second::Wait)?;
    // Every phase reports its stop as its own; the whole run says how to go on.
    generations(&cfg, rules, &a.out, st).map_err(|e| if e.code == 130 { stop::interrupted(RERUN) } else { e })
}

/// The generations of the run in `run_dir` from the state `st`.
fn generations(cfg: &ConfigFile, rules: Rules, run_dir: &Path, mut st: RunState) -> Result<(), Failure> {
    println!(
        "hane loop: {rules}, {} generations of {} games, {} training steps each, into {}",
        cfg.pipeline.generations,
        cfg.pipeline.games,
        cfg.train.steps,
        run_dir.display()
    );
    for g in 0..cfg.pipeline.generations {
        stop::check(RERUN)?;
        let i = g as usize;
        if i == st.generations.len() {
            st.generations.push(Generation::new(g, st.best_after(i)));
            st.save(run_dir)?;
        }
        let anchor_settings = anchor_settings(cfg);
        let anchors_due = |st: &RunState| {
            let first = st.generations[0].candidate().map(str::to_string);
            anchor_settings.anchors(&rules, first.as_deref(), &st.best_after(i + 1))
        };
        let due: Vec<String> = anchors_due(&st).iter().map(anchors::Anchor::name).collect();
        if st.generations[i].finished(cfg.pipeline.komi_visits > 0, &due) {
            continue;
        }
        let player = st.generations[i].player.clone();
        if st.generations[i].selfplay.is_none() {
            println!("== generation {g}: self-play by {player}");
            let komi = centre_komi(&st.generations[..i], &rules);
            let done = selfplay(cfg, &rules, run_dir, g, &player, komi)?;
            st.generations[i].selfplay = Some(done);
            st.save(run_dir)?;
        }
        if st.generations[i].train.is_none() {
            println!("== generation {g}: training");
            let from = st.generations[..i].iter().rev().find_map(|g| g.train.as_ref()).map_or(0, |t| t.step);
            let rows = st.generations[i].selfplay.as_ref().map_or(0, |s| s.rows);
            st.generations[i].train = Some(train(cfg, run_dir, g, from, rows)?);
            st.save(run_dir)?;
        }
        if st.generations[i].gate.is_none() {
            let candidate = st.generations[i].candidate().unwrap_or_default().to_string();
            let komi = st.generations[i].selfplay.as_ref().and_then(|s| s.komi);
            st.generations[i].gate = Some(if cfg.pipeline.gate_games == 0 {
                println!("== generation {g}: {candidate} accepted (ungated)");
                GateDone { results: Wdl::default(), accepted: true, komi: None }
            } else {
                println!("== generation {g}: gating {candidate} against {player}");
                gate(cfg, &rules, komi, run_dir, g, &candidate, &player)?
            });
            st.save(run_dir)?;
        }
        let komi_done = st.generations[i].komi.is_some() || st.generations[i].komi_error.is_some();
        if cfg.pipeline.komi_visits > 0 && !komi_done {
            let best = st.komi_net(i).unwrap_or_default();
            if best.is_empty() {
                st.generations[i].komi_error = Some("no net trained yet".into());
                st.save(run_dir)?;
            } else {
                println!("== generation {g}: komi estimate with {best}");
                let method = crate::komi_cmd::Method::Net(run_dir.join(&best));
                match crate::komi_cmd::komi_report(
                    &rules,
                    &method,
                    cfg.pipeline.komi_visits,
                    0,
                    0,
                    u64::from(g),
                ) {
                    Ok(r) => st.generations[i].komi = Some(r),
                    Err(e) if e.code == 1 => {
                        println!("komi: no estimate: {}", e.message);
                        st.generations[i].komi_error = Some(e.message);
                    }
                    Err(e) => return Err(e),
                }
                st.save(run_dir)?;
            }
        }
        let best = st.best_after(i + 1);
        for anchor in anchors_due(&st) {
            let name = anchor.name();
            if st.generations[i].played(&name) {
                continue;
            }
            println!("== generation {g}: {best} against the anchor {name}");
            let file =
                run_dir.join("anchors").join(format!("{}-{}.json", gen_name(g), name.replace(':', "-")));
            std::fs::create_dir_all(run_dir.join("anchors")).map_err(|e| io_failure(run_dir, e))?;
            let bar = ProgressBar::new(u64::from(cfg.pipeline.anchor_games));
            let m = anchors::play(&anchor_settings, &rules, run_dir, &best, &anchor, &file, &mut |n, w| {
                bar.set_position(u64::from(n));
                bar.set_message(format!("net {}-{}-{}", w.wins, w.draws, w.losses));
            })?;
            bar.finish_and_clear();
            println!(
                "anchor {name}: net {}-{}-{} (W-D-L) at komi {}",
                m.results.wins, m.results.draws, m.results.losses, m.komi
            );
            st.generations[i].anchors.push(m);
            st.save(run_dir)?;
        }
        report::write(&st, run_dir)?;
        println!("{}", report::generation_line(&st, i));
    }
    report::write(&st, run_dir)?;
    println!("{}", report::final_lines(&st, run_dir));
    Ok(())
}

/// The anchor matches' settings from the config.
fn anchor_settings(cfg: &ConfigFile) -> anchors::AnchorSettings {
    let lc = &cfg.pipeline;
    anchors::AnchorSettings {
        games: lc.anchor_games,
        visits: lc.anchor_visits,
        gnugo_level: lc.anchor_gnugo_level,
        opening_turns: lc.anchor_opening_turns,
        komi: lc.anchor_komi,
        seed: cfg.selfplay.seed ^ 0x616e_6368_6f72,
        // As many games at once as self-play has workers.
        threads: cfg.selfplay.threads,
    }
}

fn gen_name(g: u32) -> String {
    format!("gen-{g:03}")
}

/// The komi a generation's self-play is centred on: the newest estimate of the generations
/// before it, or `None` (the config's komi) before the first. An estimate is kept within the
/// range wide komi draws cover (the board's area and one domain step), which the net has
/// been trained on, and snapped into the rule set's domain.
fn centre_komi(before: &[Generation], rules: &Rules) -> Option<f64> {
    let range = hane_selfplay::komi::wide_range(rules);
    let (lo, hi) = (range[0].as_f64(), range[range.len() - 1].as_f64());
    before
        .iter()
        .rev()
        .find_map(|g| g.komi.as_ref())
        .map(|k| hane_eval::KomiDomain::of(rules).nearest(k.estimate.crossing.clamp(lo, hi)).as_f64())
}

/// Rows in the shards under `dir` (0 for unreadable shards, which the trainer skips too).
fn rows_in(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "npz"))
        .map(|e| hane_data::shard::read(&e.path()).map_or(0, |s| s.meta.rows as u64))
        .sum()
}

/// Self-play of generation `g` by `player` ([`stop::interrupted`] if stopped early). With a
/// komi estimate from an earlier generation, games draw their komi around it instead of the
/// config's (as KataGo's self-play centres komi on the net's fair komi), so the net learns
/// the positions that matter for the estimate; `[selfplay] komi_wide` of them draw from the
/// board's whole range, so it learns the rest of the curve too.
fn selfplay(
    cfg: &ConfigFile,
    rules: &Rules,
    run_dir: &Path,
    g: u32,
    player: &str,
    komi: Option<f64>,
) -> Result<SelfplayDone, Failure> {
    let mut sp = cfg.selfplay.clone();
    sp.seed = sp.seed.wrapping_add(1_000_003 * u64::from(g));
    if let Some(k) = komi.and_then(hane_engine::Komi::from_f64) {
        // Set in the parsed rules: appending `,komi=` to a rule string that names a komi
        // would give the key twice, which the parser refuses.
        let mut r: Rules = sp.rules.parse().map_err(|e| Failure::input(format!("rules: {e}")))?;
        r.komi = k;
        sp.rules = r.to_string();
        println!("self-play komi centred on the latest estimate, {k}");
    }
    let fac: EvaluatorFactory = if player == BASELINE {
        // Search without a net has no opinion of a position (every leaf a draw): its value
        // would only pull the targets towards draws.
        sp.value_search_mix = 0.0;
        Arc::new(|| Box::new(UniformEvaluator))
    } else {
        model_factory(&run_dir.join(player), *rules, sp.batch_size)?
    };
    let out = run_dir.join("selfplay").join(gen_name(g));
    let s = play_with_bar(&sp, cfg.pipeline.games, &out, fac, player)?;
    if s.interrupted {
        return Err(stop::interrupted(RERUN));
    }
    println!(
        "self-play: {} games ({} from an earlier run) and {} side games, {} rows in {:.1}s; B/W/draw {}/{}/{}",
        s.games + s.resumed,
        s.resumed,
        s.forks,
        s.rows,
        s.seconds,
        s.results[0],
        s.results[1],
        s.results[2]
    );
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
fn train(cfg: &ConfigFile, run_dir: &Path, g: u32, from: u64, rows: u64) -> Result<TrainDone, Failure> {
    let mut tc = cfg.train.clone();
    tc.cycle_start = from;
    tc.steps = from + generation_steps(cfg, rows);
    // The run's seed reaches the trainer too (its first weights, shuffling and symmetries).
    tc.seed ^= cfg.selfplay.seed << 32;
    let bar = ProgressBar::new(tc.steps);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} step {pos}/{len}  {msg}  [{elapsed_precise}]")
            .expect("template"),
    );
    let (data, out) = (run_dir.join("selfplay"), run_dir.join("train"));
    let s = hane_train::train(&tc, &data, &out, Some(stop::flag()), &mut |p| match p {
        hane_train::Progress::Logged(l) => {
            bar.set_position(l.step);
            bar.set_message(format!(
                "loss {:.3}, {:.0} samples/s",
                l.get("loss/total").unwrap_or(f64::NAN),
                l.samples_per_sec
            ));
        }
        hane_train::Progress::Started { step, .. } => {
            bar.set_position(*step);
            bar.suspend(|| print_progress(p));
        }
        _ => bar.suspend(|| print_progress(p)),
    })
    .map_err(|e| Failure { code: 1, message: e.to_string() })?;
    bar.finish_and_clear();
    if s.interrupted {
        return Err(stop::interrupted(RERUN));
    }
    let ckpt =
        s.checkpoint.ok_or_else(|| Failure { code: 1, message: "the trainer wrote no checkpoint".into() })?;
    let candidate = format!("models/{}.safetensors", gen_name(g));
    let bytes = std::fs::read(&ckpt).map_err(|e| io_failure(&ckpt, e))?;
    let dest = run_dir.join(&candidate);
    std::fs::create_dir_all(run_dir.join("models")).map_err(|e| io_failure(run_dir, e))?;
    write_atomic(&dest, &bytes).map_err(|e| io_failure(&dest, e))?;
    let metrics =
        s.last.map(|l| l.metrics.iter().map(|(k, v)| (k.to_string(), *v)).collect()).unwrap_or_default();
    println!("training: step {} in {:.1}s; candidate {candidate}", s.step, s.seconds);
    Ok(TrainDone { step: s.step, candidate, metrics, seconds: s.seconds })
}

fn search_evaluator(run_dir: &Path, player: &str, rules: &Rules) -> Result<BoxedEvaluator, Failure> {
    if player == BASELINE {
        Ok(Box::new(UniformEvaluator))
    } else {
        net(&run_dir.join(player), rules)
    }
}

/// The gating match of generation `g`, resumed from `gates/gen-NNN.json`, at `komi` (the
/// komi its self-play was centred on; `None`: the config's). At a komi far from fair, the
/// gate would mostly measure who wins with the colour that cannot lose.
fn gate(
    cfg: &ConfigFile,
    rules: &Rules,
    komi: Option<f64>,
    run_dir: &Path,
    g: u32,
    candidate: &str,
    player: &str,
) -> Result<GateDone, Failure> {
    let lc = &cfg.pipeline;
    let mut rules = *rules;
    if let Some(k) = komi.and_then(hane_engine::Komi::from_f64) {
        rules.komi = k;
    }
    let rules = &rules;
    let path = run_dir.join("gates").join(format!("{}.json", gen_name(g)));
    std::fs::create_dir_all(run_dir.join("gates")).map_err(|e| io_failure(run_dir, e))?;
    let visits = lc.gate_visits;
    let seed = cfg.selfplay.seed.wrapping_add(u64::from(g) << 20);
    let mut cand = SearchPlayer {
        evaluator: search_evaluator(run_dir, candidate, rules)?,
        visits,
        seed,
        label: candidate.to_string(),
    };
    let mut best = SearchPlayer {
        evaluator: search_evaluator(run_dir, player, rules)?,
        visits,
        seed: seed ^ 1,
        label: player.to_string(),
    };
    let settings = MatchSettings { games: lc.gate_games, opening_turns: lc.gate_opening_turns, seed };
    let rule = WinRateGate { games: lc.gate_games, threshold: lc.gate_threshold };
    let bar = ProgressBar::new(u64::from(lc.gate_games));
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} gate games  {msg}  [{elapsed_precise}]")
            .expect("template"),
    );
    let w = matches::play_resumable(
        rules,
        &mut cand,
        &mut best,
        &settings,
        &path,
        &mut |w| rule.decide(w) == Decision::Continue,
        &mut |n, w| {
            bar.set_position(u64::from(n));
            bar.set_message(format!("candidate {}-{}-{}", w.wins, w.draws, w.losses));
        },
    )?;
    bar.finish_and_clear();
    let accepted = rule.decide(w) == Decision::Accept;
    println!(
        "gate: candidate {}-{}-{} (W-D-L) in {} games: {}",
        w.wins,
        w.draws,
        w.losses,
        w.games(),
        if accepted { "accepted" } else { "rejected" }
    );
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
        assert_eq!(centre_komi(&[], &rules), None);
        let estimate = |crossing: f64| {
            let mut g = Generation::new(0, BASELINE.into());
            let search = hane_eval::komi::KomiSearch::for_rules(&rules);
            let mut ev = |k: hane_engine::Komi| hane_eval::komi::Eval {
                lead: crossing - k.as_f64(),
                win: 1.0 / (1.0 + ((k.as_f64() - crossing) / 2.0).exp()),
            };
            let est = hane_eval::komi::estimate(&search, &mut ev).unwrap();
            g.komi = Some(crate::komi_cmd::KomiReport {
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
        let gens = [estimate(10.2), estimate(24.8)];
        assert_eq!(centre_komi(&gens, &rules), Some(25.0), "the newest, rounded into the domain");
        assert_eq!(centre_komi(&gens[..1], &rules), Some(10.0));
        let no_estimate = Generation { komi: None, ..gens[0].clone() };
        assert_eq!(centre_komi(&[gens[1].clone(), no_estimate], &rules), Some(25.0));
    }
}
