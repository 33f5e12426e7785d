//! Per-move schedules of a self-play game: how many visits a move gets (playout cap
//! randomization) and how much randomness goes into choosing it (move temperature).

use hane_engine::rng::Rng;

/// KataGo's playout cap randomization (paper §3.1): on a fraction `p_full` of moves run a
/// full search of `full_visits` (with noise, recorded for training), on the rest a fast
/// search of `fast_visits` (no noise, not recorded). The fast moves keep games cheap while
/// the value targets still come from whole games.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlayoutCap {
    /// Visits of a full search. Paper: N = 600, later 1000.
    pub full_visits: u32,
    /// Visits of a fast search. Paper: n = 100, later 200.
    pub fast_visits: u32,
    /// Probability of a full search. Paper: p = 0.25.
    pub p_full: f32,
}

impl Default for PlayoutCap {
    fn default() -> Self {
        PlayoutCap { full_visits: 600, fast_visits: 100, p_full: 0.25 }
    }
}

impl PlayoutCap {
    /// Draws this move's search: `(visits, full)`; `full` says whether to use noise and
    /// record the position.
    pub fn choose(&self, rng: &mut Rng) -> (u32, bool) {
        if rng.unit() < f64::from(self.p_full) {
            (self.full_visits, true)
        } else {
            (self.fast_visits, false)
        }
    }
}

/// A move temperature that decays from `early` towards `late`, halving the gap every
/// `halflife` moves. KataGo (paper App. D): 0.8 -> 0.2 with a half-life of b turns on a
/// b x b board.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TemperatureSchedule {
    /// Temperature of the first move.
    pub early: f32,
    /// Temperature approached late in the game.
    pub late: f32,
    /// Moves after which the distance to `late` has halved.
    pub halflife: f32,
}

impl Default for TemperatureSchedule {
    fn default() -> Self {
        TemperatureSchedule::for_board(9)
    }
}

impl TemperatureSchedule {
    /// KataGo's schedule for an `n x n` board: 0.8 -> 0.2, half-life `n` moves.
    pub fn for_board(size: usize) -> TemperatureSchedule {
        TemperatureSchedule { early: 0.8, late: 0.2, halflife: size.max(1) as f32 }
    }
}

/// The temperature for move `move_number` (0 = first move of the game):
/// `late + (early - late) * 0.5^(move_number / halflife)`.
pub fn temperature(move_number: u32, cfg: TemperatureSchedule) -> f32 {
    let decay = 0.5f32.powf(move_number as f32 / cfg.halflife.max(1e-6));
    cfg.late + (cfg.early - cfg.late) * decay
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temperature_decays_by_halves() {
        let s = TemperatureSchedule::for_board(9);
        assert!((temperature(0, s) - 0.8).abs() < 1e-6);
        assert!((temperature(9, s) - 0.5).abs() < 1e-6);
        assert!((temperature(18, s) - 0.35).abs() < 1e-6);
        assert!(temperature(1000, s) - 0.2 < 1e-4);
    }

    #[test]
    fn playout_cap_draws_full_at_rate() {
        let cap = PlayoutCap::default();
        let mut rng = Rng::new(3);
        let n = 10_000;
        let full = (0..n).filter(|_| cap.choose(&mut rng).1).count();
        let rate = full as f64 / n as f64;
        assert!((rate - 0.25).abs() < 0.02, "{rate}");
        assert_eq!(PlayoutCap { p_full: 1.0, ..cap }.choose(&mut rng), (600, true));
        assert_eq!(PlayoutCap { p_full: 0.0, ..cap }.choose(&mut rng), (100, false));
    }
}
