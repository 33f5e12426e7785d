//! Two biases of an untrained search: exact PUCT ties going to the lowest action index, and
//! premature passes in area-scoring Go.

mod common;

use common::{position, rules};
use hane_engine::{Action, Game, GameState};
use hane_mcts::{Evaluator, Gather, Search, SearchConfig, UniformEvaluator};
use std::collections::HashSet;

/// The first move of a uniform-evaluator search of `visits` visits on the empty 5x5 board.
fn first_move(seed: u64, visits: u32) -> Action {
    let mut s = Search::new(GameState::new(rules("ttakji,size=5")), SearchConfig::for_board(5), seed);
    s.run(&mut UniformEvaluator, visits, 1);
    s.select_action(0.0)
}

#[test]
fn exact_ties_spread_over_the_board_and_follow_the_seed() {
    for visits in [2, 8] {
        let moves: Vec<Action> = (0..60).map(|seed| first_move(seed, visits)).collect();
        let distinct: HashSet<Action> = moves.iter().copied().collect();
        // 60 draws from 25 points: about 22 distinct ones when uniform.
        assert!(distinct.len() >= 15, "{visits} visits: {distinct:?}");
        for (seed, &a) in moves.iter().enumerate().take(10) {
            assert_eq!(first_move(seed as u64, visits), a, "seed {seed}");
        }
    }
}

/// Runs a uniform-evaluator search by hand and returns every position it asked to evaluate
/// with the actions it listed there.
fn requests(
    g: &GameState,
    cfg: SearchConfig,
    visits: u32,
) -> (Search<GameState>, Vec<(GameState, Vec<Action>)>) {
    let mut s = Search::new(g.clone(), cfg, 5);
    let mut seen = Vec::new();
    while s.root_visits() < visits {
        match s.gather() {
            Gather::Leaf(id, req) => {
                let e = UniformEvaluator.evaluate(std::slice::from_ref(&req));
                seen.push((req.state, req.legal));
                s.apply(id, &e[0]);
            }
            Gather::Terminal => {}
            Gather::Busy => panic!("nothing is in flight"),
        }
    }
    (s, seen)
}

#[test]
fn no_premature_pass_anywhere_in_the_tree() {
    let g = position("ttakji,size=5", &["C3"]);
    let cfg = SearchConfig::for_board(5);
    let (mut s, seen) = requests(&g, cfg, 400);
    assert!(s.root_children().iter().all(|c| c.action != Action::Pass));
    for t in [0.0, 1.0] {
        for _ in 0..20 {
            assert_ne!(s.select_action(t), Action::Pass);
        }
    }
    for (state, legal) in &seen {
        let mut all = Vec::new();
        state.legal_actions(&mut all);
        let premature = state.pass_is_premature();
        assert_eq!(legal.contains(&Action::Pass), !premature, "{state}");
        assert_eq!(legal.len() + usize::from(premature), all.len(), "{state}");
    }
    assert!(seen.len() > 100, "{}", seen.len());
    // Switched off, every position lists the pass.
    let (s, seen) = requests(&g, SearchConfig { prune_premature_pass: false, ..cfg }, 100);
    assert!(s.root_children().iter().any(|c| c.action == Action::Pass));
    assert!(seen.iter().all(|(_, legal)| legal.contains(&Action::Pass)));
}

#[test]
fn territory_scoring_keeps_the_pass() {
    let g = position("brainking,size=5", &["C3"]);
    let (s, _) = requests(&g, SearchConfig::for_board(5), 50);
    assert!(s.root_children().iter().any(|c| c.action == Action::Pass));
}

/// Black's whole-board group with two eyes, reached by Black placing and White passing.
/// White's placements are all suicide and Black's fill its own eyes: no open placement.
///
/// ```text
/// X X X X X
/// X . X . X
/// X X X X X
/// X X X X X
/// X X X X X
/// ```
#[test]
fn a_settled_board_can_pass() {
    let mut moves = Vec::new();
    for row in ["5", "4", "3", "2", "1"] {
        for col in ["A", "B", "C", "D", "E"] {
            if row == "4" && (col == "B" || col == "D") {
                continue;
            }
            if !moves.is_empty() {
                moves.push("pass".to_string());
            }
            moves.push(format!("{col}{row}"));
        }
    }
    let refs: Vec<&str> = moves.iter().map(String::as_str).collect();
    // White to move: the pass is its only action, and the search plays it.
    let mut g = position("ttakji,size=5", &refs);
    assert!(!g.pass_is_premature());
    let (mut s, _) = requests(&g, SearchConfig::for_board(5), 10);
    assert_eq!(s.select_action(0.0), Action::Pass);
    // Black to move after that pass: its eyes are no open points, so the pass is listed.
    g.play(Action::Pass).unwrap();
    assert!(!g.pass_is_premature());
    let (s, _) = requests(&g, SearchConfig::for_board(5), 50);
    assert!(s.root_children().iter().any(|c| c.action == Action::Pass));
}
