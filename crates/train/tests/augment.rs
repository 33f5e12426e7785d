//! The symmetry augmentation moves the policy and ownership targets with the planes.
//!
//! The check runs through the real loader: a shard holding one position with a known best
//! move is augmented over many batches. Each augmented row must equal, plane for plane,
//! the encoding of the position replayed through one of the engine's eight symmetries —
//! and then its policy target must name the transformed best move, and its ownership target
//! the transformed ownership.

mod common;

use common::{tiny, Temp};
use hane_data::features::encode;
use hane_data::shard::{self, Row};
use hane_engine::score::{dead_stones, owners};
use hane_engine::symmetry::Symmetry;
use hane_engine::{Action, Color, Game, GameState, Rules};
use hane_nn::NetConfig;
use hane_train::loader::{Loader, Message};
use hane_train::TrainConfig;

/// Plays `moves` (by name, `pass`, or a Sligo slide `C3>D4`) mapped through `s`.
fn replay(rules: Rules, moves: &[&str], s: Symmetry) -> GameState {
    let mut g = GameState::new(rules);
    let geo = g.geo();
    for m in moves {
        let a = action(&g, m);
        let a = s.apply_action(geo, a);
        g.play(a).unwrap_or_else(|e| panic!("{m} under {s:?}: {e}"));
    }
    g
}

fn action(g: &GameState, m: &str) -> Action {
    let geo = g.geo();
    if m == "pass" {
        return Action::Pass;
    }
    if m == "noslide" {
        return Action::NoSlide;
    }
    if let Some((f, t)) = m.split_once('>') {
        let (f, t) = (geo.parse(f).unwrap(), geo.parse(t).unwrap());
        let d = hane_engine::Dir::ALL.into_iter().find(|&d| geo.step(f, d) == Some(t)).unwrap();
        return Action::Slide(f, d);
    }
    Action::Place(geo.parse(m).unwrap())
}

/// Final-area ownership of `g` from the side to move's view, dense order.
fn ownership(g: &GameState, me: Color) -> Vec<i8> {
    let b = g.board().clone();
    owners(&b, &dead_stones(g, &b)).iter().map(|o| o.map_or(0, |c| if c == me { 1 } else { -1 })).collect()
}

/// Checks one position: `moves` lead to it, `best` is its known best move.
fn check(rules: &str, moves: &[&str], best: &str) {
    let rules: Rules = rules.parse().unwrap();
    let g = replay(rules, moves, Symmetry::IDENTITY);
    let geo = g.geo();
    let best = action(&g, best);
    let me = g.to_move();
    let mut after_best = g.clone();
    after_best.play(best).unwrap();
    let (planes, globals) = encode(&g);
    let mut policy = vec![0.0; g.action_space()];
    policy[g.action_index(best)] = 1.0;
    let row = Row {
        planes,
        globals,
        policy,
        value: [1.0, 0.0, 0.0],
        score: 3.0,
        ownership: ownership(&after_best, me),
    };

    // The eight transformed positions, computed by the engine.
    let expected: Vec<(Vec<u8>, usize, Vec<i8>)> = Symmetry::ALL
        .iter()
        .map(|&s| {
            let gs = replay(rules, moves, s);
            let best_s = s.apply_action(geo, best);
            let mut after = gs.clone();
            after.play(best_s).unwrap();
            // The engine agrees that the transformed best move does the same thing.
            assert_eq!(s.apply_board(after_best.board()).rows(), after.board().rows(), "{s:?}");
            (encode(&gs).0, gs.action_index(best_s), ownership(&after, me))
        })
        .collect();

    let tmp = Temp::new(&format!("augment-{}", rules.variant as u8));
    let bytes = shard::encode(std::slice::from_ref(&row), &rules.to_string(), geo.size(), 1, "test");
    shard::write_atomic(&tmp.0.join("a.npz"), &bytes).unwrap();
    let cfg = TrainConfig { batch_size: 8, shuffle_rows: 8, ..tiny(&rules.to_string()) };
    let net = NetConfig::new(&rules, cfg.net);
    let mut loader = Loader::start(&cfg, rules, net, &tmp.0, 17);
    let (n2, m) = (geo.area(), g.action_space());
    let mut seen = [false; 8];
    for _ in 0..20 {
        let b = loop {
            match loader.recv() {
                Message::Batch(b) => break b,
                Message::Failed(e) => panic!("{e}"),
                _ => {}
            }
        };
        for i in 0..b.rows {
            let planes = &b.planes[i * planes_len(n2)..(i + 1) * planes_len(n2)];
            let k = expected
                .iter()
                .position(|e| e.0 == planes)
                .expect("augmented planes are one of the 8 symmetric encodings");
            seen[k] = true;
            let policy = &b.policy[i * m..(i + 1) * m];
            let argmax = (0..m).max_by(|&x, &y| policy[x].total_cmp(&policy[y])).unwrap();
            assert_eq!(argmax, expected[k].1, "policy target under {:?}", Symmetry::ALL[k]);
            assert_eq!(policy.iter().sum::<f32>(), 1.0);
            let own: Vec<i8> = b.ownership[i * n2..(i + 1) * n2].iter().map(|&o| o as i8).collect();
            assert_eq!(own, expected[k].2, "ownership target under {:?}", Symmetry::ALL[k]);
            assert_eq!(&b.globals[i * row.globals.len()..(i + 1) * row.globals.len()], &row.globals[..]);
            assert_eq!((b.wdl[3 * i], b.score[i]), (1.0, 3.0));
        }
    }
    assert!(seen.iter().all(|&s| s), "all eight symmetries drawn: {seen:?}");
}

fn planes_len(n2: usize) -> usize {
    hane_data::features::PLANES * n2
}

#[test]
fn go_capture_moves_with_the_board() {
    // White's stone at B4 is in atari; Black's best move captures it at B5 (an edge point,
    // so every symmetry puts it somewhere else).
    //
    //     A B C D E
    //   5 . . . . .
    //   4 X O X . .
    //   3 . X . . .
    //   2 . . . . O
    //   1 . . . . .
    check("ttakji,size=5", &["A4", "B4", "C4", "E2", "B3", "pass"], "B5");
}

#[test]
fn sligo_slide_direction_moves_with_the_board() {
    // The best first decision is a diagonal slide; its direction must turn with the board.
    check("sligo,size=5", &["noslide", "B2", "noslide", "D4", "noslide", "C2", "noslide", "D3"], "C2>D1");
}
