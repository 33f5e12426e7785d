//! Whole games with search under every preset at 5x5, driven the way self-play drives
//! them: playout cap randomization, noise on full searches only, a decaying temperature,
//! tree reuse between decisions. Checks the visit accounting at every decision, the policy
//! target of full searches, Sligo's two decisions per turn, and that every game ends.

mod common;

use common::rules;
use hane_engine::rng::Rng;
use hane_engine::rules::PRESETS;
use hane_engine::{Action, Game, GameState};
use hane_mcts::{
    temperature, Evaluator, PlayoutCap, RolloutEvaluator, Search, SearchConfig, TemperatureSchedule,
    UniformEvaluator,
};

/// Plays one game; returns the number of decisions.
fn play_game(rules_str: &str, ev: &mut impl Evaluator<GameState>, seed: u64) -> u32 {
    let g = GameState::new(rules(rules_str));
    let size = g.geo().size();
    let cap = PlayoutCap { full_visits: 32, fast_visits: 8, p_full: 0.25 };
    let schedule = TemperatureSchedule::for_board(size);
    let mut rng = Rng::new(seed);
    let mut s = Search::new(g, SearchConfig::for_board(size), seed);
    let mut decisions = 0;
    while !s.root().is_over() {
        let (visits, full) = cap.choose(&mut rng);
        s.set_noise(full);
        s.run(ev, s.root_visits() + visits, 4);
        let children: u32 = s.visit_counts().iter().map(|&(_, n)| n).sum();
        assert_eq!(children + 1, s.root_visits(), "{rules_str}: decision {decisions}");
        if full {
            let target = s.policy_target();
            let sum: f32 = target.iter().map(|t| t.1).sum();
            assert!((sum - 1.0).abs() < 1e-4, "{rules_str}: target sums to {sum}");
        }
        let mover = s.root().to_move();
        let a = s.select_action(temperature(s.root().turns(), schedule));
        s.advance(a);
        if matches!(a, Action::NoSlide | Action::Slide(..)) {
            assert_eq!(s.root().to_move(), mover, "{rules_str}: a Sligo turn is one player's");
            assert!(!s.root().is_over());
        }
        decisions += 1;
        assert!(s.root().turns() <= s.root().rules().max_turns(), "{rules_str}: past the move cap");
    }
    decisions
}

#[test]
fn every_preset_plays_whole_games_with_search() {
    for (i, name) in PRESETS.iter().enumerate() {
        let rules_str = format!("{name},size=5");
        let n = play_game(&rules_str, &mut UniformEvaluator, i as u64);
        assert!(n > 0, "{rules_str}");
    }
}

#[test]
fn rollout_games_end_too() {
    for (i, name) in ["ttakji", "loose", "sligo"].iter().enumerate() {
        let rules_str = format!("{name},size=5");
        play_game(&rules_str, &mut RolloutEvaluator::new(i as u64), i as u64);
    }
}
