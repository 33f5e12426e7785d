//! Invariants of the search machinery: reproducibility, visit accounting, batching with
//! virtual loss, exact terminal values from both sides, tree reuse, root noise, forced
//! playouts and the pruned policy target.

mod common;

use common::{position, rules};
use hane_engine::{Action, Game, GameState};
use hane_mcts::{Evaluator, Gather, PolicyTarget, RolloutEvaluator, Search, SearchConfig, UniformEvaluator};
use std::collections::HashSet;

/// Sum of the root's child visits.
fn child_sum<G: Game>(s: &Search<G>) -> u32 {
    s.visit_counts().iter().map(|&(_, n)| n).sum()
}

fn fresh(rules_str: &str) -> GameState {
    GameState::new(rules(rules_str))
}

#[test]
fn same_seed_same_search() {
    for noise in [false, true] {
        let cfg = SearchConfig::for_board(7).with_noise(noise);
        let run = || {
            let mut s = Search::new(fresh("ttakji,size=7"), cfg, 11);
            s.run(&mut RolloutEvaluator::new(5), 300, 1);
            (s.visit_counts(), s.root_value(), s.policy_target())
        };
        assert_eq!(run(), run(), "noise {noise}");
    }
}

#[test]
fn manual_gather_apply_matches_run_with_batch_one() {
    let cfg = SearchConfig::for_board(7).with_noise(true);
    let mut by_run = Search::new(fresh("ttakji,size=7"), cfg, 3);
    by_run.run(&mut RolloutEvaluator::new(9), 200, 1);

    let mut by_hand = Search::new(fresh("ttakji,size=7"), cfg, 3);
    let mut ev = RolloutEvaluator::new(9);
    while by_hand.root_visits() < 200 {
        match by_hand.gather() {
            Gather::Leaf(id, req) => {
                let e = ev.evaluate(std::slice::from_ref(&req));
                by_hand.apply(id, &e[0]);
            }
            Gather::Terminal => {}
            Gather::Busy => panic!("nothing is in flight"),
        }
    }
    assert_eq!(by_run.visit_counts(), by_hand.visit_counts());
    assert_eq!(by_run.root_value(), by_hand.root_value());
}

#[test]
fn child_visits_are_root_visits_minus_its_own_evaluation() {
    for batch in [1, 8, 32] {
        let mut s = Search::new(fresh("ttakji,size=5"), SearchConfig::for_board(5), 1);
        s.run(&mut RolloutEvaluator::new(2), 400, batch);
        assert_eq!(s.root_visits(), 400, "batch {batch}");
        assert_eq!(child_sum(&s), 399, "batch {batch}");
        assert_eq!(s.pending(), 0);
        // Growing an existing search counts the visits already there.
        s.run(&mut RolloutEvaluator::new(3), 450, batch);
        assert_eq!((s.root_visits(), child_sum(&s)), (450, 449), "batch {batch}");
    }
}

#[test]
fn gather_on_a_fresh_tree_is_the_root_then_busy() {
    let mut s = Search::new(fresh("ttakji,size=5"), SearchConfig::default(), 0);
    let Gather::Leaf(id, req) = s.gather() else { panic!("a fresh tree hands out its root") };
    // 25 placements; passing on the open board is premature and left out.
    assert_eq!(req.legal.len(), 25);
    assert!(matches!(s.gather(), Gather::Busy));
    let e = UniformEvaluator.evaluate(&[req]);
    s.apply(id, &e[0]);
    assert_eq!((s.root_visits(), child_sum(&s)), (1, 0));
}

#[test]
fn virtual_loss_spreads_a_batch_over_distinct_leaves() {
    let mut s = Search::new(fresh("ttakji,size=9"), SearchConfig::default(), 0);
    let mut ev = UniformEvaluator;
    s.run(&mut ev, 1, 1);
    let n = 32;
    let mut ids = Vec::new();
    let mut reqs = Vec::new();
    for _ in 0..n {
        match s.gather() {
            Gather::Leaf(id, r) => {
                ids.push(id);
                reqs.push(r);
            }
            Gather::Terminal | Gather::Busy => panic!("expected a leaf"),
        }
    }
    let distinct_ids: HashSet<_> = ids.iter().collect();
    let distinct_states: HashSet<u64> = reqs.iter().map(|r| r.state.state_hash()).collect();
    assert_eq!((distinct_ids.len(), distinct_states.len()), (n, n));
    assert_eq!(s.pending(), n as u32);
    let evals = ev.evaluate(&reqs);
    for (id, e) in ids.into_iter().zip(&evals) {
        s.apply(id, e);
    }
    assert_eq!((s.root_visits(), child_sum(&s), s.pending()), (n as u32 + 1, n as u32, 0));
}

#[test]
#[should_panic(expected = "not waiting for an evaluation")]
fn applying_a_leaf_twice_is_refused() {
    let mut s = Search::new(fresh("ttakji,size=5"), SearchConfig::default(), 0);
    let Gather::Leaf(id, req) = s.gather() else { unreachable!() };
    let e = UniformEvaluator.evaluate(&[req]);
    s.apply(id, &e[0]);
    s.apply(id, &e[0]);
}

/// A pass that ends the game is valued exactly, in the view of the player who passes.
///
/// ```text
/// Black C3, White pass: Black's pass ends it, Black 25 - White 7 (komi) = Black +18.
/// Black pass, White C3, Black pass: White's pass ends it, White 25 + 7 = White +32.
/// ```
#[test]
fn terminal_values_are_exact_for_the_player_to_move() {
    for (moves, want_score) in [(&["C3", "pass"][..], 18.0), (&["pass", "C3", "pass"][..], 32.0)] {
        let g = position("ttakji,size=5", moves);
        // The pass is premature on this open board; let the search consider it anyway.
        let cfg = SearchConfig { prune_premature_pass: false, ..SearchConfig::for_board(5) };
        let mut s = Search::new(g.clone(), cfg, 0);
        s.run(&mut UniformEvaluator, 200, 4);
        let pass = s.root_children().into_iter().find(|c| c.action == Action::Pass).unwrap();
        assert!(pass.visits > 0);
        assert_eq!((pass.wdl, pass.score), ([1.0, 0.0, 0.0], want_score), "{moves:?}");
        // Ending the game with a win beats every unresolved alternative.
        assert_eq!(s.select_action(0.0), Action::Pass, "{moves:?}");
    }
}

#[test]
fn a_finished_game_is_terminal_at_the_root() {
    let g = position("ttakji,size=5", &["C3", "pass", "pass"]);
    assert!(g.is_over());
    let mut s = Search::new(g, SearchConfig::default(), 0);
    assert!(matches!(s.gather(), Gather::Terminal));
    let v = s.root_value();
    // Black won, but nobody is to move: the value is in the view of the recorded side
    // to move (White, after Black's pass).
    assert_eq!((v.visits, v.wdl, v.score), (1, [0.0, 0.0, 1.0], -18.0));
    s.run(&mut UniformEvaluator, 50, 1);
    assert_eq!(s.root_visits(), 1, "run leaves a finished game alone");
}

#[test]
fn advance_keeps_the_chosen_subtree() {
    let mut s = Search::new(fresh("ttakji,size=5"), SearchConfig::for_board(5), 4);
    let mut ev = RolloutEvaluator::new(4);
    s.run(&mut ev, 300, 1);
    let a = s.select_action(0.0);
    let kept = s.visit_counts().iter().find(|&&(b, _)| b == a).unwrap().1;
    let after = {
        let mut g = s.root().clone();
        g.play(a).unwrap();
        g
    };
    s.advance(a);
    assert_eq!(s.root().state_hash(), after.state_hash());
    assert_eq!(s.root_visits(), kept);
    assert_eq!(child_sum(&s), kept - 1);
    // The reused subtree grows on; an untried action starts a fresh tree.
    s.run(&mut ev, 300, 4);
    assert_eq!((s.root_visits(), child_sum(&s)), (300, 299));
    let untried = s.visit_counts().into_iter().find(|&(_, n)| n == 0).map(|(a, _)| a);
    if let Some(b) = untried {
        s.advance(b);
        assert_eq!(s.root_visits(), 0);
    }
}

#[test]
fn root_noise_and_forced_playouts() {
    let g = fresh("ttakji,size=7");
    let cfg = SearchConfig::for_board(7).with_noise(true);
    let mut s = Search::new(g.clone(), cfg, 8);
    s.run(&mut RolloutEvaluator::new(8), 600, 1);
    let kids = s.root_children();
    let n = kids.len() as f32;
    let priors: Vec<f32> = kids.iter().map(|c| c.prior).collect();
    assert!((priors.iter().sum::<f32>() - 1.0).abs() < 1e-4);
    assert!(priors.iter().any(|&p| (p - 1.0 / n).abs() > 1e-3), "noise changes a uniform prior");

    // Every child the search tried got (about) its forced playouts sqrt(k * P * total).
    let total = child_sum(&s) as f32;
    for c in kids.iter().filter(|c| c.visits > 0) {
        let forced = (2.0 * c.prior * total).sqrt();
        assert!(c.visits as f32 + 1.0 >= forced, "{c:?} forced {forced}");
    }

    // The target removes forced playouts: it sums to 1, the most visited move keeps its
    // share of the visits or more, and no move gains.
    let target = s.policy_target();
    assert!((target.iter().map(|t| t.1).sum::<f32>() - 1.0).abs() < 1e-4);
    let best = kids.iter().max_by_key(|c| c.visits).unwrap();
    let t_best = target.iter().find(|t| t.0 == best.action).unwrap().1;
    assert!(t_best >= best.visits as f32 / total - 1e-6);
    let pruned = target.iter().filter(|t| t.1 == 0.0).count();
    let unvisited = kids.iter().filter(|c| c.visits == 0).count();
    assert!(pruned > unvisited, "some forced-only moves are pruned");

    // Without noise the root prior is the evaluator's and the target is the visit share.
    s.set_noise(false);
    assert!(s.root_children().iter().all(|c| (c.prior - 1.0 / n).abs() < 1e-6));
    let plain = s.policy_target();
    for ((a, p), (b, v)) in plain.iter().zip(s.visit_counts()) {
        assert_eq!(*a, b);
        assert!((p - v as f32 / total).abs() < 1e-6);
    }
}

#[test]
fn sampling_follows_the_temperature() {
    let mut s = Search::new(fresh("ttakji,size=5"), SearchConfig::for_board(5), 2);
    s.run(&mut RolloutEvaluator::new(1), 200, 1);
    let best = s.select_action(0.0);
    let visited: HashSet<Action> =
        s.visit_counts().into_iter().filter(|&(_, n)| n > 0).map(|(a, _)| a).collect();
    let mut seen = HashSet::new();
    for _ in 0..200 {
        let a = s.select_action(1.0);
        assert!(visited.contains(&a));
        seen.insert(a);
    }
    assert!(seen.len() > 1, "temperature 1 samples more than one move");
    for _ in 0..20 {
        assert_eq!(s.select_action(0.0), best);
    }
}

#[test]
fn a_move_filter_holds_at_the_depths_it_names() {
    let g = fresh("ttakji,size=5");
    let center = common::action(&g, "C3");
    let mut s = Search::new(g, SearchConfig::for_board(5), 4);
    // No C3 for the root's player, nor for anyone at depth 1; the opponent may play it later.
    s.set_move_filter(Box::new(move |depth, _, a| depth > 1 || *a != center));
    s.run(&mut UniformEvaluator, 400, 8);
    let root = s.visit_counts();
    assert!(!root.is_empty() && root.iter().all(|&(a, _)| a != center), "{root:?}");
    let replies = s.principal_variation(root[0].0, 2);
    assert!(replies.iter().all(|&(a, _)| a != center), "{replies:?}");
    // A filter that keeps nothing keeps every legal action.
    let search = |filtered: bool| {
        let mut s = Search::new(fresh("ttakji,size=5"), SearchConfig::for_board(5), 4);
        if filtered {
            s.set_move_filter(Box::new(|_, _, _| false));
        }
        s.run(&mut UniformEvaluator, 30, 8);
        s.visit_counts()
    };
    assert_eq!(search(true), search(false));
}

#[test]
fn the_completed_q_target_follows_the_values_and_leaves_the_visits_alone() {
    let cfg = SearchConfig::for_board(5).with_noise(true);
    let cq = SearchConfig { policy_target: PolicyTarget::CompletedQ, ..cfg };
    let run = |cfg| {
        let mut s = Search::new(fresh("ttakji,size=5"), cfg, 5);
        s.run(&mut RolloutEvaluator::new(3), 300, 1);
        s
    };
    let (plain, improved) = (run(cfg), run(cq));
    // The same search (visits, values): only the target differs.
    assert_eq!(plain.visit_counts(), improved.visit_counts());
    let target = improved.policy_target();
    assert!((target.iter().map(|&(_, p)| p).sum::<f32>() - 1.0).abs() < 1e-4);
    assert_ne!(target, plain.policy_target());
    // Rollouts rate the moves differently: the improved target is sharper than the prior
    // and puts its largest weight on a visited move.
    let visits: std::collections::HashMap<_, _> = improved.visit_counts().into_iter().collect();
    let (best, p) =
        target.iter().copied().fold((target[0].0, 0.0f32), |m, (a, p)| if p > m.1 { (a, p) } else { m });
    assert!(visits[&best] > 0, "{best:?} {p}");
    assert!(p > 1.0 / target.len() as f32, "{p}");
    // Without exploration (matches, analysis) the target stays the visit counts.
    let quiet = |cfg: SearchConfig| {
        let mut s = Search::new(fresh("ttakji,size=5"), cfg.with_noise(false), 5);
        s.run(&mut RolloutEvaluator::new(3), 100, 1);
        s.policy_target()
    };
    assert_eq!(quiet(cfg), quiet(cq));
}

#[test]
fn a_root_hint_is_searched_and_forgotten_after_the_move() {
    // A corner point of 7x7, which the uniform prior gives 1/n like any other of the n root
    // actions (the priors below are times n).
    let cfg = SearchConfig::for_board(7).with_noise(false);
    let corner = Action::Place(fresh("ttakji,size=7").geo().from_dense(0));
    let visits = |hint: bool| {
        let mut s = Search::new(fresh("ttakji,size=7"), cfg, 4);
        if hint {
            s.set_root_hint(corner, 0.5);
        }
        s.run(&mut UniformEvaluator, 200, 1);
        let n = s.visit_counts().iter().find(|&&(a, _)| a == corner).unwrap().1;
        let children = s.root_children();
        let prior = children.iter().find(|c| c.action == corner).unwrap().prior;
        (n, prior * children.len() as f32, s)
    };
    let (plain, p0, _) = visits(false);
    let (hinted, p1, mut s) = visits(true);
    assert!((p0 - 1.0).abs() < 1e-5, "{p0}");
    assert!(p1 > 20.0, "{p1}");
    assert!(hinted >= 50 && hinted > 5 * plain.max(1), "{hinted} against {plain}");
    // After a move the next root has no hint.
    let other = Action::Place(s.root().geo().from_dense(24));
    s.advance(other);
    s.run(&mut UniformEvaluator, 100, 1);
    let priors: Vec<f32> = s.root_children().iter().map(|c| c.prior).collect();
    assert!(priors.iter().all(|&p| (p - priors[0]).abs() < 1e-6), "{priors:?}");
}

/// A policy rising with the action's index, `[1, 2, .., n]` normalised, and an even value.
struct Ramp;

impl Evaluator<GameState> for Ramp {
    fn evaluate(&mut self, batch: &[hane_mcts::EvalRequest<GameState>]) -> Vec<hane_mcts::Evaluation> {
        batch
            .iter()
            .map(|r| {
                let n = r.legal.len();
                let total = (n * (n + 1) / 2) as f32;
                let policy = (1..=n).map(|i| i as f32 / total).collect();
                hane_mcts::Evaluation { policy, wdl: [0.0, 1.0, 0.0], score: 0.0 }
            })
            .collect()
    }
}

#[test]
fn the_root_policy_temperature_flattens_the_prior_and_only_while_exploring() {
    let spread = |t: f32, noise: bool| {
        let cfg = SearchConfig { noise_weight: 0.0, ..SearchConfig::for_board(5) }.with_noise(noise);
        let mut s = Search::new(fresh("ttakji,size=5"), cfg, 4);
        s.set_root_policy_temperature(t);
        s.run(&mut Ramp, 10, 1);
        let p: Vec<f32> = s.root_children().iter().map(|c| c.prior).collect();
        let (lo, hi) = p.iter().fold((f32::MAX, 0.0f32), |(lo, hi), &x| (lo.min(x), hi.max(x)));
        hi / lo
    };
    let raw = spread(1.0, true);
    // 5x5: 25 placements and the pass (premature, so left out): the ramp's largest over its
    // smallest prior is 25.
    assert!((raw - 25.0).abs() < 1e-3, "{raw}");
    // At temperature 2 the ratio is the square root of the raw one.
    assert!((spread(2.0, true) - 5.0).abs() < 1e-3);
    // Without exploration the root keeps the raw prior whatever the temperature.
    assert!((spread(2.0, false) - raw).abs() < 1e-3);
}

#[test]
fn policy_surprise_is_the_divergence_from_the_raw_prior() {
    let mut s = Search::new(fresh("ttakji,size=5"), SearchConfig::for_board(5), 1);
    s.run(&mut UniformEvaluator, 50, 1);
    let n = s.root_children().len();
    let actions: Vec<Action> = s.root_children().iter().map(|c| c.action).collect();
    let even: Vec<(Action, f32)> = actions.iter().map(|&a| (a, 1.0 / n as f32)).collect();
    assert!(s.policy_surprise(&even).abs() < 1e-5);
    let one: Vec<(Action, f32)> = actions.iter().enumerate().map(|(i, &a)| (a, f32::from(i == 0))).collect();
    assert!((s.policy_surprise(&one) - (n as f32).ln()).abs() < 1e-4);
    assert_eq!(s.policy_surprise(&[]), 0.0);
}
