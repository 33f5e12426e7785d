//! Dirichlet noise for the root prior, sampled from the engine's seeded [`Rng`] so a
//! seeded search is reproducible.
//!
//! A Dirichlet sample is a vector of independent Gamma(alpha) draws divided by their sum.
//! Gamma draws use Marsaglia and Tsang's squeeze method for shape >= 1 and the boost
//! `Gamma(a) = Gamma(a + 1) * U^(1/a)` below 1, which is the common case here: with
//! KataGo's total concentration 10.83 spread over 80 legal moves each alpha is about 0.14.

use hane_engine::rng::Rng;

/// A Gamma(shape, 1) draw, `shape > 0`.
pub fn gamma(rng: &mut Rng, shape: f64) -> f64 {
    if shape < 1.0 {
        let u = 1.0 - rng.unit();
        return gamma(rng, shape + 1.0) * u.powf(1.0 / shape);
    }
    let d = shape - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let x = rng.normal();
        let v = 1.0 + c * x;
        if v <= 0.0 {
            continue;
        }
        let v = v * v * v;
        let u = 1.0 - rng.unit();
        if u < 1.0 - 0.0331 * x * x * x * x || u.ln() < 0.5 * x * x + d * (1.0 - v + v.ln()) {
            return d * v;
        }
    }
}

/// A sample of the symmetric Dirichlet distribution with `n` components of concentration
/// `alpha` each. Falls back to uniform if every draw underflows (tiny alphas).
pub fn dirichlet(rng: &mut Rng, alpha: f64, n: usize) -> Vec<f32> {
    let draws: Vec<f64> = (0..n).map(|_| gamma(rng, alpha.max(1e-6))).collect();
    let sum: f64 = draws.iter().sum();
    if sum > 0.0 && sum.is_finite() {
        draws.iter().map(|&g| (g / sum) as f32).collect()
    } else {
        vec![1.0 / n as f32; n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gamma_means_match_shape() {
        let mut rng = Rng::new(7);
        for shape in [0.15, 0.5, 1.0, 3.0] {
            let n = 20_000;
            let mean: f64 = (0..n).map(|_| gamma(&mut rng, shape)).sum::<f64>() / n as f64;
            assert!((mean - shape).abs() < 0.05 * shape.max(1.0), "shape {shape}: mean {mean}");
        }
    }

    #[test]
    fn dirichlet_is_a_distribution() {
        let mut rng = Rng::new(1);
        let d = dirichlet(&mut rng, 10.83 / 26.0, 26);
        assert_eq!(d.len(), 26);
        assert!((d.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        assert!(d.iter().all(|&x| x >= 0.0));
    }
}
