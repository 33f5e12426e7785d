//! A [`komi::Evaluator`](crate::komi::Evaluator) that reads the empty board with hane's
//! search: a fixed number of visits with a net (or any [`hane_mcts::Evaluator`]) at the komi
//! asked, as KataGo did for its 9x9 komi tables with deep searches. Black's win probability
//! is the root's win rate plus half its draw rate, and the lead is the root's expected final
//! margin (komi included), both from Black's side.

use crate::komi::{Eval, Evaluator};
use hane_engine::{Color, Game, GameState, Komi, Rules};
use hane_mcts::{Search, SearchConfig};

/// Deep searches from the empty board.
pub struct SearchKomi<E: hane_mcts::Evaluator<GameState>> {
    /// The rules; komi is replaced by the one asked.
    pub rules: Rules,
    /// The evaluator guiding the search.
    pub evaluator: E,
    /// Visits per evaluation.
    pub visits: u32,
    /// Leaves evaluated together.
    pub batch: usize,
    /// Seed of the search.
    pub seed: u64,
    /// Evaluations made.
    pub calls: u32,
}

impl<E: hane_mcts::Evaluator<GameState>> Evaluator for SearchKomi<E> {
    fn eval(&mut self, k: Komi) -> Eval {
        let mut rules = self.rules;
        rules.komi = k;
        let root = GameState::new(rules);
        debug_assert_eq!(root.to_move(), Color::Black);
        self.calls += 1;
        let mut s = Search::new(root, SearchConfig::for_board(rules.size as usize), self.seed);
        s.run(&mut self.evaluator, self.visits, self.batch);
        let v = s.root_value();
        Eval { lead: f64::from(v.score), win: f64::from(v.wdl[0] + 0.5 * v.wdl[1]) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::komi::{estimate, KomiSearch};
    use hane_mcts::RolloutEvaluator;

    #[test]
    fn rollout_search_on_3x3_go_finds_the_whole_board_lead() {
        // 3x3 area Go is Black +9 (the solver's test). Rollouts read the centre opening
        // well enough to land near it; the estimator must return a komi in the domain.
        let rules: Rules = "ttakji,size=3".parse().unwrap();
        let mut ev = SearchKomi {
            rules,
            evaluator: RolloutEvaluator::new(1),
            visits: 400,
            batch: 8,
            seed: 1,
            calls: 0,
        };
        let e = estimate(&KomiSearch::for_rules(&rules), &mut ev).unwrap();
        assert!(ev.calls as usize == e.evaluations.len() && ev.calls >= 2);
        assert!((5.0..=13.0).contains(&e.crossing), "{e:?}");
    }
}
