//! Evaluation tools for hane: how strong is a net, and what komi is fair?
//!
//! - [`judge`]: the exact solver ([`hane_solver`], a crate of its own) as a judge of a net,
//!   the share of its turns that keep the exact value of positions it can settle.
//! - [`elo`]: maximum-likelihood Elo from pairwise match results, with 95% intervals.
//! - [`gate`]: promotion decisions for a candidate net: Wald's SPRT on win/draw/loss counts
//!   and a plain win-rate threshold.
//! - [`komi`]: KataGo's fair-komi search over a [`komi::KomiProbe`] (shift by the predicted
//!   lead, then bisect for the 50% crossing), and [`logistic`]: a fit of Black's win rate
//!   against komi from match samples with an interval for the crossing. The exact solution
//!   is an evaluator too: its fair komi is the ground truth the estimators are tested against.
//! - [`referee`] and [`arena`]: games and matches between [`referee::Player`]s (hane's
//!   search, or an external engine over [`gtp`]) refereed and scored by hane's own rules.
//! - [`search_komi`]: the komi evaluator that reads the empty board with hane's search.
//!
//! Nothing here needs libtorch: players and komi evaluators are generic over the search's
//! evaluator trait, and the `hane` binary plugs the net in.

pub mod arena;
pub mod elo;
pub mod gate;
pub mod gtp;
pub mod judge;
pub mod komi;
mod linalg;
pub mod logistic;
pub mod referee;
pub mod search_komi;
