//! Komi randomisation, as KataGo does it: each game draws its komi around the rule set's
//! komi so the score head sees how the result depends on komi. Draws respect each rule
//! set's komi domain.

use hane_engine::rng::Rng;
use hane_engine::rules::{Komi, Variant};
use hane_engine::Rules;

/// The komi domain of a rule set as (step, offset) in half-points: allowed komi are
/// `offset + k * step`. Loose: even integers; `ttakji`: integers; territory Go
/// (`brainking`, `japanese`): x.5 so there are no draws; otherwise any multiple of 0.5.
pub fn domain(r: &Rules) -> (i32, i32) {
    match (r.variant, r.preset_name()) {
        (Variant::Loose, _) => (4, 0),
        (_, Some("ttakji")) => (2, 0),
        (Variant::Go, _) if r.scoring == hane_engine::rules::Scoring::Territory => (2, 1),
        _ => (1, 0),
    }
}

/// The nearest komi of the domain to `k` half-points.
pub fn snap(r: &Rules, k: f64) -> Komi {
    let (step, offset) = domain(r);
    let n = ((k - f64::from(offset)) / f64::from(step)).round();
    Komi(offset + n as i32 * step)
}

/// A komi drawn from a normal distribution around the rules' komi with `stdev` points,
/// snapped to the domain.
pub fn randomise(r: &Rules, stdev: f32, rng: &mut Rng) -> Komi {
    if stdev <= 0.0 {
        return r.komi;
    }
    // Box-Muller.
    let u1 = rng.unit().max(1e-12);
    let u2 = rng.unit();
    let z = (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos();
    snap(r, f64::from(r.komi.0) + 2.0 * f64::from(stdev) * z)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_stay_in_each_domain() {
        let mut rng = Rng::new(7);
        for (spec, check) in [
            ("loose", (|k: i32| k % 4 == 0) as fn(i32) -> bool),
            ("ttakji", |k| k % 2 == 0),
            ("brainking", |k| k.rem_euclid(2) == 1),
            ("sligo", |_| true),
        ] {
            let r: Rules = spec.parse().unwrap();
            let mut distinct = std::collections::BTreeSet::new();
            for _ in 0..200 {
                let k = randomise(&r, 2.0, &mut rng);
                assert!(check(k.0), "{spec}: {k}");
                let mut r2 = r;
                r2.komi = k;
                assert!(r2.validate().is_ok(), "{spec}: {k}");
                distinct.insert(k.0);
            }
            assert!(distinct.len() > 2, "{spec}: komi should vary");
        }
        let r: Rules = "ttakji".parse().unwrap();
        assert_eq!(randomise(&r, 0.0, &mut rng), r.komi);
    }
}
