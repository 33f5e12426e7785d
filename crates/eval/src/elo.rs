//! Maximum-likelihood Elo from pairwise match results, with 95% confidence intervals.
//!
//! Model (Bradley-Terry on the Elo scale): player `i` scores against `j` with probability
//! `1 / (1 + 10^((r_j - r_i) / 400))` per game, a draw counting as half a win, so a pairing's
//! score is binomial. Player 0 is the anchor (`r_0 = 0`); the other ratings maximise the
//! likelihood (Newton's method with step halving on the concave log-likelihood). The
//! covariance of the free ratings is the inverse of the observed information (the negative
//! Hessian) at the maximum, and each interval is `r ± 1.96 se`, relative to the anchor.
//! Counting a draw as half a binomial win slightly overstates the variance when draws are
//! common (a trinomial has less spread), so the intervals are then a little conservative.
//!
//! The maximum exists exactly when every player has scored against, and conceded to, the
//! rest in a chain that links all players (Zermelo's condition: the graph with an edge
//! `i -> j` when `i` scored something against `j` is strongly connected); otherwise
//! [`fit`] returns [`EloError::Unbounded`].

use crate::linalg::invert;
use crate::logistic::Z95;
use serde::{Deserialize, Serialize};
use std::fmt;

/// Wins, draws and losses of one side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wdl {
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
}

impl Wdl {
    /// Games played.
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// Points scored: wins plus half the draws.
    pub fn score(&self) -> f64 {
        f64::from(self.wins) + 0.5 * f64::from(self.draws)
    }
}

/// The results of player `a` against player `b`, from `a`'s side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pairing {
    /// First player's index.
    pub a: usize,
    /// Second player's index.
    pub b: usize,
    /// `a`'s results against `b`.
    pub result: Wdl,
}

/// One player's rating.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rating {
    /// Elo relative to player 0.
    pub elo: f64,
    /// Standard error (0 for the anchor).
    pub stderr: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end of the 95% interval.
    pub high: f64,
}

/// Why no ratings came out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EloError {
    /// A pairing names a player outside `0..players`, or pairs a player with itself.
    BadPairing(usize),
    /// The likelihood has no maximum: the named player is not linked to player 0 by scores in
    /// both directions (it never lost, never won, or played nobody linked).
    Unbounded(usize),
}

impl fmt::Display for EloError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EloError::BadPairing(i) => write!(f, "pairing {i} names an unknown player or a player twice"),
            EloError::Unbounded(p) => {
                write!(f, "player {p}'s Elo is unbounded: it needs results both ways linking it to player 0")
            }
        }
    }
}

impl std::error::Error for EloError {}

/// `ln(10) / 400`: Elo points to natural log-odds.
const SCALE: f64 = std::f64::consts::LN_10 / 400.0;

/// Fits ratings for `players` players (see the module docs).
pub fn fit(players: usize, pairings: &[Pairing]) -> Result<Vec<Rating>, EloError> {
    for (i, p) in pairings.iter().enumerate() {
        if p.a >= players || p.b >= players || p.a == p.b {
            return Err(EloError::BadPairing(i));
        }
    }
    check_linked(players, pairings)?;
    let free = players.saturating_sub(1);
    let mut r = vec![0.0; players];
    for _ in 0..200 {
        let (ll, grad, info) = derivatives(&r, pairings);
        let inv = invert(&info).expect("Zermelo's condition makes the information positive definite");
        let step: Vec<f64> = (0..free).map(|i| (0..free).map(|j| inv[i][j] * grad[j]).sum()).collect();
        let mut t = 1.0;
        let moved = |t: f64| -> Vec<f64> {
            let mut n = r.clone();
            for i in 0..free {
                n[i + 1] += t * step[i];
            }
            n
        };
        while t > 1e-6 && derivatives(&moved(t), pairings).0 < ll {
            t /= 2.0;
        }
        r = moved(t);
        if step.iter().all(|s| (t * s).abs() < 1e-9) {
            break;
        }
    }
    let (_, _, info) = derivatives(&r, pairings);
    let cov = invert(&info).expect("positive definite at the maximum");
    Ok((0..players)
        .map(|i| {
            let stderr = if i == 0 { 0.0 } else { cov[i - 1][i - 1].max(0.0).sqrt() };
            Rating { elo: r[i], stderr, low: r[i] - Z95 * stderr, high: r[i] + Z95 * stderr }
        })
        .collect())
}

/// Log-likelihood, its gradient in the free ratings (players 1..), and the observed
/// information (negative Hessian) there.
fn derivatives(r: &[f64], pairings: &[Pairing]) -> (f64, Vec<f64>, Vec<Vec<f64>>) {
    let free = r.len().saturating_sub(1);
    let mut ll = 0.0;
    let mut grad = vec![0.0; free];
    let mut info = vec![vec![0.0; free]; free];
    for p in pairings {
        let n = f64::from(p.result.games());
        let s = p.result.score();
        let x = SCALE * (r[p.a] - r[p.b]);
        ll += s * -(-x).exp().ln_1p() + (n - s) * -x.exp().ln_1p();
        let e = 1.0 / (1.0 + (-x).exp());
        let g = SCALE * (s - n * e);
        let w = SCALE * SCALE * n * e * (1.0 - e);
        let (ia, ib) = (p.a.checked_sub(1), p.b.checked_sub(1));
        if let Some(i) = ia {
            grad[i] += g;
            info[i][i] += w;
        }
        if let Some(j) = ib {
            grad[j] -= g;
            info[j][j] += w;
        }
        if let (Some(i), Some(j)) = (ia, ib) {
            info[i][j] -= w;
            info[j][i] -= w;
        }
    }
    (ll, grad, info)
}

/// Zermelo's condition: from player 0 every player is reachable along "scored against" edges
/// and along "conceded to" edges.
fn check_linked(players: usize, pairings: &[Pairing]) -> Result<(), EloError> {
    let mut scored = vec![vec![false; players]; players];
    for p in pairings {
        let r = p.result;
        scored[p.a][p.b] |= r.wins + r.draws > 0;
        scored[p.b][p.a] |= r.losses + r.draws > 0;
    }
    for forward in [true, false] {
        let mut seen = vec![false; players];
        let mut stack = vec![0];
        seen[0] = true;
        while let Some(i) = stack.pop() {
            for j in 0..players {
                let edge = if forward { scored[i][j] } else { scored[j][i] };
                if edge && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        if let Some(p) = seen.iter().position(|s| !s) {
            return Err(EloError::Unbounded(p));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairing(a: usize, b: usize, wins: u32, draws: u32, losses: u32) -> Pairing {
        Pairing { a, b, result: Wdl { wins, draws, losses } }
    }

    #[test]
    fn two_players_match_the_hand_computation() {
        // Player 1 scores 60 + 20/2 = 70 of 100 against player 0.
        let r = fit(2, &[pairing(1, 0, 60, 20, 20)]).unwrap();
        let p: f64 = 0.7;
        let elo = 400.0 * (p / (1.0 - p)).log10();
        assert!((r[1].elo - elo).abs() < 1e-6, "{} vs {elo}", r[1].elo);
        assert!((elo - 147.19).abs() < 0.01);
        // Binomial standard error of the score, through d(Elo)/dp = 400 / (ln 10 p (1 - p)).
        let se_p = (p * (1.0 - p) / 100.0).sqrt();
        let se = 400.0 / (std::f64::consts::LN_10 * p * (1.0 - p)) * se_p;
        assert!((r[1].stderr - se).abs() < 1e-6, "{} vs {se}", r[1].stderr);
        assert!((r[1].low - (elo - 1.959964 * se)).abs() < 1e-3);
        assert!((r[1].high - (elo + 1.959964 * se)).abs() < 1e-3);
        assert_eq!((r[0].elo, r[0].stderr), (0.0, 0.0));
        // The same games seen from the other side.
        let s = fit(2, &[pairing(0, 1, 20, 20, 60)]).unwrap();
        assert!((s[1].elo - elo).abs() < 1e-6);
    }

    #[test]
    fn a_chain_of_players_adds_up() {
        // 0 < 1 < 2, each 75% against the previous, never met directly: 2 is twice as far.
        let r = fit(3, &[pairing(1, 0, 75, 0, 25), pairing(2, 1, 75, 0, 25)]).unwrap();
        let step = 400.0 * 3f64.log10();
        assert!((r[1].elo - step).abs() < 1e-6 && (r[2].elo - 2.0 * step).abs() < 1e-6);
        // Variances add along the chain.
        assert!((r[2].stderr.powi(2) - 2.0 * r[1].stderr.powi(2)).abs() < 1e-6);
    }

    #[test]
    fn a_round_robin_is_consistent() {
        let games = [pairing(0, 1, 30, 10, 60), pairing(1, 2, 55, 5, 40), pairing(0, 2, 45, 10, 45)];
        let r = fit(3, &games).unwrap();
        assert!(r[1].elo > r[2].elo && r[2].elo > r[0].elo - 1.0, "{r:?}");
        // At the maximum the expected score equals the actual score for every player.
        for i in 0..3 {
            let (mut actual, mut expected) = (0.0, 0.0);
            for p in &games {
                let e = 1.0 / (1.0 + 10f64.powf((r[p.b].elo - r[p.a].elo) / 400.0));
                let n = f64::from(p.result.games());
                if p.a == i {
                    actual += p.result.score();
                    expected += n * e;
                } else if p.b == i {
                    actual += n - p.result.score();
                    expected += n * (1.0 - e);
                }
            }
            assert!((actual - expected).abs() < 1e-6);
        }
    }

    #[test]
    fn unbounded_and_bad_inputs_are_errors() {
        assert_eq!(fit(2, &[pairing(1, 0, 10, 0, 0)]), Err(EloError::Unbounded(1)));
        assert_eq!(fit(3, &[pairing(1, 0, 5, 0, 5)]), Err(EloError::Unbounded(2)));
        assert_eq!(fit(2, &[pairing(1, 1, 5, 0, 5)]), Err(EloError::BadPairing(0)));
        assert!(fit(2, &[pairing(1, 0, 0, 3, 0)]).is_ok());
    }
}
