//! `hane book`: builds or extends a minimax opening book for a rule set, board size and komi
//! with a net (`hane_book`), and reads Black's margin, hence the fair komi, off its root.
//! The book is saved after every expansion (atomically), so Ctrl-C, SIGTERM or a kill loses at
//! most the expansion under way and the same command continues it; a book file of another
//! rule set, komi or net is refused. `--sgf` writes the book as an SGF tree for a GUI.

use crate::nets::Nets;
use crate::output::{errln, outln};
use crate::rules_args::RulesArgs;
use crate::stop::{self, Second};
use crate::Failure;
use hane_book::{net_id, Event, Settings};
use hane_mcts::{RolloutEvaluator, VISITS};
use hane_pipeline::book::BookJob;
use hane_pipeline::players::BoxedEvaluator;
use std::path::PathBuf;

/// Arguments of `hane book`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    rules: RulesArgs,
    /// A checkpoint of a net trained for these rules.
    #[arg(long, conflicts_with = "evaluator")]
    pub model: Option<PathBuf>,
    #[command(flatten)]
    precision: crate::nets::PrecisionArg,
    /// Without --model: `rollout` (search with random playouts; for tiny boards and tests).
    #[arg(long)]
    evaluator: Option<String>,
    /// The book file (continued when it exists).
    #[arg(long)]
    out: PathBuf,
    /// Expand until the book has had this many expansions in all.
    #[arg(long, default_value_t = 100)]
    expansions: u64,
    #[arg(long, default_value_t = 800, help = format!("Visits of the search that picks a node's next book move ({VISITS})"))]
    visits: u32,
    /// Visits of the search that refreshes the node's value without the new move (default:
    /// half of --visits).
    #[arg(long)]
    revisit: Option<u32>,
    /// Try the exact solver on new positions from this ply on (2 per turn; a Sligo placement
    /// is odd); the default 40 is turn 20.
    #[arg(long, default_value_t = 40)]
    solve_from_ply: u32,
    /// The solver's node budget per position (0: never solve).
    #[arg(long, default_value_t = 200_000)]
    solve_nodes: u64,
    /// A bracket's half-width per point of the score's spread over a search's best move, at
    /// 1,000 visits of that move (it shrinks as visits^-0.28 beyond, grows below).
    #[arg(long, default_value_t = 0.45)]
    error_factor: f32,
    /// At every twentieth of the expansions in the last quarter and at the end, re-search the
    /// estimates that set the root's margin and bracket ends with this many visits, until all
    /// come from estimates that deep or exact values (0: never).
    #[arg(long, default_value_t = 0)]
    refine_visits: u32,
    /// Write the book as an SGF tree (best lines first) to this file at the end. The report
    /// goes beside the book as JSON (its extension `json`).
    #[arg(long)]
    sgf: Option<PathBuf>,
    /// Write the book's positions as self-play start positions to this file at the end (each
    /// searched node with its best book move as the hint; where the net's raw policy prefers
    /// another move it weighs 4, else 1): `[selfplay] start_positions`.
    #[arg(long)]
    starts: Option<PathBuf>,
    /// Path cost weights as key=value pairs, e.g. `per_child=1,pv_discount=0.5` (keys:
    /// per_move, per_point, point_cap, per_win, per_log_policy, per_child, per_child_sq,
    /// pv_discount; docs/book.md).
    #[arg(long, default_value = "")]
    cost: String,
    /// Expansions (and refinements) searched at once, each on a thread with its own copy of
    /// the net (1: the same book on every run; 2 uses both cores of a two-core machine).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Seed of the searches.
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// Runs `hane book`.
pub fn run(a: Args, nets: &dyn Nets) -> Result<(), Failure> {
    let rules = a.rules.rules()?;
    VISITS.check("--visits", a.visits).map_err(Failure::input)?;
    let revisit = a.revisit.unwrap_or((a.visits / 2).max(1));
    VISITS.check("--revisit", revisit).map_err(Failure::input)?;
    if a.refine_visits > 0 {
        VISITS.check("--refine-visits", a.refine_visits).map_err(Failure::input)?;
    }
    if !(1..=64).contains(&a.threads) {
        return Err(Failure::input(format!("--threads {}: allowed 1 to 64", a.threads)));
    }
    if !(0.0..=100.0).contains(&a.error_factor) {
        return Err(Failure::input(format!("--error-factor {}: allowed 0 to 100", a.error_factor)));
    }
    let net = match (&a.model, a.evaluator.as_deref()) {
        (Some(p), _) => {
            drop(nets.evaluator(p, &rules, a.precision.get())?);
            net_id(p).map_err(|e| Failure::input(e.to_string()))?
        }
        (None, Some("rollout")) => "rollouts".into(),
        (None, Some(e)) => {
            return Err(Failure::input(format!("--evaluator \"{}\": allowed: rollout", e.escape_debug())))
        }
        (None, None) => return Err(Failure::input("give --model CHECKPOINT or --evaluator rollout")),
    };
    let seed = a.seed;
    let factory = || -> BoxedEvaluator {
        match &a.model {
            Some(p) => {
                nets.evaluator(p, &rules, a.precision.get()).unwrap_or_else(|e| panic!("{}", e.message))
            }
            None => Box::new(RolloutEvaluator::new(seed)),
        }
    };
    let mut settings = Settings::for_board(rules.size.into()).searching(a.visits);
    settings.revisit = revisit;
    settings.solve_from_ply = if a.solve_nodes == 0 { u32::MAX } else { a.solve_from_ply };
    settings.solve_nodes = a.solve_nodes;
    settings.error_factor = a.error_factor;
    settings.refine_visits = a.refine_visits;
    settings.seed = a.seed;
    settings.threads = a.threads;
    settings.weights.parse_into(&a.cost).map_err(|e| Failure::input(format!("--cost: {e}")))?;
    let json = a.out.with_extension("json");
    let job = BookJob {
        rules,
        file: a.out.clone(),
        sgf: a.sgf.clone(),
        json: Some(json),
        expansions: a.expansions,
        settings,
    };
    stop::install(
        "after the expansion under way",
        if a.model.is_some() { Second::Wait } else { Second::Exit },
    )?;
    // What the net computes in goes with every book figure of a net.
    let computing = if a.model.is_some() { format!(" in {}", a.precision.get()) } else { String::new() };
    errln!(
        "book of {rules} with {net}{computing}: expanding to {} expansions, {} + {revisit} visits each",
        a.expansions,
        a.visits
    );
    let (book, report) = hane_pipeline::book::build(&job, &factory, &net, &stop::stop(), &mut |e| match e {
        Event::Continuing { nodes, expansions } => {
            errln!("continuing {} ({nodes} nodes, {expansions} expansions)", a.out.display())
        }
        Event::Expanded(s) => errln!("{s}"),
        Event::Refined(r) => errln!("{r}"),
        Event::Solved { ply, lead, nodes } => {
            errln!("  solved a ply-{ply} position exactly: lead {lead:+} ({nodes} nodes)")
        }
    })
    .map_err(|e| match e {
        hane_pipeline::Error::Interrupted => {
            stop::interrupted(&format!("the book is saved in {}; {}", a.out.display(), stop::RERUN))
        }
        e => e.into(),
    })?;
    outln!("{}", report.lines());
    if let Some(path) = &a.starts {
        let starts = hane_pipeline::book::start_positions(&book, 3.0);
        hane_pipeline::write_json(path, &starts)?;
        outln!("{} start positions in {}", starts.positions.len(), path.display());
    }
    Ok(())
}
