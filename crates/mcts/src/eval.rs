//! The evaluator interface and two evaluators that need no network.
//!
//! An [`Evaluator`] takes a whole batch of positions at once, because that is how a network
//! is called; the search hands out [`EvalRequest`]s and takes back [`Evaluation`]s in the
//! same order. Every number in an [`Evaluation`] is from the view of the side to move in the
//! requested position.

use hane_engine::playout::random_playout;
use hane_engine::rng::Rng;
use hane_engine::{Game, GameState, Outcome};

/// What a network (or stand-in) says about one position, from the side to move's view.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    /// Prior probability of each legal action, in the order of the request's `legal`
    /// (the search renormalises; negative or non-finite entries count as 0).
    pub policy: Vec<f32>,
    /// Probabilities of a win, a draw and a loss for the side to move.
    pub wdl: [f32; 3],
    /// Expected final score margin for the side to move, in points.
    pub score: f32,
}

/// One position the search wants evaluated.
#[derive(Clone, Debug)]
pub struct EvalRequest<G: Game> {
    /// The position; `state.to_move()` is the side whose view the answer takes.
    pub state: G,
    /// Its legal actions, in `legal_actions` order; the policy follows this order.
    pub legal: Vec<G::Action>,
}

/// A batch-first evaluator: returns exactly one [`Evaluation`] per request, in order.
///
/// An evaluator that also predicts who will own each point (a net's ownership head) says so
/// through [`Evaluator::ownership`]; the search itself never asks.
pub trait Evaluator<G: Game> {
    /// Evaluates a batch of positions.
    fn evaluate(&mut self, batch: &[EvalRequest<G>]) -> Vec<Evaluation>;

    /// The expected owner of every point of `state` at the end of the game, Black's view
    /// (+1 Black, -1 White), in dense point order; `None` (the default) when this evaluator
    /// has no such prediction.
    fn ownership(&mut self, _state: &G) -> Option<Vec<f32>> {
        None
    }
}

/// A boxed evaluator (for example one chosen at run time) is an evaluator too.
impl<G: Game, E: Evaluator<G> + ?Sized> Evaluator<G> for Box<E> {
    fn evaluate(&mut self, batch: &[EvalRequest<G>]) -> Vec<Evaluation> {
        (**self).evaluate(batch)
    }

    fn ownership(&mut self, state: &G) -> Option<Vec<f32>> {
        (**self).ownership(state)
    }
}

/// A uniform policy, an even value (`wdl = [0, 1, 0]`, as in "nobody knows") and score 0:
/// the search then runs on exact terminal values alone. For tests, smoke runs and as the
/// untrained baseline.
#[derive(Clone, Copy, Debug, Default)]
pub struct UniformEvaluator;

impl<G: Game> Evaluator<G> for UniformEvaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<G>]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|r| Evaluation { policy: uniform(r.legal.len()), wdl: [0.0, 1.0, 0.0], score: 0.0 })
            .collect()
    }
}

fn uniform(n: usize) -> Vec<f32> {
    vec![1.0 / n.max(1) as f32; n]
}

/// Values positions by seeded random light playouts ([`random_playout`]): the fraction of
/// playouts the side to move wins, draws and loses, and their mean score margin. The
/// policy is uniform. A classic-MCTS stand-in for a network, for tests and baselines;
/// results depend only on the seed and the order of the requests.
#[derive(Clone, Debug)]
pub struct RolloutEvaluator {
    rng: Rng,
    playouts: u32,
}

impl RolloutEvaluator {
    /// One playout per position.
    pub fn new(seed: u64) -> RolloutEvaluator {
        RolloutEvaluator::with_playouts(seed, 1)
    }

    /// `playouts` (at least 1) playouts per position, averaged.
    pub fn with_playouts(seed: u64, playouts: u32) -> RolloutEvaluator {
        RolloutEvaluator { rng: Rng::new(seed), playouts: playouts.max(1) }
    }

    fn evaluate_one(&mut self, r: &EvalRequest<GameState>) -> Evaluation {
        let me = r.state.to_move();
        let mut wdl = [0.0f32; 3];
        let mut score = 0.0f64;
        let mut g = r.state.clone();
        for _ in 0..self.playouts {
            g.clone_from(&r.state);
            random_playout(&mut g, &mut self.rng);
            let s = g.score();
            let slot = match s.winner {
                Outcome::Draw => 1,
                w if w.value_for(me) > 0.0 => 0,
                _ => 2,
            };
            wdl[slot] += 1.0;
            score += match me {
                hane_engine::Color::Black => s.margin_black(),
                hane_engine::Color::White => -s.margin_black(),
            };
        }
        let n = self.playouts as f32;
        Evaluation {
            policy: uniform(r.legal.len()),
            wdl: wdl.map(|x| x / n),
            score: (score / f64::from(self.playouts)) as f32,
        }
    }
}

impl Evaluator<GameState> for RolloutEvaluator {
    fn evaluate(&mut self, batch: &[EvalRequest<GameState>]) -> Vec<Evaluation> {
        batch.iter().map(|r| self.evaluate_one(r)).collect()
    }
}
