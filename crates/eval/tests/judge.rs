//! The solver as a judge (`hane_eval::judge`): exact positions from random 3x3 games, and
//! players whose accuracy is known in advance: one that always plays a turn keeping the
//! value, one that always plays the worst.

use hane_engine::rng::Rng;
use hane_engine::{Action, Game, GameState, Rules, Turn};
use hane_eval::judge::{judge, ExactPosition};
use hane_host::Stop;
use hane_mcts::{EvalRequest, Evaluation, Evaluator};

/// Up to `n` exact positions of random 3x3 Go games, 2 to 5 turns in.
fn positions(n: usize) -> Vec<ExactPosition> {
    let rules: Rules = "ttakji,size=3,komi=3".parse().unwrap();
    let mut rng = Rng::new(11);
    let mut out = Vec::new();
    while out.len() < n {
        let mut g = GameState::new(rules);
        let mut turns = Vec::new();
        for _ in 0..2 + rng.below(4) {
            let legal: Vec<Turn> = Turn::legal(&g).into_iter().filter(|&t| t != Turn::Pass).collect();
            if legal.is_empty() || g.is_over() {
                break;
            }
            let t = legal[rng.below(legal.len())];
            t.play(&mut g).unwrap();
            turns.push(t);
        }
        if !g.is_over() {
            out.push(
                ExactPosition::solve(&rules, &turns, 1_000_000, Stop::default())
                    .unwrap()
                    .expect("3x3 solves"),
            );
        }
    }
    out
}

/// A player that knows the positions' values: its policy puts everything on the best turn
/// (or, `worst`, the worst) of the position it is asked about; elsewhere it is uniform.
struct Knowing {
    positions: Vec<(GameState, Action, Action)>,
    worst: bool,
}

impl Knowing {
    fn new(list: &[ExactPosition], worst: bool) -> Knowing {
        let positions = list
            .iter()
            .map(|p| {
                let g = p_state(p);
                let first = |v: &hane_solver::TurnValue| {
                    Turn::parse(&v.turns[0], g.geo()).unwrap().actions(&g).unwrap()[0]
                };
                let (best, worst) = (first(&p.values[0]), first(p.values.last().unwrap()));
                (g, best, worst)
            })
            .collect();
        Knowing { positions, worst }
    }
}

impl Evaluator<GameState> for Knowing {
    fn evaluate(&mut self, batch: &[EvalRequest<GameState>]) -> Vec<Evaluation> {
        batch
            .iter()
            .map(|r| {
                let known = self.positions.iter().find(|(g, ..)| {
                    g.board().hash() == r.state.board().hash() && g.turns() == r.state.turns()
                });
                let policy = match known {
                    Some((_, best, worst)) => {
                        let pick = if self.worst { worst } else { best };
                        r.legal.iter().map(|a| f32::from(u8::from(a == pick))).collect()
                    }
                    None => vec![1.0; r.legal.len()],
                };
                Evaluation { policy, wdl: [0.0, 1.0, 0.0], score: 0.0 }
            })
            .collect()
    }
}

#[test]
fn a_player_that_keeps_the_value_scores_one_and_the_worst_what_ties_allow() {
    let list = positions(12);
    // Black to move: values are listed best first; White to move, best first for White.
    let (raw, searched) = judge(&mut Knowing::new(&list, false), &list, 16, 1).unwrap();
    assert_eq!((raw.positions, raw.value, raw.result), (12, 1.0, 1.0), "{raw:?}");
    assert_eq!((raw.points_lost, raw.black_points_lost, raw.white_points_lost), (0.0, 0.0, 0.0));
    assert!(raw.result_at_stake > 0 && raw.result_at_stake < 12, "{raw:?}");
    assert_eq!((searched.positions, searched.result_at_stake), (12, raw.result_at_stake));
    assert!((0.0..=1.0).contains(&searched.value) && (0.0..=1.0).contains(&searched.result));
    // The worst turn keeps the value only where every turn has the same value (no test), and
    // the result nowhere it is at stake.
    let same = list.iter().filter(|p| !p.is_a_test()).count();
    let (raw, _) = judge(&mut Knowing::new(&list, true), &list, 16, 1).unwrap();
    assert_eq!((raw.value, raw.result), (same as f64 / 12.0, 0.0), "{raw:?}");
    assert!(raw.value < 1.0, "{raw:?}");
    // It gives away the gap between the best and the worst turn, in points (value = 4 ×
    // margin + tie), split by the side to move.
    let gap = |p: &ExactPosition| f64::from((p.value - p.values.last().unwrap().value).abs()) / 4.0;
    let mean = |black: bool| {
        let of: Vec<f64> = list.iter().filter(|p| (p.turns.len() % 2 == 0) == black).map(gap).collect();
        assert!(!of.is_empty(), "both sides to move among the positions");
        of.iter().sum::<f64>() / of.len() as f64
    };
    let all = list.iter().map(gap).sum::<f64>() / 12.0;
    assert!(all > 0.0);
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
    assert!(close(raw.points_lost, all), "{raw:?} against {all}");
    assert!(close(raw.black_points_lost, mean(true)) && close(raw.white_points_lost, mean(false)), "{raw:?}");
}

#[test]
fn a_budget_too_small_gives_no_position_and_positions_serialise() {
    let rules: Rules = "ttakji,size=4".parse().unwrap();
    let opening = [Turn::Place(GameState::new(rules).geo().parse("B2").unwrap())];
    assert_eq!(ExactPosition::solve(&rules, &opening, 50, Stop::default()).unwrap(), None);
    let list = positions(2);
    let text = serde_json::to_string(&list).unwrap();
    let back: Vec<ExactPosition> = serde_json::from_str(&text).unwrap();
    assert_eq!(back, list);
    // What a turn keeps: after B2 on 3x3 Black keeps its +9 whatever White does.
    let rules: Rules = "ttakji,size=3,komi=3".parse().unwrap();
    let p = ExactPosition::solve(
        &rules,
        &[Turn::Place(GameState::new(rules).geo().parse("B2").unwrap())],
        1 << 20,
        Stop::default(),
    )
    .unwrap()
    .unwrap();
    assert_eq!(p.value, 36);
    for t in Turn::legal(&p_state(&p)) {
        let kept = p.keeps(t).unwrap();
        assert!(kept.value && kept.result, "{t:?}");
    }
}

/// The position's state.
fn p_state(p: &ExactPosition) -> GameState {
    let mut g = GameState::new(p.rules);
    for t in &p.turns {
        Turn::play_named(&mut g, t).unwrap();
    }
    g
}
