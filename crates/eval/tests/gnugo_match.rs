//! A real match against GNU Go (`gnugo`, installed by `scripts/setup.sh`): GNU Go's moves
//! are checked and played on hane's board, and hane's rules and scoring decide the games.

use hane_engine::{Game, GameState, Rules};
use hane_eval::arena::{run_match, MatchSettings};
use hane_eval::gtp::{gnugo_program, GtpEngine};
use hane_eval::referee::{GtpPlayer, SearchPlayer};
use hane_mcts::RolloutEvaluator;

#[test]
fn gnugo_match_is_refereed_and_scored_by_hane() {
    let rules: Rules = "ttakji,size=7,komi=9".parse().unwrap();
    let engine = GtpEngine::spawn(&format!("{} --mode gtp --level 1 --chinese-rules", gnugo_program()))
        .expect("gnugo must be installed (scripts/setup.sh installs it)");
    let mut gnugo = GtpPlayer { engine };
    let mut hane = SearchPlayer {
        evaluator: RolloutEvaluator::new(1),
        visits: 32,
        seed: 1,
        label: "hane-rollout".into(),
    };
    let settings = MatchSettings { games: 2, opening_turns: 1, seed: 3 };
    let rep = run_match(&rules, &mut gnugo, &mut hane, &settings, &mut |_, _| {}).unwrap();
    assert_eq!(rep.a_results.games(), 2);
    for g in &rep.games {
        assert!(g.forfeit.is_none(), "{g:?}");
        // Replaying the recorded moves on hane's engine reproduces the verdict.
        let mut s = GameState::new(rules);
        for m in &g.moves {
            let a = if m == "pass" {
                hane_engine::Action::Pass
            } else {
                hane_engine::Action::Place(s.geo().parse(m).unwrap())
            };
            s.play(a).unwrap();
        }
        assert!(s.is_over(), "the game ran to its end: {g:?}");
        let score = s.score();
        assert_eq!(score.winner.letter(), g.winner);
        assert_eq!(score.margin_black(), g.margin_black);
    }
    println!("{}", rep.table());
}
