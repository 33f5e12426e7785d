//! What chooses hane's turns in the front-ends: a search of a fixed number of visits with an
//! evaluator, a net's or random rollouts. The caller brings the net (the binary loads it with
//! `hane_pipeline::net_rules::load`), so nothing here needs libtorch.

use hane_engine::range::Invalid;
use hane_engine::{Action, GameState, PlayError, Rules};
use hane_eval::referee::{search_turn, SearchPlayer};
use hane_mcts::net_rules::{self, AsTrained};
use hane_mcts::{Evaluator, RolloutEvaluator};

/// The search of `hane gtp`, `hane analysis` and `hane play`.
pub struct Brain {
    /// The search, with the net or random rollouts.
    player: SearchPlayer<Box<dyn Evaluator<GameState>>>,
    /// The rule set of the net and the board sizes it plays, if there is one.
    net: Option<(Rules, Vec<u8>)>,
}

impl std::fmt::Debug for Brain {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("Brain")
            .field("visits", &self.player.visits)
            .field("seed", &self.player.seed)
            .field("net", &self.net.as_ref().map(|(r, sizes)| format!("{r} on {sizes:?}")))
            .finish_non_exhaustive()
    }
}

impl Brain {
    /// A search of `visits` visits per decision evaluating with random rollouts.
    pub fn with_rollouts(visits: u32, seed: u64) -> Result<Brain, Invalid> {
        Brain::new(Box::new(RolloutEvaluator::new(seed)), None, visits, seed)
    }

    /// A search of `visits` visits per decision evaluating with `net`, which then decides
    /// the rules it can play ([`Brain::check_rules`]).
    pub fn with_net<E: Evaluator<GameState> + 'static>(
        net: AsTrained<E>,
        visits: u32,
        seed: u64,
    ) -> Result<Brain, Invalid> {
        let info = (net.trained, net.sizes.clone());
        Brain::new(Box::new(net), Some(info), visits, seed)
    }

    fn new(
        evaluator: Box<dyn Evaluator<GameState>>,
        net: Option<(Rules, Vec<u8>)>,
        visits: u32,
        seed: u64,
    ) -> Result<Brain, Invalid> {
        hane_mcts::VISITS.check("visits", visits)?;
        Ok(Brain { player: SearchPlayer { evaluator, visits, seed, label: "hane".into() }, net })
    }

    /// An error message unless this brain can play games under `rules`: always without a
    /// net; with a net, its own game (komi and turn cap aside) or, for a Go net, any Go rules
    /// of its board sizes, with a note saying which rules the net was trained on
    /// ([`net_rules::check`]).
    pub fn check_rules(&self, rules: &Rules) -> Result<Option<String>, Invalid> {
        match &self.net {
            Some((net, sizes)) => net_rules::check(net, sizes, rules),
            None => Ok(None),
        }
    }

    /// Whether the brain evaluates with a net (which predicts ownership).
    pub fn has_net(&self) -> bool {
        self.net.is_some()
    }

    /// The evaluator of its searches.
    pub(crate) fn evaluator(&mut self) -> &mut Box<dyn Evaluator<GameState>> {
        &mut self.player.evaluator
    }

    /// Visits per decision.
    pub(crate) fn visits(&self) -> u32 {
        self.player.visits
    }

    /// Seed of its searches.
    pub(crate) fn seed(&self) -> u64 {
        self.player.seed
    }

    /// Searches and plays on `game` one whole turn of the side to move
    /// ([`hane_eval::referee::search_turn`]), returning its actions.
    pub fn play_turn(&mut self, game: &mut GameState, cleanup: bool) -> Result<Vec<Action>, PlayError> {
        let p = &mut self.player;
        let (actions, after) = search_turn(&mut p.evaluator, game, p.visits, p.seed, cleanup)?;
        *game = after;
        Ok(actions)
    }
}
