//! Depth-first proof-number search (df-pn) of one null-window test, "is the value at least
//! `x`?", under positional superko (Go), where no position repeats within a line.
//!
//! Each node carries a proof number (how many leaves at least must still be proved for the
//! answer "yes") and a disproof number (for "no"): at Black's nodes the proof number is the
//! least of its children's and the disproof number their sum, at White's the other way round.
//! The search walks down to the child with the least number on the mover's side while the
//! node's numbers stay below the thresholds its parent gave it (Nagai's df-pn), with the
//! second child's number times 1 + 1/4 as the threshold of the first (Pawlewicz and Lew's
//! 1 + ε trick, which keeps the search below a node for longer before it switches back).
//! Unlike the depth-limited proof searches of the parent module, it has no horizon: it goes
//! where a proof is cheapest, however deep, and a line that does not end quickly is simply
//! left for cheaper ones.
//!
//! What is decided is stored in the transposition table as a proven bound (at least `x`, or
//! at most `x - 1`) with its dependencies, exactly as the alpha-beta search stores its
//! results, so either search reuses the other's. A decided node depends on the children that
//! decide it: one child where the mover decides it, every child and the moves superko bans
//! where the mover cannot escape. The numbers of undecided nodes are a guide only; they live
//! in a table of their own, keyed by position and test whatever the history, and no result
//! rests on them.

use super::{final_value, legal_actions, probe_bans, Search};
use crate::checkpoint;
use crate::deps::{Deps, Step, Stones};
use crate::table::{Entry, Scope, Table};
use hane_engine::rng::mix64;
use hane_engine::symmetry::Symmetry;
use hane_engine::{Action, Color, Game, GameState};

/// An infinite proof or disproof number: the other side's answer is proved.
const INFINITE: u32 = u32::MAX / 2;

/// The most entries of the table of proof and disproof numbers (16 bytes each).
const NUMBERS: usize = 1 << 22;

/// Proof and disproof numbers of undecided nodes, by position and test (direct-mapped).
pub(super) struct Numbers {
    slots: Vec<(u64, u32, u32)>,
}

impl Numbers {
    /// A table of about `entries` entries (a power of two, at most [`NUMBERS`]).
    fn new(entries: usize) -> Numbers {
        let n = entries.clamp(1 << 10, NUMBERS).next_power_of_two();
        Numbers { slots: vec![(0, 0, 0); n] }
    }

    /// A table for a search with `table`, holding `saved` (from a save).
    pub fn loaded(table: Option<&Table>, saved: &[checkpoint::Numbers]) -> Numbers {
        let mut numbers = Numbers::for_table(table);
        for &(key, pn, dn) in saved {
            numbers.put(key, pn, dn);
        }
        numbers
    }

    /// A table sized for a search with `table`.
    fn for_table(table: Option<&Table>) -> Numbers {
        Numbers::new(table.map_or(0, |t| t.limit()))
    }

    /// The occupied slots, for a save.
    pub fn entries(&self) -> Vec<checkpoint::Numbers> {
        self.slots.iter().copied().filter(|&(key, _, _)| key != 0).collect()
    }

    fn slot(&self, key: u64) -> usize {
        key as usize & (self.slots.len() - 1)
    }

    fn get(&self, key: u64) -> Option<(u32, u32)> {
        let (k, pn, dn) = self.slots[self.slot(key)];
        (k == key && key != 0).then_some((pn, dn))
    }

    fn put(&mut self, key: u64, pn: u32, dn: u32) {
        let i = self.slot(key);
        self.slots[i] = (key, pn, dn);
    }
}

/// A node's numbers, and once it is decided, what the answer depends on.
struct Proof {
    pn: u32,
    dn: u32,
    /// Set once decided (`pn` or `dn` is 0).
    deps: Option<Deps>,
    /// Once decided by the mover, an action that decides it.
    best: Option<Action>,
}

impl Proof {
    fn decided(holds: bool, deps: Deps) -> Proof {
        let (pn, dn) = if holds { (0, INFINITE) } else { (INFINITE, 0) };
        Proof { pn, dn, deps: Some(deps), best: None }
    }
}

/// Where a position is stored: its stones, the symmetry to its canonical frame, and its key.
struct Located {
    stones: Stones,
    frame: Symmetry,
    key: u64,
}

/// The key of a position's numbers at test `x`, from its table key.
fn numbers_key(key: u64, x: i32) -> u64 {
    key ^ mix64(0x4000_0000 ^ x as u32 as u64)
}

/// One child of an expanded node.
struct Child {
    action: Action,
    proof: Proof,
}

/// The next threshold for the best child: the second-best number times 1 + 1/4, and at least
/// one more than it.
fn widen(second: u32) -> u32 {
    if second >= INFINITE {
        INFINITE
    } else {
        (second + 1).max(second.saturating_add(second / 4)).min(INFINITE)
    }
}

impl Search<'_> {
    /// Whether the value of `g` is at least `x`, by df-pn; `None` when the search gives up.
    /// Narrows the proven bounds in the statistics as [`Search::decide`] does.
    pub(super) fn prove(&mut self, g: &GameState, x: i32) -> Option<bool> {
        self.stats.depth = u32::MAX;
        self.stats.prover = crate::Prover::Both;
        if self.numbers.is_none() {
            self.numbers = Some(Numbers::for_table(self.table.as_ref()));
        }
        let mut root = self.probe(g, x);
        while root.deps.is_none() {
            root = self.expand(g, x, INFINITE, INFINITE);
            if self.giving_up() {
                self.finish(true);
                return None;
            }
            if root.deps.is_none() {
                // Numbers grown to the infinite bound decide nothing: start the guide afresh.
                self.numbers = Some(Numbers::for_table(self.table.as_ref()));
            }
        }
        let holds = root.pn == 0;
        let deps = root.deps.clone().expect("decided");
        self.capped |= deps.capped;
        let s = &mut self.stats;
        if holds {
            s.lower = s.lower.max(x);
        } else {
            s.upper = s.upper.min(x - 1);
        }
        if (g.to_move() == Color::Black) == holds {
            self.best = root.best;
        }
        Some(holds)
    }

    /// Where `g` is stored: its stones, canonical frame and key.
    fn locate(&self, g: &GameState) -> Located {
        let stones = Stones::of(g.board());
        let frame = self.frames.canonical(stones);
        Located { stones, frame, key: self.frames.key(g, stones, frame, None) }
    }

    /// What the table knows of `g` (its history in `self.path`, its place `at`) before it is
    /// searched: a stored result that decides the test, or the numbers so far; and the end of
    /// the game (a leaf, counted as a node). Its static bounds wait for its expansion.
    fn probe(&mut self, g: &GameState, x: i32) -> Proof {
        if g.is_over() {
            self.count_node();
            return Proof::decided(final_value(g) >= x, Deps::leaf(g.passes(), g.turns()));
        }
        let offset = self.offset(g);
        let Located { frame, key, .. } = self.locate(g);
        if let Some(table) = &self.table {
            let frames = &self.frames;
            let from_canonical = |m| frames.map(frame.inverse(), m);
            for e in table.get(key) {
                let (yes, no) = (e.lower + offset >= x, e.upper + offset < x);
                if (yes || no) && e.holds(g.turns(), &self.path, from_canonical) {
                    self.stats.table_hits += 1;
                    let best = frames.action_from(frame, e.best);
                    return Proof { best, ..Proof::decided(yes, e.deps(from_canonical)) };
                }
            }
        }
        let (pn, dn) = self.numbers.as_ref().and_then(|n| n.get(numbers_key(key, x))).unwrap_or((1, 1));
        Proof { pn, dn, deps: None, best: None }
    }

    /// Searches `g` until its numbers reach a threshold or it is decided, and returns them.
    fn expand(&mut self, g: &GameState, x: i32, pn_limit: u32, dn_limit: u32) -> Proof {
        self.count_node();
        let (floor, ceiling) = self.static_window(g);
        if floor >= x || ceiling < x {
            return Proof::decided(floor >= x, Deps::none());
        }
        let start_nodes = self.stats.nodes;
        let black = g.to_move() == Color::Black;
        let here = self.locate(g);
        let stones = here.stones;
        let mut actions = legal_actions(g);
        let hint = self.best_stored(here.key, here.frame);
        let history = &self.history;
        let side = g.to_move().index() * g.action_space();
        actions.sort_by_key(|a| match a {
            _ if Some(*a) == hint => (0, 0),
            Action::Pass => (2, 0),
            _ => (1, u64::MAX - history[side + g.action_index(*a)]),
        });
        let mut children = Vec::with_capacity(actions.len());
        for &a in &actions {
            let (child, _) = self.play(g, a, stones);
            let proof = self.probe(&child, x);
            self.leave(child);
            // A child decided for the mover decides the node: the others need no look.
            let wins = if black { proof.pn == 0 } else { proof.dn == 0 };
            children.push(Child { action: a, proof });
            if wins {
                let won = children.pop().expect("just pushed");
                children = vec![won];
                break;
            }
        }
        loop {
            // The mover's number is the least of its children's; the other one the largest
            // of theirs plus one for each other child still open on that side (a weak sum,
            // which does not count twice what transpositions share).
            let (mut least, mut best, mut second) = (INFINITE, 0, INFINITE);
            let (mut most, mut open) = (0u32, 0u32);
            for (i, c) in children.iter().enumerate() {
                let (mine, other) = if black { (c.proof.pn, c.proof.dn) } else { (c.proof.dn, c.proof.pn) };
                if mine < least {
                    (second, least, best) = (least, mine, i);
                } else if mine < second {
                    second = mine;
                }
                most = most.max(other);
                open += u32::from(other > 0);
            }
            let sum = if most >= INFINITE { INFINITE } else { (most + open.saturating_sub(1)).min(INFINITE) };
            let (pn, dn) = if black { (least, sum) } else { (sum, least) };
            if self.ply == 0 {
                let done = children.iter().filter(|c| c.proof.deps.is_some()).count();
                (self.stats.root_done, self.stats.root_moves) = (done as u32, actions.len() as u32);
            }
            if pn == 0 || dn == 0 {
                return self.decide_node(g, &here, x, children, pn == 0, start_nodes);
            }
            if pn >= pn_limit || dn >= dn_limit || self.giving_up() {
                let whole = !self.giving_up();
                if let Some(numbers) = self.numbers.as_mut().filter(|_| whole) {
                    numbers.put(numbers_key(here.key, x), pn, dn);
                }
                return Proof { pn, dn, deps: None, best: None };
            }
            let c = &children[best].proof;
            let others = open.saturating_sub(1);
            let (pn_child, dn_child) = if black {
                (pn_limit.min(widen(second)), dn_limit.saturating_sub(others).max(c.dn + 1))
            } else {
                (pn_limit.saturating_sub(others).max(c.pn + 1), dn_limit.min(widen(second)))
            };
            let (child, _) = self.play(g, children[best].action, stones);
            self.ply += 1;
            let proof = self.expand(&child, x, pn_child, dn_child);
            self.ply -= 1;
            self.leave(child);
            children[best].proof = proof;
        }
    }

    /// A node whose answer its children decide (`holds`: proved at least `x`): what it
    /// depends on, stored in the table.
    fn decide_node(
        &mut self,
        g: &GameState,
        here: &Located,
        x: i32,
        children: Vec<Child>,
        holds: bool,
        start: u64,
    ) -> Proof {
        let stones = here.stones;
        // The mover decides it by one child; otherwise every child was needed.
        let by_one = holds == (g.to_move() == Color::Black);
        let mut deps = Deps::inner(self.max_turns);
        let mut best = None;
        for c in &children {
            let Some(d) = &c.proof.deps else { continue };
            if by_one && (c.proof.pn == 0) != holds {
                continue;
            }
            let (child, step) = self.play(g, c.action, stones);
            deps.add_child(d, &step);
            if let Step::Place { parent, child, .. } = step {
                deps.add_probe(parent, child);
            }
            self.leave(child);
            if by_one {
                best = Some(c.action);
                break;
            }
        }
        if !by_one && self.superko {
            let actions: Vec<Action> = children.iter().map(|c| c.action).collect();
            probe_bans(g, &actions, stones, &mut deps);
        }
        if let Some(a) = best {
            self.history[g.to_move().index() * g.action_space() + g.action_index(a)] += 1;
        }
        let offset = self.offset(g);
        if let Some(table) = &mut self.table {
            let (frame, key) = (here.frame, here.key);
            let bounds = if holds { (x, self.max_value) } else { (-self.max_value, x - 1) };
            let index = best.map_or(u16::MAX, |a| self.frames.action_index(g, frame, a));
            let frames = &self.frames;
            let stored = deps.mapped(|m| frames.map(frame, m));
            let scope = Scope { depth: u32::MAX, prover: None, test: x - offset, pruned: false };
            let work = self.stats.nodes - start + 1;
            if let Some(e) =
                Entry::new(key, (bounds.0 - offset, bounds.1 - offset), index, scope, work, &stored)
            {
                table.put(e);
            }
        }
        Proof { best, ..Proof::decided(holds, deps) }
    }
}
