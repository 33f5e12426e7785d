//! The empirical check on fair komi: matches of a net against itself at a sweep of komi
//! values, and a logistic fit of Black's win rate against komi.
//!
//! Model: Black's score per game at komi `k` is Bernoulli with `p(k) = 1 / (1 + exp(-(a +
//! b (k - k̄))))`, `k̄` the games-weighted mean komi (centring keeps the fit well
//! conditioned); a draw counts as half a win. The maximum-likelihood `(a, b)` comes from
//! Newton's method with step halving. The crossing `k* = k̄ - a / b` is where `p = 1/2`; its
//! standard error is the delta method's, `sqrt(g' C g)` with `g = (-1/b, a/b²)` and `C` the
//! inverse of the observed information, and the interval is `k* ± 1.96 se`.
//!
//! # Independent games
//!
//! The interval is only as good as the assumption that every game is an independent sample.
//! A deterministic net playing itself from the empty board plays one game, however often it
//! is asked; opening each game with one uniformly random point varies the games but biases
//! them (that point is Black's first move, usually worse than Black's best, so Black's win
//! rate and the fitted komi come out low). [`self_play_game`] varies the games the way
//! KataGo's self-play does (paper App. D): during the first [`SweepGames::opening_turns`]
//! turns each side's search runs with root noise and its move is sampled from the visit
//! distribution at KataGo's decaying temperature, so the openings are moves the net itself
//! considers, for both colours alike; later turns are the search's best move. Every game gets
//! its own seed ([`game_seed`]). Games that still coincide move for move are one sample, not
//! several: [`count_games`] counts each distinct move sequence once, and only those counts
//! go into the fit.

use crate::linalg::invert;
use crate::referee::GameResult;
use hane_engine::{Game, GameState, Komi, Rules};
use hane_mcts::{temperature, Search, SearchConfig, TemperatureSchedule};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
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

/// How the sweep's games at one komi are played (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SweepGames {
    /// Games per komi.
    pub games: u32,
    /// Visits per decision.
    pub visits: u32,
    /// Turns at the start of each game chosen with root noise and temperature sampling.
    pub opening_turns: u32,
    /// Seed of the games ([`game_seed`]).
    pub seed: u64,
}

impl SweepGames {
    /// The sweep's settings on an `n x n` board: `n` sampled opening turns, KataGo's
    /// temperature half-life (paper App. D), after which the temperature has fallen from 0.8
    /// to 0.5 and the opening has left the empty board behind.
    pub fn for_board(size: usize, games: u32, visits: u32, seed: u64) -> SweepGames {
        SweepGames { games, visits, opening_turns: size as u32, seed }
    }
}

/// The seed of game `game` at komi `komi` of a sweep seeded with `seed`: distinct per game
/// and per komi (a splitmix64 mix), so no two games share their searches' noise.
pub fn game_seed(seed: u64, komi: Komi, game: u32) -> u64 {
    hane_engine::rng::mix64(mix64_pair(seed ^ mix64_pair(i64::from(komi.0) as u64, u64::from(game)), 0))
}

/// A hash of two integers (each through [`hane_engine::rng::mix64`]).
fn mix64_pair(a: u64, b: u64) -> u64 {
    hane_engine::rng::mix64(a) ^ hane_engine::rng::mix64(b ^ 0x5851_F42D_4C95_7F2D).rotate_left(32)
}

/// One game of `evaluator`'s search against itself from the empty board (both colours),
/// seeded with `seed`: the first `opening_turns` turns explore (root noise, a move sampled
/// at KataGo's temperature for the turn), the rest take the most visited move. Every
/// decision is a fresh search of `visits` visits, as [`crate::referee::SearchPlayer`] plays.
pub fn self_play_game<E: hane_mcts::Evaluator<GameState>>(
    rules: &Rules,
    evaluator: &mut E,
    visits: u32,
    opening_turns: u32,
    seed: u64,
) -> GameResult {
    let mut g = GameState::new(*rules);
    let size = g.geo().size();
    let schedule = TemperatureSchedule::for_board(size);
    let mut moves = Vec::new();
    let mut decision = 0u64;
    while !g.is_over() {
        let turn = g.turns();
        let explore = turn < opening_turns;
        let cfg = SearchConfig::for_board(size).with_noise(explore);
        decision += 1;
        let mut s = Search::new(g.clone(), cfg, seed.wrapping_add(decision));
        s.run(evaluator, visits, 8);
        let a = s.select_action(if explore { temperature(turn, schedule) } else { 0.0 });
        moves.push(a.name(g.geo()));
        g.play(a).expect("the search chooses legal actions");
    }
    let score = g.score();
    GameResult {
        black: "self-play".into(),
        white: "self-play".into(),
        winner: score.winner.letter().into(),
        margin_black: score.margin_black(),
        turns: g.turns(),
        forfeit: None,
        moves,
    }
}

/// Black's score in one game: 1 for a win, 1/2 for a draw, 0 for a loss.
pub fn black_score(g: &GameResult) -> f64 {
    match g.winner.as_str() {
        "b" => 1.0,
        "draw" => 0.5,
        _ => 0.0,
    }
}

/// The games at one komi as samples: `(played, distinct)`, where `played` counts every
/// game and `distinct` each distinct move sequence once (identical sequences have the same
/// result). `distinct` is what the fit may count as independent (see the module docs).
pub fn count_games(komi: f64, games: &[GameResult]) -> (KomiSample, KomiSample) {
    let mut unique: BTreeMap<&[String], f64> = BTreeMap::new();
    for g in games {
        unique.insert(&g.moves, black_score(g));
    }
    let played = KomiSample { komi, wins: games.iter().map(black_score).sum(), games: games.len() as f64 };
    let distinct = KomiSample { komi, wins: unique.values().sum(), games: unique.len() as f64 };
    (played, distinct)
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

    fn game(moves: &[&str], winner: &str) -> GameResult {
        GameResult {
            black: "x".into(),
            white: "x".into(),
            winner: winner.into(),
            margin_black: 0.0,
            turns: moves.len() as u32,
            forfeit: None,
            moves: moves.iter().map(|m| m.to_string()).collect(),
        }
    }

    #[test]
    fn repeated_games_count_once() {
        let games = [
            game(&["c3", "b2"], "b"),
            game(&["c3", "b2"], "b"),
            game(&["b2", "c3"], "w"),
            game(&["c3", "d4"], "draw"),
            game(&["c3", "b2"], "b"),
        ];
        let (played, distinct) = count_games(7.0, &games);
        assert_eq!(played, KomiSample { komi: 7.0, wins: 3.5, games: 5.0 });
        assert_eq!(distinct, KomiSample { komi: 7.0, wins: 1.5, games: 3.0 });
    }

    #[test]
    fn sweep_games_are_distinct_samples() {
        // A deterministic evaluator: without exploring openings and with one seed every
        // game is the same one (the old sweep's failure: one game counted as many), and
        // counts once; with exploring openings and a seed per game, the games differ, in
        // both colours' moves.
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let k = Komi(14);
        let play = |opening: u32, i: u32| {
            let seed = game_seed(1, k, i);
            self_play_game(&rules, &mut hane_mcts::UniformEvaluator, 32, opening, seed)
        };
        let fixed: Vec<GameResult> = (0..4).map(|_| play(0, 0)).collect();
        let (played, distinct) = count_games(7.0, &fixed);
        assert_eq!((played.games, distinct.games), (4.0, 1.0));
        let varied: Vec<GameResult> = (0..8).map(|i| play(5, i)).collect();
        let (_, distinct) = count_games(7.0, &varied);
        assert!(distinct.games >= 6.0, "{distinct:?}");
        let first: std::collections::BTreeSet<&String> = varied.iter().map(|g| &g.moves[0]).collect();
        let second: std::collections::BTreeSet<&String> = varied.iter().map(|g| &g.moves[1]).collect();
        assert!(first.len() > 1 && second.len() > 1, "{first:?} {second:?}");
        // Seeds differ per game and per komi, and repeat for the same game.
        assert_ne!(game_seed(1, k, 0), game_seed(1, k, 1));
        assert_ne!(game_seed(1, k, 0), game_seed(1, Komi(16), 0));
        assert_eq!(play(5, 3), varied[3]);
    }

    #[test]
    fn degenerate_data_are_refused() {
        let s = |komi: f64, wins: f64| KomiSample { komi, wins, games: 10.0 };
        assert_eq!(fit(&[s(7.0, 5.0)]), Err(FitError::TooFewKomi));
        assert_eq!(fit(&[s(6.0, 10.0), s(7.0, 10.0), s(8.0, 0.0)]), Err(FitError::Separated));
        assert_eq!(fit(&[s(6.0, 2.0), s(8.0, 8.0)]), Err(FitError::NotDecreasing));
    }
}
