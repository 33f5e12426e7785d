//! The game loop of one worker thread: it keeps `games_in_flight` games going, gathers a few
//! leaves from each game's search, evaluates all of them in one call, and moves every game
//! whose search reached its visit budget.
//!
//! A game first plays its opening moves from the raw policy ([`crate::opening`]), each after
//! a one-visit search that only evaluates the root. Then per turn the budget comes from
//! playout cap randomisation: a full search (recorded as a
//! training row, root noise on) with probability `p_full`, else a fast one (not recorded,
//! no noise). Moves are sampled with the temperature schedule. A player whose probability
//! of not losing (win or draw) stays under the threshold resigns, except in a fraction of games that are
//! played out to count how often resigning would have been wrong.

use crate::komi;
use crate::name::GameName;
use crate::opening;
use crate::record::{self, Ending, Estimate, PendingRow};
use crate::shared::Shared;
use hane_engine::rng::Rng;
use hane_engine::{Action, Color, Game, GameState, Phase};
use hane_mcts::{temperature, EvalRequest, Evaluator, Gather, LeafId, Search};
use std::sync::atomic::Ordering;

/// One game in progress.
struct Slot {
    name: GameName,
    game: GameState,
    search: Search<GameState>,
    rng: Rng,
    target: u32,
    full: bool,
    /// Opening moves from the raw policy still to play.
    opening: u32,
    actions: Vec<Action>,
    rows: Vec<PendingRow>,
    low: [u32; 2],
    playthrough: bool,
    would_resign: Option<Color>,
}

impl Slot {
    fn new(shared: &Shared, id: u64) -> Slot {
        let mut rng = Rng::new(shared.cfg.seed ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let mut rules = shared.rules;
        rules.komi = komi::randomise(&rules, shared.cfg.komi_draw(), &mut rng);
        let mut game = GameState::new(rules);
        let search_seed = rng.next_u64();
        let playthrough = rng.unit() < f64::from(shared.cfg.resign_playthrough);
        let mut opening = opening::length(shared.cfg.opening_moves, &mut rng);
        let name = GameName { id, fork_turn: None };
        // A start position (only drawn when configured, so other runs draw as before).
        let start = (shared.cfg.start_prob > 0.0 && rng.unit() < f64::from(shared.cfg.start_prob))
            .then(|| shared.starts.draw(rng.unit()))
            .filter(|s| s.actions.iter().all(|&a| game.play(a).is_ok()));
        let actions = start.map_or_else(Vec::new, |s| s.actions.clone());
        if start.is_some() {
            opening = 0;
        }
        let mut slot = Slot::start(shared, name, game, actions, (rng, search_seed), opening, playthrough);
        if let Some(hint) = start.and_then(|s| s.hint) {
            // The hint's first search is full: it is what the book position is for.
            slot.search.set_root_hint(hint, crate::starts::HINT_SHARE);
            slot.full = true;
            slot.target = shared.cfg.full_visits;
            slot.search.set_noise(true);
        }
        slot
    }

    /// A side game from this game's position, drawn with probability `fork_prob` before a
    /// searched move: it plays one raw-policy move here, then goes on like any game.
    fn fork(&mut self, shared: &Shared) -> Option<Slot> {
        let p = f64::from(shared.cfg.fork_prob);
        if p == 0.0 || self.name.fork_turn.is_some() || self.opening > 0 || self.rng.unit() >= p {
            return None;
        }
        let turn = self.game.turns();
        let name = GameName { id: self.name.id, fork_turn: Some(turn) };
        let mut rng = Rng::new(
            shared.cfg.seed
                ^ self.name.id.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                ^ u64::from(turn + 1).wrapping_mul(0xD1B5_4A32_D192_ED03),
        );
        let search_seed = rng.next_u64();
        let (game, actions) = (self.game.clone(), self.actions.clone());
        Some(Slot::start(shared, name, game, actions, (rng, search_seed), 1, self.playthrough))
    }

    /// A game at `game` (reached by `actions`), with its random source and search seed.
    fn start(
        shared: &Shared,
        name: GameName,
        game: GameState,
        actions: Vec<Action>,
        (rng, search_seed): (Rng, u64),
        opening: u32,
        playthrough: bool,
    ) -> Slot {
        let size = game.geo().size();
        let mut search = Search::new(game.clone(), shared.cfg.search(size), search_seed);
        search.set_root_policy_temperature(prior_temperature(shared, &game));
        let mut s = Slot {
            name,
            game,
            search,
            rng,
            target: 0,
            full: false,
            opening,
            actions,
            rows: Vec::new(),
            low: [0; 2],
            playthrough,
            would_resign: None,
        };
        s.new_budget(shared);
        s
    }

    fn new_budget(&mut self, shared: &Shared) {
        let (visits, full) =
            if self.opening > 0 { (1, false) } else { shared.cfg.cap().choose(&mut self.rng) };
        self.full = full;
        self.target = visits;
        self.search.set_noise(full);
    }

    /// Plays the searched move; returns the ending when the game is over.
    fn move_now(&mut self, shared: &Shared) -> Option<Ending> {
        if self.opening > 0 {
            self.opening -= 1;
            let children = self.search.root_children();
            let priors: Vec<f32> = children.iter().map(|c| c.prior).collect();
            let a = children[opening::sample(&priors, &mut self.rng)].action;
            return self.play(shared, a);
        }
        let g = &self.game;
        if self.full {
            let target = self.search.policy_target();
            // Only surprise weighting reads it.
            let surprise =
                if shared.cfg.surprise_weight > 0.0 { self.search.policy_surprise(&target) } else { 0.0 };
            self.rows.push(record::pending_row(g, &target, best_move_wdl(&self.search), surprise));
        }
        let mover = g.to_move();
        if g.phase() == Phase::Start {
            // Clearly lost: at most `resign_threshold` of the outcomes are not a loss.
            let not_lost = 1.0 - self.search.root_value().wdl[2];
            let low = &mut self.low[mover.index()];
            *low = if not_lost < shared.cfg.resign_threshold { *low + 1 } else { 0 };
            if *low >= shared.cfg.resign_turns && shared.cfg.resign_turns > 0 {
                if !self.playthrough {
                    let score = self.search.root_value().score;
                    let margin_black = if mover == Color::Black { score } else { -score };
                    let winner = match mover {
                        Color::Black => hane_engine::Outcome::White,
                        Color::White => hane_engine::Outcome::Black,
                    };
                    return Some(Ending { winner, margin_black, resigned: Some(mover) });
                }
                self.would_resign.get_or_insert(mover);
            }
        }
        let t = temperature(self.game.turns(), shared.cfg.temperature(self.game.geo().size()));
        // The search's best move, read only where exploratory moves are noted.
        let best = (shared.cfg.exploration_cut > 0.0).then(|| self.search.most_visited_child()).flatten();
        let a = self.search.select_action(t);
        if let Some(b) = best.filter(|b| b.action != a) {
            record::mark_exploration(&mut self.rows, mover, Estimate { wdl: b.wdl, score: b.score });
        }
        self.play(shared, a)
    }

    /// Plays `a` and moves the search along; returns the ending when the game is over.
    fn play(&mut self, shared: &Shared, a: Action) -> Option<Ending> {
        if let Err(e) = self.game.play(a) {
            panic!("search chose an illegal action {a:?}: {e}");
        }
        self.actions.push(a);
        shared.progress.moves.fetch_add(1, Ordering::Relaxed);
        if self.game.is_over() {
            return Some(Ending::scored(&self.game));
        }
        self.search.set_root_policy_temperature(prior_temperature(shared, &self.game));
        self.search.advance(a);
        self.new_budget(shared);
        None
    }
}

/// The root prior's temperature for the searches of `game`'s next move.
fn prior_temperature(shared: &Shared, game: &GameState) -> f32 {
    temperature(game.turns(), shared.cfg.prior_temperature(game.geo().size()))
}

/// The search's win/draw/loss for the player to move, read at its most visited move
/// ([`Search::most_visited_child`]), or at the root before any move has visits.
fn best_move_wdl(search: &Search<GameState>) -> [f32; 3] {
    search.most_visited_child().map_or_else(|| search.root_value().wdl, |c| c.wdl)
}

/// Runs games until there are none left to start (or a stop is requested) and all of this
/// worker's games are finished.
pub fn work(shared: &Shared, ev: &mut dyn Evaluator<GameState>) {
    let mut slots: Vec<Slot> = Vec::new();
    let mut requests: Vec<EvalRequest<GameState>> = Vec::new();
    let mut owners: Vec<(usize, LeafId)> = Vec::new();
    loop {
        if shared.stop.requested() {
            return;
        }
        while slots.len() < shared.cfg.games_in_flight {
            match shared.claim() {
                Some(id) => slots.push(Slot::new(shared, id)),
                None => break,
            }
        }
        if slots.is_empty() {
            return;
        }
        requests.clear();
        owners.clear();
        for (i, s) in slots.iter_mut().enumerate() {
            for _ in 0..shared.cfg.leaves_per_game {
                if s.search.root_visits() + s.search.pending() >= s.target {
                    break;
                }
                match s.search.gather() {
                    Gather::Leaf(id, req) => {
                        owners.push((i, id));
                        requests.push(req);
                    }
                    Gather::Terminal => {}
                    Gather::Busy => break,
                }
            }
        }
        if !requests.is_empty() {
            let evals = ev.evaluate(&requests);
            for (&(i, id), e) in owners.iter().zip(&evals) {
                slots[i].search.apply(id, e);
            }
        }
        let mut i = 0;
        while i < slots.len() {
            let s = &mut slots[i];
            if s.search.root_visits() < s.target || s.search.pending() > 0 {
                i += 1;
                continue;
            }
            if let Some(side) = s.fork(shared) {
                slots.push(side);
            }
            let s = &mut slots[i];
            match s.move_now(shared) {
                None => i += 1,
                Some(end) => {
                    let mut s = slots.swap_remove(i);
                    record::weigh_by_surprise(&mut s.rows, shared.cfg.surprise_weight, &mut s.rng);
                    shared.finish(s.name, &s.game, &s.actions, s.rows, end, s.would_resign);
                }
            }
        }
    }
}
