//! Self-play configuration. Loaded from TOML by the CLI; every field has a default.
//!
//! Every number's allowed values are declared once, as a constant below that its doc comment
//! links to, and checked by [`SelfplayConfig::validate`] before anything is allocated or
//! started: counts that size threads, queues or trees stop far beyond any real machine (a
//! thousand threads, a million visits), so a typo is an error naming the key instead of an
//! abort or a hang. NaN or infinity is never allowed.

use hane_engine::range::{Allowed, Invalid, FRACTION_F32, THREADS, TURNS};
use hane_engine::Rules;
use hane_mcts::{PlayoutCap, PolicyTarget, Precision, SearchConfig, TemperatureSchedule, VISITS};
use serde::{Deserialize, Serialize};

/// What `games_in_flight` allows.
pub const GAMES_IN_FLIGHT: Allowed<usize> = Allowed::closed(1, 4096);
/// What `batch_size` allows.
pub const BATCH_SIZE: Allowed<usize> = Allowed::closed(1, 65536);
/// What `leaves_per_game` allows.
pub const LEAVES_PER_GAME: Allowed<usize> = Allowed::closed(1, 256);
/// What `max_turns` allows.
pub const MAX_TURNS: Allowed<u32> = Allowed::closed(0, 100_000);
/// What `pack_rows` allows.
pub const PACK_ROWS: Allowed<usize> = Allowed::closed(0, 10_000_000);
/// What `komi_stdev` allows, in points.
pub const KOMI_STDEV: Allowed<f32> = Allowed::closed(0.0, 100.0);
/// What `opening_moves` allows.
pub const OPENING_MOVES: Allowed<f32> = Allowed::closed(0.0, 1000.0);
/// What `temperature_early` and `temperature_late` allow.
pub const TEMPERATURE: Allowed<f32> = Allowed::closed(0.0, 10.0);
/// What `temperature_halflife` allows, in turns.
pub const HALFLIFE: Allowed<f32> = Allowed::closed(0.0, 1000.0);
/// What `prior_temperature_early` and `prior_temperature_late` allow.
pub const PRIOR_TEMPERATURE: Allowed<f32> = Allowed::closed(0.1, 10.0);
/// What `score_utility` allows.
pub const SCORE_UTILITY: Allowed<f32> = Allowed::closed(0.0, 10.0);

/// Everything a self-play run needs besides the evaluator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SelfplayConfig {
    /// Rule set, written as its text in a config file, e.g. `ttakji` or `loose,size=7`.
    pub rules: Rules,
    /// Pack finished games into one shard and one SGF collection each time they hold this
    /// many rows, and the rest at the end of the run ([`crate::pack`]); 0 keeps one shard and
    /// one SGF per game, and the trainer's window then moves a game at a time
    /// ([`PACK_ROWS`]).
    pub pack_rows: usize,
    /// Worker threads running searches ([`THREADS`]).
    pub threads: usize,
    /// Inference threads, each with its own copy of the evaluator, serving the workers in
    /// turn (at most `threads`). One thread feeds a GPU best; on a CPU each runs the net on
    /// one core, so a 2-core machine wants two of them and two workers ([`THREADS`]).
    pub inference_threads: usize,
    /// What the net computes in: `fp32`, `bf16` (the trunk in bfloat16, the heads in FP32), or
    /// `auto` (bf16 where the processor has it). Written as its name.
    pub precision: Precision,
    /// Games in flight per worker thread ([`GAMES_IN_FLIGHT`]).
    pub games_in_flight: usize,
    /// Largest number of positions in one evaluator call ([`BATCH_SIZE`]).
    pub batch_size: usize,
    /// Leaves gathered per game before each evaluator call (virtual loss spreads them;
    /// [`LEAVES_PER_GAME`]).
    pub leaves_per_game: usize,
    /// Visits of a full search, whose positions become training rows ([`VISITS`]).
    pub full_visits: u32,
    /// Visits of a fast search (not recorded), for playout cap randomisation ([`VISITS`]).
    pub fast_visits: u32,
    /// Probability that a turn gets a full search ([`FRACTION_F32`]).
    pub p_full: f32,
    /// A file of start positions ([`crate::starts`]; written by `hane book --starts`): with
    /// probability `start_prob` a game begins at one of them, drawn by weight, and its first
    /// search is full and looks at the position's hint.
    pub start_positions: Option<std::path::PathBuf>,
    /// The share of games that begin at a start position ([`FRACTION_F32`]; needs
    /// `start_positions` above 0).
    pub start_prob: f32,
    /// Resign when the mover's probability of not losing stays below this for `resign_turns`
    /// turns ([`FRACTION_F32`]).
    pub resign_threshold: f32,
    /// Consecutive turns below the threshold before resigning ([`TURNS`]).
    pub resign_turns: u32,
    /// Fraction of games played out to the end despite resigning, to measure false resigns
    /// ([`FRACTION_F32`]).
    pub resign_playthrough: f32,
    /// Standard deviation of the komi randomisation around the rules' komi, in points (0 =
    /// fixed komi; [`KOMI_STDEV`]).
    pub komi_stdev: f32,
    /// Fraction of games whose komi is drawn uniformly from the board's whole range instead
    /// (see [`crate::komi`]): the net then learns the whole win-rate-against-komi curve
    /// ([`FRACTION_F32`]).
    pub komi_wide: f32,
    /// Mean number of moves each game opens with, sampled from the evaluator's raw policy
    /// and not recorded (see [`crate::opening`]; KataGo: 0.04 times the board's area; 0: none;
    /// [`OPENING_MOVES`]).
    pub opening_moves: f32,
    /// Probability that a searched position of a game also starts a side game, which plays
    /// one move from the raw policy there and goes on like any game, recorded from then on
    /// (KataGo's side positions, 2.5% of positions; side games do not fork again; 0: none).
    /// Self-play then answers moves its searches would never choose ([`FRACTION_F32`]).
    pub fork_prob: f32,
    /// Move temperature of the first move; it decays towards `temperature_late`, halving the
    /// gap every `temperature_halflife` turns (KataGo: 0.8 -> 0.2, half-life = board size;
    /// [`TEMPERATURE`]).
    pub temperature_early: f32,
    /// Move temperature approached late in the game ([`TEMPERATURE`]).
    pub temperature_late: f32,
    /// Turns over which the temperature's distance to `temperature_late` halves (0: the
    /// board size; [`HALFLIFE`]).
    pub temperature_halflife: f32,
    /// Softmax temperature of the root's prior in full searches at the first move
    /// ([`SearchConfig::root_policy_temperature`]); it decays towards
    /// `prior_temperature_late` with the move temperature's half-life. Above 1 it keeps
    /// moves the net is unsure between alive in the search and in the policy target
    /// (KataGo's self-play: 1.25 early, 1.1 late; [`PRIOR_TEMPERATURE`]).
    pub prior_temperature_early: f32,
    /// The root prior's temperature approached late in the game ([`PRIOR_TEMPERATURE`]).
    pub prior_temperature_late: f32,
    /// Weight of the score term in the searches' utility (KataGo's self-play: 0.4; see
    /// [`SearchConfig::score_utility_weight`]). Larger values keep a side that is clearly
    /// winning or losing playing for points, so games at a komi far from fair are played as
    /// well as games near it ([`SCORE_UTILITY`]).
    pub score_utility: f32,
    /// Weight of the search's own win/draw/loss in each row's value target (the rest is the
    /// game's result): the result of one game carries every later exploratory move of both
    /// sides, the search judges the position as it would be played (0: the result only;
    /// [`FRACTION_F32`]).
    pub value_search_mix: f32,
    /// Weight of the search's estimate at the first exploratory move after a row (a move
    /// other than the search's best, played by the move temperature) in the row's value and
    /// score targets, in place of the game's result (0: the result only;
    /// [`crate::record::rows`]; [`FRACTION_F32`]).
    pub exploration_cut: f32,
    /// Share of each game's row weight given out by policy surprise, how far the search's
    /// target is from the net's raw prior (KataGo's `policySurpriseDataWeight`: 0.5; see
    /// [`crate::record::weigh_by_surprise`]). Positions where the search overruled the net
    /// are then written more often and the rest less, the same number of rows on average (0:
    /// every row once; [`FRACTION_F32`]).
    pub surprise_weight: f32,
    /// The policy target of each recorded search: `visits` (KataGo's pruned visit counts) or
    /// `completed_q` (the net's prior moved by the searched values, Gumbel AlphaZero's).
    pub policy_target: PolicyTarget,
    /// Turn cap per game (0 = the rule set's own cap; [`MAX_TURNS`]; the engine's own limit of
    /// 16 turns per board point still applies).
    pub max_turns: u32,
    /// Seed of everything random in the run (any 64-bit number).
    pub seed: u64,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            rules: Rules::preset("ttakji").expect("a preset"),
            pack_rows: 0,
            threads: 1,
            inference_threads: 1,
            precision: Precision::Fp32,
            games_in_flight: 64,
            batch_size: 128,
            leaves_per_game: 4,
            full_visits: 64,
            fast_visits: 16,
            p_full: 0.25,
            start_positions: None,
            start_prob: 0.0,
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
            prior_temperature_early: 1.03,
            prior_temperature_late: 1.03,
            score_utility: 0.4,
            value_search_mix: 0.0,
            exploration_cut: 0.0,
            surprise_weight: 0.0,
            policy_target: PolicyTarget::Visits,
            max_turns: 0,
            seed: 1,
        }
    }
}

impl SelfplayConfig {
    /// Turns off every target taken from the searches (`value_search_mix`,
    /// `exploration_cut`): a search without a net has no opinion of a position (every leaf a
    /// draw), so its estimates would only pull the targets towards draws.
    pub fn without_search_targets(&mut self) {
        self.value_search_mix = 0.0;
        self.exploration_cut = 0.0;
    }

    /// Checks every value against what its doc comment allows; the message names the key,
    /// the value and what is allowed.
    pub fn validate(&self) -> Result<(), Invalid> {
        self.rules.validate().map_err(|e| Invalid(format!("rules = \"{}\": {e}", self.rules)))?;
        THREADS.check("threads", self.threads)?;
        THREADS.check("inference_threads", self.inference_threads)?;
        GAMES_IN_FLIGHT.check("games_in_flight", self.games_in_flight)?;
        BATCH_SIZE.check("batch_size", self.batch_size)?;
        LEAVES_PER_GAME.check("leaves_per_game", self.leaves_per_game)?;
        VISITS.check("full_visits", self.full_visits)?;
        VISITS.check("fast_visits", self.fast_visits)?;
        TURNS.check("resign_turns", self.resign_turns)?;
        MAX_TURNS.check("max_turns", self.max_turns)?;
        PACK_ROWS.check("pack_rows", self.pack_rows)?;
        for (key, v) in [
            ("p_full", self.p_full),
            ("resign_threshold", self.resign_threshold),
            ("resign_playthrough", self.resign_playthrough),
            ("komi_wide", self.komi_wide),
            ("fork_prob", self.fork_prob),
            ("value_search_mix", self.value_search_mix),
            ("exploration_cut", self.exploration_cut),
            ("surprise_weight", self.surprise_weight),
            ("start_prob", self.start_prob),
        ] {
            FRACTION_F32.check(key, v)?;
        }
        if self.start_prob > 0.0 && self.start_positions.is_none() {
            return Err(Invalid(
                "start_prob above 0 needs start_positions (a file of start positions)".into(),
            ));
        }
        KOMI_STDEV.check("komi_stdev", self.komi_stdev)?;
        OPENING_MOVES.check("opening_moves", self.opening_moves)?;
        TEMPERATURE.check("temperature_early", self.temperature_early)?;
        TEMPERATURE.check("temperature_late", self.temperature_late)?;
        HALFLIFE.check("temperature_halflife", self.temperature_halflife)?;
        PRIOR_TEMPERATURE.check("prior_temperature_early", self.prior_temperature_early)?;
        PRIOR_TEMPERATURE.check("prior_temperature_late", self.prior_temperature_late)?;
        SCORE_UTILITY.check("score_utility", self.score_utility)
    }

    /// The rules as played: `rules` with `max_turns` applied.
    pub fn played_rules(&self) -> Rules {
        let mut r = self.rules;
        if self.max_turns > 0 {
            r.cap = hane_engine::rules::MoveCap::Fixed(self.max_turns);
        }
        r
    }

    /// The search parameters for this board.
    pub fn search(&self, size: usize) -> SearchConfig {
        SearchConfig {
            score_utility_weight: self.score_utility,
            policy_target: self.policy_target,
            ..SearchConfig::for_board(size)
        }
    }

    /// Playout cap randomisation settings.
    pub fn cap(&self) -> PlayoutCap {
        PlayoutCap { full_visits: self.full_visits, fast_visits: self.fast_visits, p_full: self.p_full }
    }

    /// Move temperature schedule for this board.
    pub fn temperature(&self, size: usize) -> TemperatureSchedule {
        TemperatureSchedule {
            early: self.temperature_early,
            late: self.temperature_late,
            halflife: self.halflife(size),
        }
    }

    /// The root prior's temperature schedule for this board (the move temperature's
    /// half-life).
    pub fn prior_temperature(&self, size: usize) -> TemperatureSchedule {
        TemperatureSchedule {
            early: self.prior_temperature_early,
            late: self.prior_temperature_late,
            halflife: self.halflife(size),
        }
    }

    fn halflife(&self, size: usize) -> f32 {
        if self.temperature_halflife > 0.0 {
            self.temperature_halflife
        } else {
            size as f32
        }
    }

    /// How each game's komi is drawn.
    pub fn komi_draw(&self) -> crate::komi::KomiDraw {
        crate::komi::KomiDraw { stdev: self.komi_stdev, wide: self.komi_wide }
    }
}
