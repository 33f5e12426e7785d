//! hane's tree search: a KataGo-style PUCT search generic over the engine's [`Game`] trait.
//!
//! The search is split into "gather a leaf to evaluate" ([`Search::gather`]) and "apply its
//! evaluation" ([`Search::apply`]), so a self-play driver can collect leaves from hundreds of
//! games and evaluate them in one batched network call. [`Search::run`] is the one-game loop
//! built from the same two calls. Evaluators implement the batch-first [`Evaluator`] trait;
//! [`UniformEvaluator`] and [`RolloutEvaluator`] need no network, so everything here builds
//! and tests without libtorch.
//!
//! What the search implements, with KataGo's constants (see `SearchConfig`'s field docs):
//! PUCT with first-play urgency, root Dirichlet noise scaled to the number of legal moves,
//! forced playouts and policy-target pruning, a win/loss plus saturating score utility,
//! virtual loss for batched gathers, tree reuse between moves, playout cap randomization
//! ([`PlayoutCap`]) and a decaying move temperature ([`temperature`]).
//!
//! Players need not alternate: a Sligo turn is two decisions (slide, then placement) of the
//! same player. Every node records whose decision it is, and statistics are stored from
//! Black's point of view and turned into the deciding player's view where they are used
//! (see `tree.rs`).

pub mod config;
pub mod eval;
pub mod net_rules;
pub mod noise;
pub mod precision;
pub mod schedule;
pub mod search;
mod target;
mod tree;
pub mod value;

pub use config::{PolicyTarget, SearchConfig, MAX_VISITS, VISITS};
pub use eval::{EvalRequest, Evaluation, Evaluator, RolloutEvaluator, UniformEvaluator};
pub use precision::Precision;
pub use schedule::{temperature, PlayoutCap, TemperatureSchedule};
pub use search::{ChildStats, Gather, LeafId, MoveFilter, Search};
pub use value::RootValue;

#[doc(no_inline)]
pub use hane_engine::Game;
