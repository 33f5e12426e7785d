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
use hane_book::{net_id, Book, Builder, Event, Settings};
use hane_mcts::{RolloutEvaluator, VISITS};
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
    /// A bracket's half-width per point of the score's spread over a search's best move.
    #[arg(long, default_value_t = 0.5)]
    error_factor: f32,
    /// Write the book as an SGF tree (best lines first) to this file at the end.
    #[arg(long)]
    sgf: Option<PathBuf>,
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
    if !(0.0..=100.0).contains(&a.error_factor) {
        return Err(Failure::input(format!("--error-factor {}: allowed 0 to 100", a.error_factor)));
    }
    let (mut ev, net): (BoxedEvaluator, String) = match (&a.model, a.evaluator.as_deref()) {
        (Some(p), _) => (nets.evaluator(p, &rules)?, net_id(p).map_err(|e| Failure::input(e.to_string()))?),
        (None, Some("rollout")) => (Box::new(RolloutEvaluator::new(a.seed)), "rollouts".into()),
        (None, Some(e)) => return Err(Failure::input(format!("--evaluator {e:?}: allowed: rollout"))),
        (None, None) => return Err(Failure::input("give --model CHECKPOINT or --evaluator rollout")),
    };
    let mut book = Book::open(&a.out, &rules, &net).map_err(|e| Failure::input(e.to_string()))?;
    let mut settings = Settings::for_board(rules.size.into());
    settings.visits = a.visits;
    settings.revisit = revisit;
    settings.solve_from_ply = if a.solve_nodes == 0 { u32::MAX } else { a.solve_from_ply };
    settings.solve_nodes = a.solve_nodes;
    settings.error_factor = a.error_factor;
    settings.seed = a.seed;
    settings.save = Some(a.out.clone());
    stop::install(
        "after the expansion under way",
        if a.model.is_some() { Second::Wait } else { Second::Exit },
    )?;
    if book.expansions > 0 {
        errln!("continuing {} ({} nodes, {} expansions)", a.out.display(), book.nodes.len(), book.expansions);
    }
    errln!(
        "book of {rules} with {net}: expanding to {} expansions, {} + {revisit} visits each",
        a.expansions,
        a.visits
    );
    let flag = stop::stop().flag();
    let finished = Builder::new(settings)
        .run(&mut book, &mut ev, a.expansions, &flag, &mut |e| match e {
            Event::Expanded(s) => errln!("{s}"),
            Event::Solved { ply, lead, nodes } => {
                errln!("  solved a ply-{ply} position exactly: lead {lead:+} ({nodes} nodes)")
            }
        })
        .map_err(Failure::other)?;
    if let Some(path) = &a.sgf {
        hane_pipeline::write_file(path, hane_book::sgf::write(&book, 40, 20_000).as_bytes())?;
    }
    if !finished {
        return Err(stop::interrupted(&format!("the book is saved in {}; {}", a.out.display(), stop::RERUN)));
    }
    let geo = book.nodes[0].state.geo();
    let line: Vec<String> = book.main_line().iter().map(|(act, _)| act.name(geo)).collect();
    let (agree, count) = book.policy_agreement();
    outln!(
        "book: {} nodes, {} expansions, {} evaluations in {:.0} s",
        book.nodes.len(),
        book.expansions,
        book.evaluations,
        book.seconds
    );
    outln!("komi {}: {}", rules.komi, book.fair_komi());
    outln!("main line: {}", line.join(" "));
    outln!("the raw policy picks the book's move at {:.1}% of {count} searched nodes", 100.0 * agree);
    Ok(())
}
