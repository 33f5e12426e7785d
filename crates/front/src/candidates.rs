//! What a search says about its position, as analysis reports it: the candidate moves, best
//! first, with their statistics and principal variations, and the root's summary. Shared by
//! the GTP analysis commands and the JSON analysis engine, which only format it.
//!
//! Everything is from the view of the side to move at the root. A win rate counts a draw as
//! half a win. The lower confidence bound is the win rate minus 1.96 standard errors of a win
//! rate from `visits` samples (the binomial `sqrt(w (1 - w) / visits)`; the utility's bound
//! subtracts twice that margin, as the utility's win term is `win - loss`): hane's tree keeps
//! no per-visit variance of the win rate, so this is the usual normal approximation, not
//! KataGo's bound. The score is the search's mean score margin, and its spread the standard
//! deviation of that margin over the visits.

use hane_engine::playout::{self, Ownership};
use hane_engine::rng::Rng;
use hane_engine::{Action, GameState};
use hane_mcts::{Evaluator, Search};

/// Moves of a principal variation, at most.
pub const PV_LEN: usize = 24;

/// Visits an analysis searches between two looks at its input and its report clock.
pub const CHUNK_VISITS: u32 = 16;

/// Random playouts behind the reported ownership.
pub const OWNERSHIP_PLAYOUTS: usize = 256;

/// Who owns each point of `root` (Black's view, dense order: row-major from the top-left):
/// the evaluator's prediction when it has one (a net's ownership head; the spread of a point
/// whose expected owner is `m` is then `sqrt(1 - m²)`, that of an owner that is +1 or -1),
/// else [`OWNERSHIP_PLAYOUTS`] random light playouts seeded with `seed`.
pub fn ownership(evaluator: &mut impl Evaluator<GameState>, root: &GameState, seed: u64) -> Ownership {
    match evaluator.ownership(root) {
        Some(mean) => {
            let stdev = mean.iter().map(|m| (1.0 - m * m).max(0.0).sqrt()).collect();
            Ownership { mean, stdev }
        }
        None => playout::ownership(root, OWNERSHIP_PLAYOUTS, &mut Rng::new(seed)),
    }
}

/// One candidate move of the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The move.
    pub action: Action,
    /// Completed visits of the move.
    pub visits: u32,
    /// Mean win rate after it, a draw counting half (0 without visits).
    pub winrate: f32,
    /// What the lower confidence bounds subtract: 1.96 standard errors of the win rate.
    pub margin: f32,
    /// Mean search utility after it.
    pub utility: f32,
    /// Mean score margin after it, in points.
    pub score: f32,
    /// Standard deviation of the score margin over its visits.
    pub score_stdev: f32,
    /// Its prior as the search used it.
    pub prior: f32,
    /// The principal variation from it (the move first).
    pub pv: Vec<Action>,
    /// Visits of each move of `pv` (the first: `visits`).
    pub pv_visits: Vec<u32>,
}

impl Candidate {
    /// The lower confidence bound of the win rate (0 without visits).
    pub fn lcb(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.winrate - self.margin
        }
    }

    /// The lower confidence bound of the utility.
    pub fn utility_lcb(&self) -> f32 {
        self.utility - 2.0 * self.margin
    }
}

/// The root's own statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Summary {
    /// Completed visits of the root.
    pub visits: u32,
    /// Mean win rate, a draw counting half.
    pub winrate: f32,
    /// Mean utility.
    pub utility: f32,
    /// Mean score margin.
    pub score: f32,
    /// Standard deviation of the score margin over the visits.
    pub score_stdev: f32,
}

/// 1.96 standard errors of a win rate `w` from `visits` samples (0 without visits).
pub fn margin(w: f32, visits: u32) -> f32 {
    if visits == 0 {
        return 0.0;
    }
    1.96 * (w * (1.0 - w) / visits as f32).max(0.0).sqrt()
}

/// The win rate of win/draw/loss probabilities, a draw counting half.
fn winrate(wdl: [f32; 3]) -> f32 {
    wdl[0] + 0.5 * wdl[1]
}

/// The candidate moves, best first: the visited ones by visits (then win rate, then prior),
/// then unvisited ones by prior while fewer than `min_moves`; at most `max_moves` (0: all).
pub fn candidates(search: &Search<GameState>, min_moves: usize, max_moves: usize) -> Vec<Candidate> {
    let mut all = search.root_children();
    all.sort_by(|a, b| {
        b.visits
            .cmp(&a.visits)
            .then(winrate(b.wdl).total_cmp(&winrate(a.wdl)))
            .then(b.prior.total_cmp(&a.prior))
    });
    let visited = all.iter().filter(|c| c.visits > 0).count();
    let mut n = visited.max(min_moves).min(all.len());
    if max_moves > 0 {
        n = n.min(max_moves);
    }
    all.truncate(n);
    all.into_iter()
        .map(|c| {
            let w = winrate(c.wdl);
            let (pv, pv_visits) = search.principal_variation(c.action, PV_LEN).into_iter().unzip();
            Candidate {
                action: c.action,
                visits: c.visits,
                winrate: w,
                margin: margin(w, c.visits),
                utility: c.utility,
                score: c.score,
                score_stdev: c.score_stdev,
                prior: c.prior,
                pv,
                pv_visits,
            }
        })
        .collect()
}

/// The root's summary.
pub fn summary(search: &Search<GameState>) -> Summary {
    let r = search.root_value();
    Summary {
        visits: r.visits,
        winrate: winrate(r.wdl),
        utility: r.utility,
        score: r.score,
        score_stdev: r.score_stdev,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hane_engine::Game;
    use hane_mcts::{RolloutEvaluator, SearchConfig};

    #[test]
    fn the_bound_shrinks_with_visits() {
        assert_eq!(margin(0.7, 0), 0.0);
        assert!(margin(0.7, 10) > margin(0.7, 1000));
        assert!((margin(0.7, 1000) - 1.96 * (0.21f32 / 1000.0).sqrt()).abs() < 1e-6);
    }

    #[test]
    fn candidates_are_ranked_by_visits_with_their_variations() {
        let g = GameState::new("ttakji,size=5".parse().unwrap());
        let mut s = Search::new(g.clone(), SearchConfig::for_board(5), 3);
        s.run(&mut RolloutEvaluator::new(3), 40, 8);
        let c = candidates(&s, 0, 0);
        assert!(!c.is_empty() && c.iter().all(|c| c.visits > 0));
        assert!(c.windows(2).all(|w| w[0].visits >= w[1].visits));
        assert_eq!(c.iter().map(|c| c.visits).sum::<u32>() + 1, s.root_visits(), "the root's own visit");
        for m in &c {
            assert_eq!(m.pv[0], m.action);
            assert_eq!(m.pv_visits[0], m.visits);
            assert!(m.pv_visits.windows(2).all(|w| w[0] >= w[1]), "each next node is inside the last");
            let mut line = g.clone();
            for &a in &m.pv {
                line.play(a).expect("a variation of legal moves");
            }
            assert!(m.lcb() <= m.winrate && (0.0..=1.0).contains(&m.winrate));
        }
        let all = candidates(&s, 100, 0);
        assert_eq!(all.len(), s.root_children().len(), "every root move when asked for more");
        assert!(all.len() > c.len(), "40 visits leave some moves unvisited");
        assert!(all[c.len()..].iter().all(|m| m.visits == 0 && m.pv == [m.action]));
        assert_eq!(candidates(&s, 100, 3).len(), 3);
        let root = summary(&s);
        assert_eq!(root.visits, s.root_visits());
    }
}
