//! The empirical check on fair komi: matches of a net against itself at a sweep of komi
//! values, and a logistic fit of Black's win rate against komi.
//!
//! Model: Black's score per game at komi `k` is Bernoulli with `p(k) = 1 / (1 + exp(-(a +
//! b (k - k̄))))`, `k̄` the games-weighted mean komi (centring keeps the fit well
//! conditioned); a draw counts as half a win. The maximum-likelihood `(a, b)` comes from
//! Newton's method with step halving. The crossing `k* = k̄ - a / b` is where `p = 1/2`; its
//! standard error is the delta method's, `sqrt(g' C g)` with `g = (-1/b, a/b²)` and `C` the
//! inverse of the observed information, and the interval is `k* ± 1.96 se`.

use crate::linalg::invert;
use serde::{Deserialize, Serialize};
use std::fmt;

/// The 97.5% quantile of the standard normal, for 95% two-sided intervals.
pub const Z95: f64 = 1.959_963_984_540_054;

/// Games at one komi.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct KomiSample {
    /// Komi in points.
    pub komi: f64,
    /// Black's wins, plus half the draws.
    pub wins: f64,
    /// Games played.
    pub games: f64,
}

/// The fitted curve and its 50% crossing.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogisticFit {
    /// `a`: the log-odds of a Black win at the mean komi.
    pub intercept: f64,
    /// `b`: the change of the log-odds per point of komi (negative).
    pub slope: f64,
    /// The games-weighted mean komi `k̄` the intercept refers to.
    pub center: f64,
    /// The komi where Black's win rate is 50%.
    pub crossing: f64,
    /// Standard error of the crossing (delta method).
    pub stderr: f64,
    /// Lower end of the 95% interval of the crossing.
    pub low: f64,
    /// Upper end of the 95% interval of the crossing.
    pub high: f64,
}

impl LogisticFit {
    /// The fitted win rate of Black at komi `k`.
    pub fn win_rate(&self, k: f64) -> f64 {
        sigmoid(self.intercept + self.slope * (k - self.center))
    }
}

/// Why the fit failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FitError {
    /// Fewer than two distinct komi values with games.
    TooFewKomi,
    /// The results are separated (e.g. Black always wins below some komi and never above):
    /// the likelihood has no maximum.
    Separated,
    /// The win rate does not fall as komi grows, so there is no crossing to report.
    NotDecreasing,
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FitError::TooFewKomi => "a logistic fit needs games at two or more komi values",
            FitError::Separated => "the results are separated: no finite logistic fit",
            FitError::NotDecreasing => "Black's win rate does not fall with komi",
        })
    }
}

impl std::error::Error for FitError {}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Log-likelihood, gradient and observed information at `(a, b)`.
fn derivatives(samples: &[KomiSample], center: f64, a: f64, b: f64) -> (f64, [f64; 2], [[f64; 2]; 2]) {
    let mut ll = 0.0;
    let mut grad = [0.0; 2];
    let mut info = [[0.0; 2]; 2];
    for s in samples {
        let x = s.komi - center;
        let eta = a + b * x;
        // log p and log(1-p), stable for large |eta|.
        let log_p = -(-eta).exp().ln_1p();
        let log_q = -eta.exp().ln_1p();
        ll += s.wins * log_p + (s.games - s.wins) * log_q;
        let p = sigmoid(eta);
        let r = s.wins - s.games * p;
        grad[0] += r;
        grad[1] += r * x;
        let w = s.games * p * (1.0 - p);
        info[0][0] += w;
        info[0][1] += w * x;
        info[1][1] += w * x * x;
    }
    info[1][0] = info[0][1];
    (ll, grad, info)
}

/// Fits the model (see the module docs).
pub fn fit(samples: &[KomiSample]) -> Result<LogisticFit, FitError> {
    let samples: Vec<KomiSample> = samples.iter().copied().filter(|s| s.games > 0.0).collect();
    let games: f64 = samples.iter().map(|s| s.games).sum();
    let (min, max) = samples
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), s| (lo.min(s.komi), hi.max(s.komi)));
    if samples.is_empty() || min == max {
        return Err(FitError::TooFewKomi);
    }
    let center = samples.iter().map(|s| s.komi * s.games).sum::<f64>() / games;
    let (mut a, mut b) = (0.0, 0.0);
    let mut converged = false;
    for _ in 0..100 {
        let (ll, grad, info) = derivatives(&samples, center, a, b);
        let inv = invert(&[info[0].to_vec(), info[1].to_vec()]).ok_or(FitError::Separated)?;
        let step = [inv[0][0] * grad[0] + inv[0][1] * grad[1], inv[1][0] * grad[0] + inv[1][1] * grad[1]];
        let mut t = 1.0;
        while t > 1e-6 && derivatives(&samples, center, a + t * step[0], b + t * step[1]).0 < ll {
            t /= 2.0;
        }
        (a, b) = (a + t * step[0], b + t * step[1]);
        if (t * step[0]).abs() < 1e-10 && (t * step[1]).abs() < 1e-10 {
            converged = true;
            break;
        }
    }
    if !converged || !a.is_finite() || !b.is_finite() {
        return Err(FitError::Separated);
    }
    if b >= 0.0 {
        return Err(FitError::NotDecreasing);
    }
    let (_, _, info) = derivatives(&samples, center, a, b);
    let cov = invert(&[info[0].to_vec(), info[1].to_vec()]).ok_or(FitError::Separated)?;
    let crossing = center - a / b;
    let g = [-1.0 / b, a / (b * b)];
    let var = g[0] * g[0] * cov[0][0] + 2.0 * g[0] * g[1] * cov[0][1] + g[1] * g[1] * cov[1][1];
    let stderr = var.max(0.0).sqrt();
    Ok(LogisticFit {
        intercept: a,
        slope: b,
        center,
        crossing,
        stderr,
        low: crossing - Z95 * stderr,
        high: crossing + Z95 * stderr,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// xorshift64*: a deterministic stream of uniforms for the synthetic matches.
    struct Rng(u64);

    impl Rng {
        fn uniform(&mut self) -> f64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn truth(k: f64) -> f64 {
        // Crossing at 6.5, a quarter of the log-odds per point.
        sigmoid(-0.25 * (k - 6.5))
    }

    #[test]
    fn expected_counts_give_back_the_true_curve() {
        let samples: Vec<KomiSample> = (0..=13)
            .map(|k| KomiSample { komi: f64::from(k), wins: 400.0 * truth(f64::from(k)), games: 400.0 })
            .collect();
        let f = fit(&samples).unwrap();
        assert!((f.crossing - 6.5).abs() < 1e-8, "{f:?}");
        assert!((f.slope + 0.25).abs() < 1e-8);
        assert!((f.win_rate(3.0) - truth(3.0)).abs() < 1e-9);
        // Symmetric design about the crossing: a = 0, so se = sqrt(C_aa) / |b| and the
        // information of a is the sum of n p (1 - p).
        let info_a: f64 = samples.iter().map(|s| s.games * truth(s.komi) * (1.0 - truth(s.komi))).sum();
        assert!((f.stderr - 1.0 / (0.25 * info_a.sqrt())).abs() < 1e-9, "{f:?}");
        assert!((f.high - f.low - 2.0 * Z95 * f.stderr).abs() < 1e-12);
    }

    #[test]
    fn intervals_cover_the_crossing_about_95_percent_of_the_time() {
        let mut rng = Rng(0x1234_5678_9ABC_DEF1);
        let reps = 400;
        let mut covered = 0;
        for _ in 0..reps {
            let samples: Vec<KomiSample> = (0..=13)
                .map(|k| {
                    let p = truth(f64::from(k));
                    let wins = (0..60).filter(|_| rng.uniform() < p).count() as f64;
                    KomiSample { komi: f64::from(k), wins, games: 60.0 }
                })
                .collect();
            let f = fit(&samples).unwrap();
            covered += usize::from(f.low <= 6.5 && 6.5 <= f.high);
        }
        let rate = covered as f64 / f64::from(reps);
        assert!((0.91..=0.985).contains(&rate), "coverage {rate}");
    }

    #[test]
    fn degenerate_data_are_refused() {
        let s = |komi: f64, wins: f64| KomiSample { komi, wins, games: 10.0 };
        assert_eq!(fit(&[s(7.0, 5.0)]), Err(FitError::TooFewKomi));
        assert_eq!(fit(&[s(6.0, 10.0), s(7.0, 10.0), s(8.0, 0.0)]), Err(FitError::Separated));
        assert_eq!(fit(&[s(6.0, 2.0), s(8.0, 8.0)]), Err(FitError::NotDecreasing));
    }
}
