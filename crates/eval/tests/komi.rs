//! The fair-komi estimator with the exact solver as its evaluator returns the exact fair komi.

use hane_engine::Rules;
use hane_eval::komi::{estimate, KomiSearch};
use hane_solver::{solve, SolveOptions};

fn exact(r: &str) -> (Rules, hane_solver::Solution) {
    let rules: Rules = r.parse().unwrap();
    let options = SolveOptions { table_bits: 18, ..SolveOptions::default() };
    let s = solve(&rules, &options, &mut |_| ()).unwrap();
    (rules, s)
}

#[test]
fn go_3x3_estimate_is_the_exact_9() {
    let (rules, mut s) = exact("ttakji,size=3,cap=none");
    // Start from the preset's komi 7: the lead (9 - 7) moves it to 9, where the smoothed win
    // rate is exactly 50% (Black wins at 8, draws at 9, loses at 10).
    let mut search = KomiSearch::for_rules(&rules);
    search.start = 7.0;
    let est = estimate(&search, &mut s).unwrap();
    assert_eq!((est.crossing, est.fair), (9.0, 9.0), "{est:?}");
    assert_eq!(Some(est.fair), s.fair.draw);
    // From far away the bracket still finds it.
    search.start = -20.0;
    search.max_shifts = 0;
    let est = estimate(&search, &mut s).unwrap();
    assert_eq!(est.fair, 9.0, "{est:?}");
}

#[test]
fn loose_3x3_estimate_brackets_the_exact_flip() {
    let (rules, mut s) = exact("loose,size=3");
    let est = estimate(&KomiSearch::for_rules(&rules), &mut s).unwrap();
    // No draws in Loose: the win flips between two even komi values.
    assert_eq!(
        (est.black_side, est.white_side),
        (s.fair.black_wins_up_to, s.fair.white_wins_from),
        "{est:?}"
    );
    assert_eq!((est.black_side, est.white_side, est.crossing), (6.0, 8.0, 7.0));
}

#[test]
fn sligo_3x3_estimate_is_exact() {
    let (rules, mut s) = exact("sligo,size=3");
    let est = estimate(&KomiSearch::for_rules(&rules), &mut s).unwrap();
    assert_eq!(Some(est.fair), s.fair.draw, "{est:?}");
}
