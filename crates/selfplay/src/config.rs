//! Self-play configuration. Loaded from TOML by the CLI; every field has a default.

use hane_mcts::{PlayoutCap, SearchConfig, TemperatureSchedule};
use serde::{Deserialize, Serialize};

/// Everything a self-play run needs besides the evaluator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfplayConfig {
    /// Rule set string, e.g. `ttakji` or `loose,size=7`.
    pub rules: String,
    /// Worker threads running searches.
    pub threads: usize,
    /// Inference threads, each with its own copy of the evaluator, serving the workers in
    /// turn (at most `threads`). One thread feeds a GPU best; on a CPU each runs the net on
    /// one core, so a 2-core machine wants two of them and two workers.
    pub inference_threads: usize,
    /// Games in flight per worker thread.
    pub games_in_flight: usize,
    /// Largest number of positions in one evaluator call.
    pub batch_size: usize,
    /// Leaves gathered per game before each evaluator call (virtual loss spreads them).
    pub leaves_per_game: usize,
    /// Visits of a full search, whose positions become training rows.
    pub full_visits: u32,
    /// Visits of a fast search (not recorded), for playout cap randomisation.
    pub fast_visits: u32,
    /// Probability that a turn gets a full search.
    pub p_full: f32,
    /// Resign when the mover's probability of not losing stays below this for `resign_turns` turns.
    pub resign_threshold: f32,
    /// Consecutive turns below the threshold before resigning.
    pub resign_turns: u32,
    /// Fraction of games played out to the end despite resigning, to measure false resigns.
    pub resign_playthrough: f32,
    /// Standard deviation of the komi randomisation around the rules' komi, in points (0 =
    /// fixed komi).
    pub komi_stdev: f32,
    /// Fraction of games whose komi is drawn uniformly from the board's whole range instead
    /// (see [`crate::komi`]): the net then learns the whole win-rate-against-komi curve.
    pub komi_wide: f32,
    /// Mean number of moves each game opens with, sampled from the evaluator's raw policy
    /// and not recorded (see [`crate::opening`]; KataGo: 0.04 times the board's area; 0: none).
    pub opening_moves: f32,
    /// Probability that a searched position of a game also starts a side game, which plays
    /// one move from the raw policy there and goes on like any game, recorded from then on
    /// (KataGo's side positions, 2.5% of positions; side games do not fork again; 0: none).
    /// Self-play then answers moves its searches would never choose.
    pub fork_prob: f32,
    /// Move temperature of the first move; it decays towards `temperature_late`, halving the
    /// gap every `temperature_halflife` turns (KataGo: 0.8 -> 0.2, half-life = board size).
    pub temperature_early: f32,
    /// Move temperature approached late in the game.
    pub temperature_late: f32,
    /// Turns over which the temperature's distance to `temperature_late` halves (0: the
    /// board size).
    pub temperature_halflife: f32,
    /// Weight of the score term in the searches' utility (KataGo's self-play: 0.4; see
    /// [`SearchConfig::score_utility_weight`]). Larger values keep a side that is clearly
    /// winning or losing playing for points, so games at a komi far from fair are played as
    /// well as games near it.
    pub score_utility: f32,
    /// Weight of the search's own win/draw/loss in each row's value target (the rest is the
    /// game's result): the result of one game carries every later exploratory move of both
    /// sides, the search judges the position as it would be played (0: the result only).
    pub value_search_mix: f32,
    /// Turn cap per game (0 = the rule set's own cap).
    pub max_turns: u32,
    /// Seed of everything random in the run.
    pub seed: u64,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            rules: "ttakji".into(),
            threads: 1,
            inference_threads: 1,
            games_in_flight: 64,
            batch_size: 128,
            leaves_per_game: 4,
            full_visits: 64,
            fast_visits: 16,
            p_full: 0.25,
            resign_threshold: 0.05,
            resign_turns: 3,
            resign_playthrough: 0.1,
            komi_stdev: 1.0,
            komi_wide: 0.0,
            opening_moves: 0.0,
            fork_prob: 0.0,
            temperature_early: 0.8,
            temperature_late: 0.2,
            temperature_halflife: 0.0,
            score_utility: 0.4,
            value_search_mix: 0.0,
            max_turns: 0,
            seed: 1,
        }
    }
}

impl SelfplayConfig {
    /// Checks the values; the message names the field and what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        let rules: hane_engine::Rules = self.rules.parse().map_err(|e| format!("rules: {e}"))?;
        let positive =
            |name: &str, v: usize| if v == 0 { Err(format!("{name}: must be at least 1")) } else { Ok(()) };
        positive("threads", self.threads)?;
        positive("inference_threads", self.inference_threads)?;
        positive("games_in_flight", self.games_in_flight)?;
        positive("batch_size", self.batch_size)?;
        positive("leaves_per_game", self.leaves_per_game)?;
        positive("full_visits", self.full_visits as usize)?;
        positive("fast_visits", self.fast_visits as usize)?;
        let unit = |name: &str, v: f32| {
            if (0.0..=1.0).contains(&v) {
                Ok(())
            } else {
                Err(format!("{name}: must be in 0..=1, got {v}"))
            }
        };
        unit("p_full", self.p_full)?;
        unit("resign_threshold", self.resign_threshold)?;
        unit("resign_playthrough", self.resign_playthrough)?;
        if !(0.0..=100.0).contains(&self.komi_stdev) {
            return Err(format!("komi_stdev: must be in 0..=100, got {}", self.komi_stdev));
        }
        unit("komi_wide", self.komi_wide)?;
        unit("fork_prob", self.fork_prob)?;
        if !(0.0..=1000.0).contains(&self.opening_moves) {
            return Err(format!("opening_moves: must be in 0..=1000, got {}", self.opening_moves));
        }
        unit("value_search_mix", self.value_search_mix)?;
        for (name, t) in
            [("temperature_early", self.temperature_early), ("temperature_late", self.temperature_late)]
        {
            if !(0.0..=10.0).contains(&t) {
                return Err(format!("{name}: must be in 0..=10, got {t}"));
            }
        }
        if !(0.0..=10.0).contains(&self.score_utility) {
            return Err(format!("score_utility: must be in 0..=10, got {}", self.score_utility));
        }
        if !(0.0..=1000.0).contains(&self.temperature_halflife) {
            return Err(format!(
                "temperature_halflife: must be in 0..=1000, got {}",
                self.temperature_halflife
            ));
        }
        let _ = rules;
        Ok(())
    }

    /// The parsed rules, with `max_turns` applied.
    pub fn parsed_rules(&self) -> Result<hane_engine::Rules, String> {
        let mut r: hane_engine::Rules = self.rules.parse().map_err(|e| format!("rules: {e}"))?;
        if self.max_turns > 0 {
            r.cap = hane_engine::rules::MoveCap::Fixed(self.max_turns);
        }
        Ok(r)
    }

    /// The search parameters for this board.
    pub fn search(&self, size: usize) -> SearchConfig {
        SearchConfig { score_utility_weight: self.score_utility, ..SearchConfig::for_board(size) }
    }

    /// Playout cap randomisation settings.
    pub fn cap(&self) -> PlayoutCap {
        PlayoutCap { full_visits: self.full_visits, fast_visits: self.fast_visits, p_full: self.p_full }
    }

    /// Move temperature schedule for this board.
    pub fn temperature(&self, size: usize) -> TemperatureSchedule {
        let halflife = if self.temperature_halflife > 0.0 { self.temperature_halflife } else { size as f32 };
        TemperatureSchedule { early: self.temperature_early, late: self.temperature_late, halflife }
    }

    /// How each game's komi is drawn.
    pub fn komi_draw(&self) -> crate::komi::KomiDraw {
        crate::komi::KomiDraw { stdev: self.komi_stdev, wide: self.komi_wide }
    }
}
