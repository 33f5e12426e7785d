//! Komi randomisation, as KataGo does it: each game draws its komi around the rule set's
//! komi so the score head sees how the result depends on komi. Draws respect each rule
//! set's komi domain.

use hane_engine::rng::Rng;
use hane_engine::rules::Komi;
use hane_engine::Rules;

/// The nearest komi of the rules' domain ([`Rules::komi_progression`]) to `k` half-points.
pub fn snap(r: &Rules, k: f64) -> Komi {
    let (offset, step) = r.komi_progression();
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
            ("sligo", |k| k % 2 == 0),
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
