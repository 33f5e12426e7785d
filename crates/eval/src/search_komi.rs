//! A [`komi::KomiProbe`](crate::komi::KomiProbe) that reads the empty board with hane's
//! search: a fixed number of visits with a net (or any [`hane_mcts::Evaluator`]) at the komi
//! asked, as KataGo did for its 9x9 komi tables with deep searches. Black's win probability
//! is the win rate plus half the draw rate of the root's best move, and the lead is that
//! move's expected final margin (komi included), both from Black's side.
//!
//! # Why the best move, not the root's mean
//!
//! The root's mean averages every visit, including those PUCT spends on moves it explores
//! only to rule them out. Each of those visits reads a position worse for Black than the
//! best move's, so the mean is pulled from the value of best play towards the middle: a
//! board Black wins outright reads as, say, 0.9, and the komi where the reading crosses
//! 50% moves towards the side whose mistakes were explored. What a komi is fair for is
//! Black's best move, so the estimate reads the statistics of the move the search would
//! play: the most visited child (on a tie the one better for Black), which is also where
//! most of the search's information is. KataGo's reported root values do the same in a
//! softer way: `Search::getPrunedRootValues` (`cpp/search/searchresults.cpp`, "accurate
//! rootInfo even with a lot of wide root noise") recomputes the root from its children with
//! their weights pruned to what the play selection would give them; hane takes the limit of
//! that, the chosen child alone. Before any child has a visit (a single visit), the root's
//! own value is all there is.

use crate::komi::{Eval, KomiProbe};
use hane_engine::{Color, Game, GameState, Komi, Rules};
use hane_mcts::{Search, SearchConfig};

/// Deep searches from the empty board.
#[derive(Debug)]
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

impl<E: hane_mcts::Evaluator<GameState>> KomiProbe for SearchKomi<E> {
    fn eval(&mut self, k: Komi) -> Eval {
        let mut rules = self.rules;
        rules.komi = k;
        let root = GameState::new(rules);
        debug_assert_eq!(root.to_move(), Color::Black);
        self.calls += 1;
        let mut s = Search::new(root, SearchConfig::for_board(rules.size as usize), self.seed);
        s.run(&mut self.evaluator, self.visits, self.batch);
        best_child_value(&s)
    }
}

/// Black's win probability (a draw counting half) and lead after the best move of a search
/// from Black's empty board: the most visited child's statistics, on a tie of visits the
/// child better for Black (win probability, then lead); the root's mean when no child has
/// been visited. See the module docs for why not the root's mean.
pub fn best_child_value(s: &Search<GameState>) -> Eval {
    let win = |wdl: [f32; 3]| f64::from(wdl[0]) + 0.5 * f64::from(wdl[1]);
    match s.most_visited_child() {
        Some(c) => Eval { lead: f64::from(c.score), win: win(c.wdl) },
        None => {
            let v = s.root_value();
            Eval { lead: f64::from(v.score), win: win(v.wdl) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::komi::{estimate, KomiSearch};
    use hane_mcts::{EvalRequest, Evaluation, RolloutEvaluator};

    /// A deterministic evaluator of 5x5 positions: Black wins (lead 10) once Black holds
    /// the centre C3 and loses otherwise, except on the empty board, which is even; the
    /// policy is uniform.
    struct CentreWins;

    impl hane_mcts::Evaluator<GameState> for CentreWins {
        fn evaluate(&mut self, batch: &[EvalRequest<GameState>]) -> Vec<Evaluation> {
            batch
                .iter()
                .map(|r| {
                    let centre = r.state.geo().parse("c3").unwrap();
                    let black = r.state.board().color(centre) == Some(Color::Black);
                    let (wdl, score) = if r.state.turns() == 0 {
                        ([0.0, 1.0, 0.0], 0.0)
                    } else if black == (r.state.to_move() == Color::Black) {
                        ([1.0, 0.0, 0.0], 10.0)
                    } else {
                        ([0.0, 0.0, 1.0], -10.0)
                    };
                    Evaluation { policy: vec![1.0 / r.legal.len() as f32; r.legal.len()], wdl, score }
                })
                .collect()
        }
    }

    #[test]
    fn the_best_move_is_read_not_the_mean_of_all_visits() {
        // Black wins by taking the centre and loses by anything else. After 200 visits
        // the search plays the centre, whose statistics say Black wins; the root's mean
        // still carries the visits spent on the 25 losing moves (and the root's own even
        // evaluation), well below 1: what the old reading returned.
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let mut ev = SearchKomi { rules, evaluator: CentreWins, visits: 200, batch: 8, seed: 1, calls: 0 };
        let e = ev.eval(Komi(14));
        assert_eq!(e, Eval { lead: 10.0, win: 1.0 });
        let mut s = Search::new(GameState::new(rules), SearchConfig::for_board(5), 1);
        s.run(&mut CentreWins, 200, 8);
        let mean = s.root_value();
        assert!(mean.wdl[0] + 0.5 * mean.wdl[1] < 0.9, "{mean:?}");
        // One visit: only the root's own evaluation exists.
        let mut one = Search::new(GameState::new(rules), SearchConfig::for_board(5), 1);
        one.run(&mut CentreWins, 1, 1);
        assert_eq!(best_child_value(&one), Eval { lead: 0.0, win: 0.5 });
    }

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
