//! Gating: should a candidate net replace the current one?
//!
//! - [`Sprt`]: Wald's sequential probability ratio test of `H0: elo = elo0` against
//!   `H1: elo = elo1` on the candidate's wins, draws and losses. Draws are a third outcome
//!   (trinomial), with the draw rate a nuisance parameter: under each hypothesis the
//!   outcome probabilities are the maximum-likelihood ones whose expected score is that
//!   hypothesis's, `s(elo) = 1 / (1 + 10^(-elo/400))` (the generalised SPRT). Given the
//!   observed frequencies `f_i` and scores `x_i` (1, 1/2, 0), they are
//!   `p_i = f_i / (1 + λ (x_i - s))` with `λ` the root of `Σ f_i (x_i - s) / (1 + λ (x_i - s))`.
//!   When every observed outcome lies on one side of `s`, outcomes never seen get a frequency
//!   of 10^-3 games so that the root exists. The log-likelihood ratio is compared with
//!   Wald's bounds `ln(β / (1 - α))` and `ln((1 - β) / α)`. Without draws this is the
//!   binomial SPRT exactly.
//! - [`WinRateGate`]: a fixed number of games and a minimum score (KataGo: 100 of 200), decided
//!   early once the rest of the games cannot change the verdict.

use crate::elo::Wdl;
use serde::{Deserialize, Serialize};

/// A gating verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// The candidate passes (SPRT: `H1` accepted).
    Accept,
    /// The candidate fails (SPRT: `H0` accepted).
    Reject,
    /// Play more games.
    Continue,
}

/// Wald's SPRT on trinomial results (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sprt {
    /// Elo difference under `H0`.
    pub elo0: f64,
    /// Elo difference under `H1` (greater than `elo0`).
    pub elo1: f64,
    /// Probability of accepting `H1` when `H0` holds.
    pub alpha: f64,
    /// Probability of accepting `H0` when `H1` holds.
    pub beta: f64,
}

/// Expected score at an Elo difference.
pub fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// The maximum-likelihood outcome probabilities (win, draw, loss) given the frequencies `f`
/// and the expected score `s`.
fn constrained(f: [f64; 3], s: f64) -> [f64; 3] {
    const X: [f64; 3] = [1.0, 0.5, 0.0];
    let d = X.map(|x| x - s);
    let both_sides = (0..3).any(|i| f[i] > 0.0 && d[i] > 0.0) && (0..3).any(|i| f[i] > 0.0 && d[i] < 0.0);
    let f = if both_sides { f } else { f.map(|v| if v > 0.0 { v } else { 1e-3 }) };
    let total: f64 = f.iter().sum();
    let f = f.map(|v| v / total);
    let phi = |l: f64| (0..3).map(|i| f[i] * d[i] / (1.0 + l * d[i])).sum::<f64>();
    // phi falls from +inf to -inf between the poles of the observed outcomes.
    let pole = |sign: f64| {
        (0..3).filter(|&i| f[i] > 0.0 && d[i] * sign > 0.0).map(|i| -1.0 / d[i]).fold(f64::NAN, |a, b| {
            if sign > 0.0 {
                b.max(a)
            } else {
                b.min(a)
            }
        })
    };
    let (mut lo, mut hi) = (pole(1.0), pole(-1.0));
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if phi(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let l = 0.5 * (lo + hi);
    [0, 1, 2].map(|i| f[i] / (1.0 + l * d[i]))
}

impl Sprt {
    /// The log-likelihood ratio of `H1` against `H0` for these results.
    pub fn llr(&self, r: Wdl) -> f64 {
        if r.games() == 0 {
            return 0.0;
        }
        let n = [r.wins, r.draws, r.losses].map(f64::from);
        let p0 = constrained(n, expected_score(self.elo0));
        let p1 = constrained(n, expected_score(self.elo1));
        (0..3).filter(|&i| n[i] > 0.0).map(|i| n[i] * (p1[i] / p0[i]).ln()).sum()
    }

    /// Wald's bounds: accept `H0` at or below the first, `H1` at or above the second.
    pub fn bounds(&self) -> (f64, f64) {
        ((self.beta / (1.0 - self.alpha)).ln(), ((1.0 - self.beta) / self.alpha).ln())
    }

    /// The verdict after these results.
    pub fn decide(&self, r: Wdl) -> Decision {
        let llr = self.llr(r);
        let (lower, upper) = self.bounds();
        if llr >= upper {
            Decision::Accept
        } else if llr <= lower {
            Decision::Reject
        } else {
            Decision::Continue
        }
    }
}

/// A fixed-length match with a minimum score.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WinRateGate {
    /// Games in the match.
    pub games: u32,
    /// The candidate passes with a score (wins + draws/2) of at least this fraction of `games`.
    pub threshold: f64,
}

impl WinRateGate {
    /// The verdict after these results (the first `games` games count).
    pub fn decide(&self, r: Wdl) -> Decision {
        let need = self.threshold * f64::from(self.games);
        let left = f64::from(self.games.saturating_sub(r.games()));
        if r.score() >= need {
            Decision::Accept
        } else if r.score() + left < need {
            Decision::Reject
        } else {
            Decision::Continue
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wdl(wins: u32, draws: u32, losses: u32) -> Wdl {
        Wdl { wins, draws, losses }
    }

    const TEST: Sprt = Sprt { elo0: 0.0, elo1: 35.0, alpha: 0.05, beta: 0.05 };

    #[test]
    fn without_draws_it_is_the_binomial_sprt() {
        let (s0, s1) = (expected_score(0.0), expected_score(35.0));
        assert_eq!(s0, 0.5);
        let r = wdl(70, 0, 50);
        let want = 70.0 * (s1 / s0).ln() + 50.0 * ((1.0 - s1) / (1.0 - s0)).ln();
        assert!((TEST.llr(r) - want).abs() < 1e-9, "{} vs {want}", TEST.llr(r));
        let (lo, hi) = TEST.bounds();
        assert!((hi - (0.95f64 / 0.05).ln()).abs() < 1e-12 && (lo + hi).abs() < 1e-12);
    }

    #[test]
    fn constrained_probabilities_keep_the_score_and_sum_to_one() {
        for (n, s) in [([30.0, 50.0, 20.0], 0.4), ([5.0, 0.0, 1.0], 0.45), ([0.0, 10.0, 0.0], 0.7)] {
            let p = constrained(n, s);
            assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{p:?}");
            assert!((p[0] + 0.5 * p[1] - s).abs() < 1e-9, "{p:?}");
        }
        // At the observed score the observed frequencies are the maximum.
        let p = constrained([30.0, 50.0, 20.0], 0.55);
        assert!((p[0] - 0.3).abs() < 1e-9 && (p[1] - 0.5).abs() < 1e-9);
    }

    #[test]
    fn draws_count_as_evidence_with_less_spread() {
        // The same score with many draws is stronger evidence than with none.
        let decisive = TEST.llr(wdl(60, 0, 40));
        let drawish = TEST.llr(wdl(30, 60, 10));
        assert!(drawish > decisive && decisive > 0.0, "{drawish} {decisive}");
    }

    #[test]
    fn verdicts() {
        assert_eq!(TEST.decide(wdl(0, 0, 0)), Decision::Continue);
        assert_eq!(TEST.decide(wdl(200, 0, 100)), Decision::Accept);
        assert_eq!(TEST.decide(wdl(100, 0, 200)), Decision::Reject);
        assert_eq!(TEST.decide(wdl(40, 0, 0)), Decision::Accept);
        let gate = WinRateGate { games: 200, threshold: 0.5 };
        assert_eq!(gate.decide(wdl(100, 0, 50)), Decision::Accept);
        assert_eq!(gate.decide(wdl(20, 0, 101)), Decision::Reject);
        assert_eq!(gate.decide(wdl(99, 1, 99)), Decision::Continue);
        assert_eq!(gate.decide(wdl(99, 2, 99)), Decision::Accept);
    }
}
