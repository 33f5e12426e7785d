//! The komi report of `hane komi` and of each generation of `hane loop`: the fair komi of a
//! rule set and board size, estimated the way KataGo did for
//! 9x9 (`hane_eval::komi`): deep searches from the empty board read Black's expected lead,
//! komi is shifted by it and then bisected for the komi where Black's win rate crosses 50%
//! (smoothed over neighbouring komi values under area scoring). Beside it, an empirical
//! check: the net plays itself at a sweep of komi values around the estimate, and a logistic
//! fit of Black's win rate against komi gives the crossing with a 95% interval.
//!
//! The report also carries the evaluations at every komi of the domain within
//! [`curve_span`] points of the crossing (`curve`, drawn in `komi.png`): the bisection alone
//! leaves gaps where the win rate falls. The sweep's games are independent samples
//! ([`hane_eval::logistic`]'s module docs): openings sampled by the players' own searches,
//! a seed per game, and a game repeated move for move counted once in the fit.
//!
//! With `--evaluator solver` (tiny boards) the exact solution is the evaluator, so the
//! estimate is the exact fair komi. [`write_report`] writes `komi.json` and `komi.png`.
//!
//! A stop request abandons the estimate before its next evaluation (the sweep before its next
//! game, the solver at its next progress report). What was finished (the evaluations, the
//! sweep's finished komi values: a [`KomiProgress`]) is kept: `hane komi` writes it to
//! `komi.json` marked partial ([`save_partial`]), and a rerun with the same arguments reuses
//! it ([`resume`]) instead of evaluating again.

use crate::players::{net, BoxedEvaluator};
use crate::{read_report, write_file, write_json, Error, Interrupt, Stop};
use hane_engine::{Komi, Rules};
use hane_eval::komi::{
    curve, curve_members, curve_span, estimate, Eval, KomiEstimate, KomiPoint, KomiProbe, KomiSearch,
};
use hane_eval::logistic::{
    count_games, fit, game_seed, self_play_game, KomiSample, LogisticFit, SweepGames, Z95,
};
use hane_eval::search_komi::SearchKomi;
use hane_mcts::{Precision, RolloutEvaluator};
use hane_plot::{Chart, Series, Style};
use hane_solver::{solve, SolveOptions};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How the empty board is evaluated.
#[derive(Debug)]
pub enum Method {
    /// Searches with the net of a checkpoint, computing in a precision.
    Net(PathBuf, Precision),
    /// Searches with random playouts.
    Rollout,
    /// The exact solution.
    Solver,
}

impl Method {
    fn name(&self) -> String {
        match self {
            Method::Net(p, precision) => format!("search with the net {} ({precision})", p.display()),
            Method::Rollout => "search with random playouts".into(),
            Method::Solver => "exact solution (alpha-beta)".into(),
        }
    }

    fn evaluator(&self, rules: &Rules, seed: u64) -> Result<BoxedEvaluator, Error> {
        match self {
            Method::Net(p, precision) => net(p, rules, *precision),
            _ => Ok(Box::new(RolloutEvaluator::new(seed))),
        }
    }
}

/// The empirical sweep: Black's results at each komi, and the fit.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Sweep {
    /// The distinct games per komi (each move sequence once) and their results: what the
    /// fit counts as independent samples.
    pub samples: Vec<KomiSample>,
    /// Every game played per komi, repeats included (empty in reports of older versions,
    /// whose `samples` counted every game).
    #[serde(default)]
    pub played: Vec<KomiSample>,
    /// Turns at the start of each game chosen with root noise and temperature sampling.
    #[serde(default)]
    pub opening_turns: u32,
    /// Visits per move.
    pub visits: u32,
    /// The logistic fit, when the data allow one.
    pub fit: Option<LogisticFit>,
    /// Why there is no fit.
    pub fit_error: Option<String>,
}

/// What `hane komi` reports.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KomiReport {
    /// The rules (their komi is where the search started).
    pub rules: String,
    /// How the empty board was evaluated.
    pub method: String,
    /// Visits per search (0 for the solver).
    pub visits: u32,
    /// KataGo's estimate from the searches.
    pub estimate: KomiEstimate,
    /// Black's win rate at every komi of the domain within [`curve_span`] points of the
    /// crossing that the estimate could reach, in increasing komi (empty in reports of
    /// older versions).
    #[serde(default)]
    pub curve: Vec<KomiPoint>,
    /// The empirical check, if run.
    pub sweep: Option<Sweep>,
    /// Wall-clock seconds used.
    pub seconds: f64,
}

/// How a report is made: the searches' visits, the sweep's size, the seed.
#[derive(Clone, Copy, Debug)]
pub struct KomiSettings {
    /// Visits of each search from the empty board.
    pub visits: u32,
    /// Games per komi value in the sweep (0: no sweep).
    pub sweep_games: u32,
    /// Visits per move in the sweep's games.
    pub sweep_visits: u32,
    /// Seed of searches and openings.
    pub seed: u64,
    /// Threads evaluating the curve's members at once, each with its own evaluator (the
    /// estimate's bisection is one evaluation after another); every evaluation is the same
    /// as with one.
    pub threads: usize,
}

/// What an estimate finished: every evaluation made (in order), and the sweep's finished
/// komi values. A report made with it reuses its evaluations instead of making them again.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KomiProgress {
    /// The evaluations made.
    pub evaluations: Vec<KomiPoint>,
    /// The sweep's komi values finished, in order.
    pub sweep: Vec<SweepLevel>,
}

/// The sweep's games at one komi.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct SweepLevel {
    /// Every game, repeats included.
    pub played: KomiSample,
    /// The distinct games.
    pub distinct: KomiSample,
}

/// The arguments that decide an estimate: a rerun reuses only a partial file of the same.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KomiArgs {
    /// The rules, as they print.
    pub rules: String,
    /// How the empty board is evaluated ([`Method`]'s name).
    pub method: String,
    /// Visits per search.
    pub visits: u32,
    /// Games per komi in the sweep.
    pub sweep_games: u32,
    /// Visits per move in the sweep.
    pub sweep_visits: u32,
    /// The seed.
    pub seed: u64,
}

impl KomiArgs {
    /// The arguments of an estimate of `rules` by `method` with `s`.
    pub fn new(rules: &Rules, method: &Method, s: &KomiSettings) -> KomiArgs {
        KomiArgs {
            rules: rules.to_string(),
            method: method.name(),
            visits: s.visits,
            sweep_games: s.sweep_games,
            sweep_visits: s.sweep_visits,
            seed: s.seed,
        }
    }
}

impl std::fmt::Display for KomiArgs {
    /// In words, as a refusal to resume shows them: `ttakji,size=5 by search with random
    /// playouts, 800 visits, sweeps of 16 games at 64 visits, seed 1`.
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let KomiArgs { rules, method, visits, sweep_games, sweep_visits, seed } = self;
        write!(
            f,
            "{rules} by {method}, {visits} visits, sweeps of {sweep_games} games at {sweep_visits} visits, \
             seed {seed}"
        )
    }
}

/// `komi.json` of an estimate that stopped early.
#[derive(Serialize, Deserialize)]
struct Partial {
    partial: bool,
    args: KomiArgs,
    progress: KomiProgress,
}

/// Writes `progress` of the estimate of `args` to `dir/komi.json`, marked partial.
pub fn save_partial(dir: &Path, args: &KomiArgs, progress: &KomiProgress) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let partial = Partial { partial: true, args: args.clone(), progress: progress.clone() };
    write_json(&dir.join("komi.json"), &partial)
}

/// The progress of the estimate of `args` saved in `dir/komi.json` by [`save_partial`]:
/// nothing when there is no such file or it holds a finished report; a partial file of other
/// arguments is refused as bad input.
pub fn resume(dir: &Path, args: &KomiArgs) -> Result<KomiProgress, Error> {
    let file = dir.join("komi.json");
    let Some(text) = read_report(&file)? else { return Ok(KomiProgress::default()) };
    let partial = serde_json::from_str::<serde_json::Value>(&text).ok().is_some_and(|v| v["partial"] == true);
    if !partial {
        return Ok(KomiProgress::default());
    }
    let shown = file.display();
    let saved: Partial = serde_json::from_str(&text)
        .map_err(|e| Error::Input(format!("{shown}: a damaged partial estimate ({e}); remove it")))?;
    if saved.args != *args {
        return Err(Error::Input(format!(
            "{shown} holds a partial estimate of other arguments ({}); rerun with them to finish it, or give another --out",
            saved.args
        )));
    }
    Ok(saved.progress)
}

/// Runs the estimate and the sweep, telling `log` each evaluation and sweep result as a line;
/// `stop` abandons it ([`Error::Interrupted`]) before its next evaluation or sweep game.
/// Evaluations and sweep values in `progress` are reused, and the new ones added to it.
pub fn komi_report(
    rules: &Rules,
    method: &Method,
    s: KomiSettings,
    stop: &Stop,
    progress: &mut KomiProgress,
    log: &mut dyn FnMut(&str),
) -> Result<KomiReport, Error> {
    let clock = Instant::now();
    let search = KomiSearch::for_rules(rules);
    let fail = |e: &dyn std::fmt::Display| Error::Komi(e.to_string());
    let (visits, seed) = (s.visits, s.seed);
    let mut ev: Box<dyn KomiProbe> = match method {
        Method::Solver => {
            if rules.size > 5 {
                return Err(Error::Input("the exact solver solves boards up to 5x5".into()));
            }
            let options = SolveOptions { table_bits: 22, stop: stop.clone(), ..SolveOptions::default() };
            let solution = solve(rules, &options, &mut |_| {});
            stop.check()?;
            Box::new(solution.map_err(|e| fail(&e))?)
        }
        _ => Box::new(search_probe(rules, method, visits, seed)?),
    };
    // Every evaluation is printed as it is made, the estimate's and the curve's. After a stop
    // request each answers at once, and what they add up to is thrown away below.
    let saved: Vec<f64> = progress.evaluations.iter().map(|p| p.komi).collect();
    let evaluations = &mut progress.evaluations;
    // The curve's evaluations made by the other threads (`curve_ahead`), logged and recorded
    // as the curve reaches them.
    let ahead: RefCell<Vec<KomiPoint>> = RefCell::new(Vec::new());
    let mut traced = |k: Komi, log: &mut dyn FnMut(&str)| {
        let line =
            |e: Eval| format!("komi {:>6}: Black's win rate {:.3}, lead {:+.2}", k.as_f64(), e.win, e.lead);
        if let Some(p) = evaluations.iter().find(|p| p.komi == k.as_f64()) {
            // Made in an earlier run, or already logged in this one.
            if saved.contains(&p.komi) {
                log(&format!("{} (saved)", line(p.eval)));
            }
            return p.eval;
        }
        if stop.requested() {
            return Eval { lead: 0.0, win: 0.5 };
        }
        let made = ahead.borrow().iter().find(|p| p.komi == k.as_f64()).map(|p| p.eval);
        let e = made.unwrap_or_else(|| ev.eval(k));
        evaluations.push(KomiPoint { komi: k.as_f64(), eval: e });
        log(&line(e));
        e
    };
    let estimate = estimate(&search, &mut |k| traced(k, log));
    stop.check()?;
    let estimate = estimate.map_err(|e| fail(&e))?;
    log(&format!(
        "estimate: Black's win rate crosses 50% at komi {:.2} (fair in the domain: {})",
        estimate.crossing, estimate.fair
    ));
    let span = curve_span(rules);
    log(&format!(
        "curve: every komi from {:.2} to {:.2} within reach (the estimate's {} evaluations reused)",
        estimate.crossing - span,
        estimate.crossing + span,
        estimate.evaluations.len()
    ));
    // A net's evaluations depend on nothing but the komi (a rollout evaluator's random
    // stream runs on from one search to the next, so those stay in order, on one thread).
    if s.threads > 1 && matches!(method, Method::Net(..)) {
        // The members still to evaluate, dealt out in turn: the first share is this thread's.
        let done = |k: Komi| {
            search.decided(k).is_some()
                || saved.contains(&k.as_f64())
                || estimate.evaluations.iter().any(|p| p.komi == k.as_f64())
        };
        let mut shares = vec![Vec::new(); s.threads];
        let todo = curve_members(&search, &estimate, span).into_iter().filter(|&k| !done(k));
        for (i, k) in todo.enumerate() {
            shares[i % s.threads].push(k);
        }
        let made = std::thread::scope(|scope| {
            let helpers: Vec<_> = shares[1..]
                .iter()
                .map(|share| scope.spawn(move || curve_ahead(rules, method, visits, seed, share, stop)))
                .collect();
            for &k in &shares[0] {
                traced(k, log);
            }
            helpers
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(Error::Komi("a curve thread panicked".into()))))
                .collect::<Result<Vec<Vec<KomiPoint>>, Error>>()
        })?;
        ahead.borrow_mut().extend(made.into_iter().flatten());
    }
    let curve = curve(&search, &estimate, span, &mut |k| traced(k, log));
    stop.check()?;
    let line: Vec<String> = curve.iter().map(|p| format!("{} {:.3}", p.komi, p.eval.win)).collect();
    log(&format!("curve (komi, Black's win rate): {}", line.join(", ")));
    let sweep = if s.sweep_games == 0 || matches!(method, Method::Solver) {
        None
    } else {
        Some(sweep_komi(rules, method, estimate.fair, &s, stop, &mut progress.sweep, log)?)
    };
    Ok(KomiReport {
        rules: rules.to_string(),
        method: method.name(),
        visits: if matches!(method, Method::Solver) { 0 } else { visits },
        estimate,
        curve,
        sweep,
        seconds: clock.elapsed().as_secs_f64(),
    })
}

/// Searches from the empty board with `visits` visits and the method's own evaluator.
fn search_probe(
    rules: &Rules,
    method: &Method,
    visits: u32,
    seed: u64,
) -> Result<SearchKomi<BoxedEvaluator>, Error> {
    Ok(SearchKomi {
        rules: *rules,
        evaluator: method.evaluator(rules, seed)?,
        visits,
        batch: 8,
        seed,
        calls: 0,
    })
}

/// The evaluations of `komis` by a search of `method` with its own evaluator, on the
/// calling thread, until `stop` is set; as [`komi_report`]'s own evaluator makes them.
fn curve_ahead(
    rules: &Rules,
    method: &Method,
    visits: u32,
    seed: u64,
    komis: &[Komi],
    stop: &Stop,
) -> Result<Vec<KomiPoint>, Error> {
    if komis.is_empty() {
        return Ok(Vec::new());
    }
    let mut probe = search_probe(rules, method, visits, seed)?;
    Ok(komis
        .iter()
        .map_while(|&k| (!stop.requested()).then(|| KomiPoint { komi: k.as_f64(), eval: probe.eval(k) }))
        .collect())
}

/// Five komi values around `center`, 2 points apart (rounded into the domain).
fn sweep_values(rules: &Rules, center: f64) -> Vec<Komi> {
    let domain = hane_engine::KomiDomain::of(rules);
    let mut v: Vec<Komi> = (-2..=2).map(|d| domain.nearest(center + 2.0 * f64::from(d))).collect();
    v.dedup();
    v
}

/// The sweep: at each komi of [`sweep_values`], `games` games of the method's search
/// against itself (one evaluator per komi, built with a seed of its own), each an independent
/// sample ([`self_play_game`], [`game_seed`]); the fit counts each distinct game once. The
/// komi values in `done` are not played again; those finished are added to it.
fn sweep_komi(
    rules: &Rules,
    method: &Method,
    center: f64,
    s: &KomiSettings,
    stop: &Stop,
    done: &mut Vec<SweepLevel>,
    log: &mut dyn FnMut(&str),
) -> Result<Sweep, Error> {
    let (visits, seed) = (s.sweep_visits, s.seed);
    let settings = SweepGames::for_board(usize::from(rules.size), s.sweep_games, visits, seed);
    let mut samples = Vec::new();
    let mut played = Vec::new();
    for (j, k) in sweep_values(rules, center).into_iter().enumerate() {
        if let Some(level) = done.get(j).filter(|l| l.played.komi == k.as_f64()) {
            log(&format!("sweep: komi {:>6}: saved", k.as_f64()));
            samples.push(level.distinct);
            played.push(level.played);
            continue;
        }
        done.truncate(j);
        let mut r = *rules;
        r.komi = k;
        let mut ev = method.evaluator(&r, game_seed(seed, k, u32::MAX))?;
        let mut results = Vec::new();
        for i in 0..settings.games {
            stop.check()?;
            results.push(self_play_game(&r, &mut ev, visits, settings.opening_turns, game_seed(seed, k, i)));
        }
        let (all, distinct) = count_games(k.as_f64(), &results);
        log(&format!(
            "sweep: komi {:>6}: Black scored {}/{} ({} distinct games, scoring {})",
            k.as_f64(),
            all.wins,
            all.games,
            distinct.games,
            distinct.wins
        ));
        samples.push(distinct);
        played.push(all);
        done.push(SweepLevel { played: all, distinct });
    }
    let (fit, fit_error) = match fit(&samples) {
        Ok(f) => (Some(f), None),
        Err(e) => (None, Some(e.to_string())),
    };
    Ok(Sweep { samples, played, opening_turns: settings.opening_turns, visits, fit, fit_error })
}

/// A line summarising a report.
pub fn summary_line(r: &KomiReport) -> String {
    let reading = if r.visits == 0 { "" } else { ": the net's reading, not a proof" };
    let mut s =
        format!("fair komi {} (crossing {:.2}; {}{reading})", r.estimate.fair, r.estimate.crossing, r.method);
    if let Some(sw) = &r.sweep {
        match &sw.fit {
            Some(f) => s.push_str(&format!(
                "; self-play sweep: 50% at {:.2} [{:.2}, {:.2}] (95% of the sweep's sampling noise: how \
                 this net plays, not the game's value)",
                f.crossing, f.low, f.high
            )),
            None => {
                s.push_str(&format!("; self-play sweep: no fit ({})", sw.fit_error.as_deref().unwrap_or("?")))
            }
        }
    }
    s
}

/// The chart of Black's win rate against komi: the searches' readings at every komi of the
/// curve (the estimate's own evaluations for reports without one), the sweep's distinct
/// games with 95% intervals (normal approximation, clipped to [0, 1]) and the logistic fit.
pub fn chart(r: &KomiReport) -> Chart {
    let source = if r.curve.is_empty() { &r.estimate.evaluations } else { &r.curve };
    let mut points: Vec<(f64, f64)> = source.iter().map(|p| (p.komi, p.eval.win)).collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut c = Chart::new(format!("Black's win rate against komi: {}", r.rules), "komi", "Black's win rate")
        .with_series(Series::new("from the empty board", points, Style::LineAndMarkers))
        .with_hline(0.5)
        .with_y_range(0.0, 1.0);
    if let Some(sw) = &r.sweep {
        let rate = |s: &KomiSample| s.wins / s.games.max(1.0);
        let pts = sw.samples.iter().map(|s| (s.komi, rate(s))).collect();
        let errs = sw
            .samples
            .iter()
            .map(|s| {
                let p = rate(s);
                let half = Z95 * (p * (1.0 - p) / s.games.max(1.0)).sqrt();
                ((p - half).max(0.0), (p + half).min(1.0))
            })
            .collect();
        c = c.with_series(Series::markers("self-play (distinct)", pts).with_errors(errs));
        if let Some(f) = &sw.fit {
            let lo = sw.samples.iter().map(|s| s.komi).fold(f64::INFINITY, f64::min);
            let hi = sw.samples.iter().map(|s| s.komi).fold(f64::NEG_INFINITY, f64::max);
            let curve =
                (0..=50).map(|i| lo + (hi - lo) * f64::from(i) / 50.0).map(|k| (k, f.win_rate(k))).collect();
            c = c.with_series(Series::line("logistic fit", curve));
        }
    }
    c
}

/// [`chart`] with an opening book's answer beside the curve: Black's minimaxed margin as a
/// marker at one half (where the curve should cross if the two agree) and its bracket as a
/// line through it.
pub fn chart_with_book(r: &KomiReport, book: &hane_book::FairKomi) -> Chart {
    let name = if book.proven {
        format!("book: {:+.1} (proven)", book.margin)
    } else {
        format!("book: {:+.2} [{:+.2}, {:+.2}]", book.margin, book.lower, book.upper)
    };
    chart(r)
        .with_series(Series::line("book bracket", vec![(book.lower, 0.5), (book.upper, 0.5)]))
        .with_series(Series::markers(name, vec![(book.margin, 0.5)]))
}

/// Writes `komi.json` and `komi.png` into `dir`.
pub fn write_report(r: &KomiReport, dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    write_json(&dir.join("komi.json"), r)?;
    write_file(&dir.join("komi.png"), &chart(r).png())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_of_older_versions_still_load_and_chart() {
        // A report written before the curve and the distinct counts existed (as kept in a
        // run's state.json): it loads, and its chart draws the estimate's evaluations.
        let old = r#"{"rules": "ttakji,size=3", "method": "m", "visits": 8,
            "estimate": {"crossing": 9.0, "fair": 9.0, "black_side": 8.0, "white_side": 10.0,
                "evaluations": [{"komi": 8.0, "eval": {"lead": 1.0, "win": 1.0}},
                                {"komi": 10.0, "eval": {"lead": -1.0, "win": 0.0}}]},
            "sweep": {"samples": [{"komi": 8.0, "wins": 3.0, "games": 4.0}], "visits": 4,
                "fit": null, "fit_error": "x"},
            "seconds": 1.0}"#;
        let r: KomiReport = serde_json::from_str(old).unwrap();
        assert!(r.curve.is_empty());
        let sw = r.sweep.as_ref().unwrap();
        assert!(sw.played.is_empty() && sw.opening_turns == 0);
        let dir = std::env::temp_dir().join(format!("hane-komi-old-{}", std::process::id()));
        write_report(&r, &dir).unwrap();
        assert!(dir.join("komi.png").exists());
        let back: KomiReport =
            serde_json::from_str(&std::fs::read_to_string(dir.join("komi.json")).unwrap()).unwrap();
        assert_eq!(back.estimate, r.estimate);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
