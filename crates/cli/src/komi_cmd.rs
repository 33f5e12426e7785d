//! `hane komi`: the fair komi of a rule set and board size, estimated the way KataGo did for
//! 9x9, with a self-play sweep beside it (see [`hane_pipeline::komi`]). With `--evaluator
//! solver` (tiny boards) the exact solution is the evaluator, so the estimate is the exact fair
//! komi. Writes `komi.json` and `komi.png` into `--out`.
//!
//! Ctrl-C or SIGTERM stops the estimate before its next evaluation (the sweep before its next
//! game, the solver within a few thousand nodes) and exits with code 130, writing the
//! evaluations and sweep values finished to `komi.json`, marked partial; the same command
//! then reuses them and goes on.

use crate::output::{errln, outln};
use crate::rules_args::RulesArgs;
use crate::stop::{self, Second};
use crate::Failure;
use hane_engine::range::THREADS;
use hane_eval::arena::MATCH_GAMES;
use hane_mcts::VISITS;
use hane_pipeline::book::BookJob;
use hane_pipeline::komi::KomiReport;
use hane_pipeline::komi::{
    komi_report, resume, save_partial, summary_line, write_report, KomiArgs, KomiSettings, Method,
};
use hane_pipeline::players::net_note;
use hane_pipeline::Error;
use std::path::PathBuf;

/// Arguments of `hane komi`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    rules: RulesArgs,
    /// A checkpoint of a net trained for these rules (a Go net: for any Go rules of its size).
    #[arg(long, conflicts_with = "evaluator")]
    model: Option<PathBuf>,
    #[command(flatten)]
    precision: crate::nets::PrecisionArg,
    /// Without --model: rollout (search with random playouts) or solver (exact, tiny boards).
    #[arg(long)]
    evaluator: Option<String>,
    #[arg(long, default_value_t = 800, help = format!("Visits of each search from the empty board ({VISITS})"))]
    visits: u32,
    #[arg(long, default_value_t = 16,
        help = format!("Games per komi value in the empirical sweep (0: no sweep; else {MATCH_GAMES})"))]
    sweep_games: u32,
    #[arg(long, default_value_t = 64, help = format!("Visits per move in the sweep's games ({VISITS})"))]
    sweep_visits: u32,
    /// Output folder for komi.json and komi.png.
    #[arg(long)]
    out: PathBuf,
    /// With --model: also build a minimax opening book of this many expansions with the net
    /// at the curve's fair komi (into --out, resumable) and report its margin beside the
    /// curve's (docs/book.md); 0: no book.
    #[arg(long, default_value_t = 0)]
    book_expansions: u64,
    /// Visits of each book search.
    #[arg(long, default_value_t = 800)]
    book_visits: u32,
    /// Also build the book at the neighbouring komi the book's margin leans to, and call the
    /// fair komi an answer only where that book's margin rounds back.
    #[arg(long)]
    book_cross_check: bool,
    /// Seed of searches and openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[arg(long, default_value_t = 2, help = format!("With --model: searches of the curve's komi values, and of the book, at once, each with its own copy of the net (the estimate's own searches run one after another; the curve's figures do not depend on it) ({THREADS})"))]
    threads: usize,
}

/// Runs `hane komi`.
pub fn run(a: Args) -> Result<(), Failure> {
    let rules = a.rules.rules()?;
    let method = match (&a.model, a.evaluator.as_deref()) {
        (Some(p), _) => Method::Net(p.clone(), a.precision.get()),
        (None, Some("rollout")) => Method::Rollout,
        (None, Some("solver")) => Method::Solver,
        (None, None) => return Err(Failure::input("give --model CHECKPOINT or --evaluator rollout|solver")),
        (None, Some(e)) => {
            return Err(Failure::input(format!(
                "--evaluator \"{}\": allowed: rollout, solver",
                e.escape_debug()
            )))
        }
    };
    if let Some(note) = a.model.as_deref().and_then(|p| net_note(p, &rules)) {
        errln!("hane: {note}");
    }
    VISITS.check("--visits", a.visits).map_err(Failure::input)?;
    if a.sweep_games > 0 {
        MATCH_GAMES.check("--sweep-games", a.sweep_games).map_err(Failure::input)?;
    }
    VISITS.check("--sweep-visits", a.sweep_visits).map_err(Failure::input)?;
    THREADS.check("--threads", a.threads).map_err(Failure::input)?;
    // Without a net nothing runs libtorch, and a second Ctrl-C may quit at once.
    let second = if matches!(method, Method::Net(..)) { Second::Wait } else { Second::Exit };
    stop::install("before the next evaluation", second)?;
    let settings = KomiSettings {
        visits: a.visits,
        sweep_games: a.sweep_games,
        sweep_visits: a.sweep_visits,
        seed: a.seed,
        threads: a.threads,
    };
    let args = KomiArgs::new(&rules, &method, &settings);
    let mut progress = resume(&a.out, &args)?;
    if !progress.evaluations.is_empty() {
        let (n, m) = (progress.evaluations.len(), progress.sweep.len());
        errln!("resuming: {n} evaluations and {m} sweep komi values already made");
    }
    let made = komi_report(&rules, &method, settings, &stop::stop(), &mut progress, &mut |l| errln!("{l}"));
    let report = made.or_else(|e| match e {
        Error::Interrupted => {
            save_partial(&a.out, &args, &progress)?;
            let file = a.out.join("komi.json");
            let n = progress.evaluations.len();
            Err(stop::interrupted(&format!("{n} evaluations written to {}; {}", file.display(), stop::RERUN)))
        }
        e => Err(Failure::from(e)),
    })?;
    write_report(&report, &a.out)?;
    outln!("{}: {}", rules, summary_line(&report));
    outln!("report: {}", a.out.join("komi.json").display());
    if let (Method::Net(model, _), true) = (&method, a.book_expansions > 0) {
        book(&a, model, rules, &report)?;
    }
    Ok(())
}

/// The book beside the curve: built at the curve's fair komi, and again at the book's own
/// where its margin rounds to another ([`hane_pipeline::book::fair_books`]), with
/// `--book-cross-check` at the neighbouring komi too, reported with the verdict, and drawn
/// into komi.png.
fn book(
    a: &Args,
    model: &std::path::Path,
    rules: hane_engine::Rules,
    report: &KomiReport,
) -> Result<(), Failure> {
    VISITS.check("--book-visits", a.book_visits).map_err(Failure::input)?;
    let komi = report.estimate.fair;
    let (((), book), neighbour) =
        hane_pipeline::book::fair_books(komi, false, a.book_cross_check, &mut |k, why| {
            if let Some(why) = why {
                outln!("the book's {why}");
            }
            book_at(a, model, rules, k).map(|b| ((), b))
        })?;
    outln!("{}", hane_pipeline::book::verdict(&book, Some(&report.estimate), neighbour.as_ref()));
    hane_pipeline::write_file(
        &a.out.join("komi.png"),
        &hane_pipeline::komi::chart_with_book(report, &book.fair).png(),
    )?;
    Ok(())
}

/// The book at `komi`, built or continued into the output folder, its report printed.
fn book_at(
    a: &Args,
    model: &std::path::Path,
    mut rules: hane_engine::Rules,
    komi: f64,
) -> Result<hane_pipeline::book::BookReport, Failure> {
    rules.komi = hane_engine::Komi::from_f64(komi).ok_or_else(|| Failure::input(format!("komi {komi}")))?;
    let mut settings = hane_book::Settings::for_board(rules.size.into()).searching(a.book_visits);
    settings.solve_from_ply = hane_pipeline::book::solve_from_ply(&rules);
    settings.seed = a.seed;
    settings.threads = a.threads;
    let job = BookJob {
        rules,
        file: a.out.join(format!("book-komi{komi}.book")),
        sgf: Some(a.out.join(format!("book-komi{komi}.sgf"))),
        json: Some(a.out.join(format!("book-komi{komi}.json"))),
        expansions: a.book_expansions,
        settings,
    };
    let (factory, net) = hane_pipeline::book::net_factory(model, &rules, a.precision.get())?;
    errln!("book at komi {komi}: {} expansions of {} visits", a.book_expansions, a.book_visits);
    let every = (a.book_expansions / 20).max(1);
    let (_, book) = hane_pipeline::book::build(&job, &factory, &net, &stop::stop(), &mut |e| {
        if let hane_book::Event::Expanded(s) = e {
            if s.expansions % every == 0 {
                errln!("{s}");
            }
        }
    })
    .map_err(|e| match e {
        Error::Interrupted => {
            stop::interrupted(&format!("the book is saved in {}; {}", job.file.display(), stop::RERUN))
        }
        e => e.into(),
    })?;
    outln!("{}", book.lines());
    Ok(book)
}
