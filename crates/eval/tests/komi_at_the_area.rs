//! Fair komi where Black takes the whole board: on 3x3 (and, ignored for its minutes of solving, 4x4 without a turn cap) area Go,
//! the exact solver as evaluator must give the exact fair komi, even where it equals the
//! board's area (3x3: Black +9), at the edge of the estimator's search bound.

use hane_engine::Rules;
use hane_eval::komi::{curve, curve_span, estimate, KomiSearch};
use hane_solver::{solve, SolveOptions};
use std::time::Instant;

fn exact(r: &str) -> (Rules, hane_solver::Solution) {
    let rules: Rules = r.parse().unwrap();
    // As `hane komi --evaluator solver` solves (with a smaller table: same result).
    let options = SolveOptions { table_bits: 20, ..SolveOptions::default() };
    let s = solve(&rules, &options, &mut |_| ()).unwrap();
    (rules, s)
}

#[test]
fn go_3x3_fair_komi_is_the_area() {
    for r in ["ttakji,size=3", "ttakji,size=3,cap=none"] {
        let (rules, mut s) = exact(r);
        assert_eq!(s.fair.draw, Some(9.0), "{r}");
        let search = KomiSearch::for_rules(&rules);
        // From the preset's komi, from far below, and from far above, without the lead.
        for (start, shifts) in [(rules.komi.as_f64(), 3), (-9.0, 0), (0.0, 0), (9.0, 0)] {
            let search = KomiSearch { start, max_shifts: shifts, ..search };
            let est = estimate(&search, &mut s).unwrap();
            assert_eq!((est.crossing, est.fair), (9.0, 9.0), "{r} from {start}: {est:?}");
            // The curve reaches past the area, where White wins everything.
            let c = curve(&search, &est, curve_span(&rules), &mut s);
            assert!(c.windows(2).all(|w| w[0].komi < w[1].komi), "{c:?}");
            for p in &c {
                let want = if p.komi < 9.0 {
                    1.0
                } else if p.komi == 9.0 {
                    0.5
                } else {
                    0.0
                };
                assert_eq!(p.eval.win, want, "{p:?}");
            }
            assert!(c.iter().any(|p| p.komi >= 10.0) && c.iter().any(|p| p.komi <= 3.0), "{c:?}");
        }
    }
}

#[test]
#[ignore = "solving 4x4 takes 333 to 511 s in release mode (crates/solver/tests/solver.rs)"]
fn go_4x4_fair_komi_is_2() {
    let clock = Instant::now();
    let (rules, mut s) = exact("ttakji,size=4,cap=none");
    eprintln!("4x4 solved in {:.1} s", clock.elapsed().as_secs_f64());
    let est = estimate(&KomiSearch::for_rules(&rules), &mut s).unwrap();
    assert_eq!((est.crossing, est.fair), (2.0, 2.0), "{est:?}");
}
