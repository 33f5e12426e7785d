//! The solver's checkable extras (`SolveOptions::values` and `SolveOptions::line`) against
//! separate solves with fresh tables: the value after every first turn and every member of
//! its symmetry class, and a principal variation that keeps the value at every step and ends
//! with the solved count.

use hane_engine::{Action, Game, GameState, Komi, Rules, Turn};
use hane_solver::{solve_after, Solution, SolveOptions};

/// The rule sets checked: superko, Loose, Sligo (turns of two actions), simple ko with the
/// move cap, territory scoring.
const RULES: [&str; 5] =
    ["ttakji,size=3", "loose,size=3", "sligo,size=3", "chinese,size=3,cap=20", "japanese,size=2,cap=12"];

fn with_lines(rules: &Rules) -> Solution {
    let options = SolveOptions { table_bits: 18, values: true, line: true, ..SolveOptions::default() };
    solve_after(rules, &[], &options, &mut |_| ()).unwrap()
}

/// The value of the position after `turns` (names) from the empty board, by a fresh solve.
fn value_after(rules: &Rules, turns: &[String]) -> i32 {
    let mut g = GameState::new(*rules);
    let mut actions: Vec<Action> = Vec::new();
    for name in turns {
        let t = Turn::parse(name, g.geo()).unwrap();
        for a in t.actions(&g).unwrap() {
            g.play(a).unwrap();
            actions.push(a);
        }
    }
    let options = SolveOptions { table_bits: 18, ..SolveOptions::default() };
    solve_after(rules, &actions, &options, &mut |_| ()).unwrap().value
}

#[test]
fn the_value_of_each_first_move_is_that_of_its_own_solve() {
    for r in RULES {
        let rules: Rules = r.parse().unwrap();
        let s = with_lines(&rules);
        let legal = Turn::legal(&GameState::new(rules));
        let listed: Vec<&String> = s.values.iter().flat_map(|v| &v.turns).collect();
        assert_eq!(listed.len(), legal.len(), "{r}: every first turn once: {:?}", s.values);
        for t in &legal {
            assert!(listed.contains(&&t.name(GameState::new(rules).geo())), "{r}: {t:?} missing");
        }
        for v in &s.values {
            for t in &v.turns {
                assert_eq!(value_after(&rules, std::slice::from_ref(t)), v.value, "{r}: after {t}");
            }
        }
        // Black moves first: the best first turn has the position's value, listed first.
        assert_eq!(s.values[0].value, s.value, "{r}");
        assert!(s.values.windows(2).all(|w| w[0].value >= w[1].value), "{r}: best first");
    }
}

#[test]
fn the_principal_variation_keeps_the_value_to_the_end() {
    for r in RULES {
        let rules: Rules = r.parse().unwrap();
        let s = with_lines(&rules);
        let mut g = GameState::new(Rules { komi: Komi(0), ..rules });
        for (i, name) in s.line.iter().enumerate() {
            assert!(!g.is_over(), "{r}: the game ended before {name}");
            Turn::parse(name, g.geo()).unwrap().play(&mut g).unwrap();
            if !g.is_over() {
                assert_eq!(value_after(&rules, &s.line[..=i]), s.value, "{r}: after {:?}", &s.line[..=i]);
            }
        }
        assert!(g.is_over(), "{r}: the line ends the game: {:?}", s.line);
        let score = g.score();
        assert_eq!((score.black - score.white).round() as i32, s.margin, "{r}: {:?}", s.line);
    }
}
