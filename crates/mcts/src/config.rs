//! Search parameters. The defaults are KataGo's published self-play constants (paper arXiv
//! 1902.10565v5 and its training configs), each cited on its field; `use_noise` is off by
//! default so that a plain `Search` is a deterministic best-move search, and self-play turns
//! it on for full searches.

/// The most visits any command or config asks of one search. Every visit can add a node, so
/// the number sizes the tree's memory; a million is far beyond what any board here needs
/// (KataGo's strongest analysis runs use tens of thousands).
pub const MAX_VISITS: u32 = 1_000_000;

/// The visits a search may be asked for: 1..=[`MAX_VISITS`].
pub const VISITS: hane_engine::range::Allowed<u32> = hane_engine::range::Allowed::closed(1, MAX_VISITS);

/// Parameters of one [`Search`](crate::Search).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchConfig {
    /// PUCT exploration constant: a child's score is
    /// `Q + c_puct * P * sqrt(sum of child visits) / (1 + N)`.
    /// KataGo paper §2: `c_PUCT = 1.1`.
    pub c_puct: f32,
    /// First-play urgency below the root: an unvisited child is valued at the parent's
    /// utility minus `fpu_reduction * sqrt(sum of the priors of the visited children)`.
    /// KataGo paper §2: `c_FPU = 0.2`.
    pub fpu_reduction: f32,
    /// The FPU reduction at the root while `use_noise` is on (without noise the root uses
    /// `fpu_reduction` like every other node). KataGo paper §2: 0 at the root with noise.
    pub root_fpu_reduction: f32,
    /// Total Dirichlet concentration at the root; each of the `n` legal actions gets
    /// `alpha = dirichlet_alpha / n`, so the noise looks alike on every board size.
    /// KataGo: `rootDirichletNoiseTotalConcentration = 10.83` (= 0.03 * 19 * 19).
    pub dirichlet_alpha: f32,
    /// Weight of the noise in the root prior: `P = (1 - w) * P_raw + w * eta`.
    /// KataGo: `rootDirichletNoiseWeight = 0.25`.
    pub noise_weight: f32,
    /// Softmax temperature applied to the root prior while `use_noise` is on
    /// (`P ∝ P_raw^(1/T)`). KataGo paper §2: 1.03 (after SAI).
    pub root_policy_temperature: f32,
    /// Virtual visits added per in-flight evaluation below a node during a batched gather,
    /// each counted as the worst utility for the player choosing it, so the next gather
    /// tends to take another path. KataGo: `numVirtualLossesPerThread = 1`.
    pub virtual_loss: f32,
    /// Weight of the score term of the utility (see [`utility`](crate::value::utility)).
    /// KataGo: `dynamicScoreUtilityFactor = 0.40` (selfplay1.cfg; the paper's `c_score`).
    pub score_utility_weight: f32,
    /// Points over which the score term saturates: `2/pi * atan((score - center) / scale)`.
    /// KataGo scales by `0.5 * sqrt(board area)` (`dynamicScoreCenterScale = 0.50`), i.e.
    /// 4.5 points on 9x9; use [`SearchConfig::for_board`] to set it for another size.
    pub score_utility_scale: f32,
    /// The score center is the root's mean score (in Black's view) pulled towards 0 by
    /// this weight, recomputed whenever the root changes. KataGo:
    /// `dynamicScoreCenterZeroWeight = 0.25`.
    pub score_center_zero_weight: f32,
    /// Forced playouts at the root while `use_noise` is on: a visited child with fewer than
    /// `sqrt(k * P * total child visits)` visits is chosen first. KataGo paper §3.2 and
    /// `rootDesiredPerChildVisitsCoeff = 2`. 0 disables forcing and target pruning.
    pub forced_playouts_k: f32,
    /// Self-play exploration at the root: Dirichlet noise, the root policy temperature,
    /// `root_fpu_reduction`, forced playouts and policy-target pruning. Fast searches of
    /// playout cap randomization turn it off (KataGo paper §3.1).
    pub use_noise: bool,
    /// Leave a premature pass out of a node's edges (root included), through
    /// [`Game::drop_premature_pass`](hane_engine::Game::drop_premature_pass): in area-scoring
    /// Go, no pass while the player to move still has an open placement (legal, not its own
    /// eye, not a self-atari, outside every pass-alive territory). A pass there gives points
    /// away, and hane's early self-play was full of them (in the quick 5x5 run 75% of the
    /// passes were answered by a placement); KataGo's self-play likewise plays on until
    /// every point is pass-alive. Other games and rule sets are unaffected; off, the search
    /// considers every legal action.
    pub prune_premature_pass: bool,
    /// The policy training target while `use_noise` is on (without it, the visit counts);
    /// moves are chosen from the visits either way.
    pub policy_target: PolicyTarget,
}

/// What the policy head learns from a self-play search.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize), serde(rename_all = "snake_case"))]
pub enum PolicyTarget {
    /// The root's visit counts with forced playouts pruned (KataGo's).
    #[default]
    Visits,
    /// Gumbel AlphaZero's completed-Q improved policy, `softmax(log P + sigma(Q))`
    /// (Danihelka et al. 2022): a move the search found better gains weight at once, however
    /// few visits it got.
    CompletedQ,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig {
            c_puct: 1.1,
            fpu_reduction: 0.2,
            root_fpu_reduction: 0.0,
            dirichlet_alpha: 10.83,
            noise_weight: 0.25,
            root_policy_temperature: 1.03,
            virtual_loss: 1.0,
            score_utility_weight: 0.4,
            score_utility_scale: 4.5,
            score_center_zero_weight: 0.25,
            forced_playouts_k: 2.0,
            use_noise: false,
            prune_premature_pass: true,
            policy_target: PolicyTarget::Visits,
        }
    }
}

impl SearchConfig {
    /// The defaults with the score scale set for an `n x n` board (`0.5 * n`, KataGo's
    /// `0.5 * sqrt(area)`).
    pub fn for_board(size: usize) -> SearchConfig {
        SearchConfig { score_utility_scale: 0.5 * size as f32, ..SearchConfig::default() }
    }

    /// The same configuration with self-play exploration (`use_noise`) switched on or off.
    pub fn with_noise(self, on: bool) -> SearchConfig {
        SearchConfig { use_noise: on, ..self }
    }
}
