//! Positions turned into a net's input batch, the one way every evaluator that feeds a net
//! does it: each position's planes ([`features::encode`]) in one of the eight board
//! symmetries when random symmetries are on (picked by a hash of the position, so the choice
//! does not depend on how requests are batched), its global features, padding to a fixed row
//! count when asked, and the map from a legal action to the policy entry that answers it.
//!
//! The net's evaluator (`hane_nn`) runs its forward pass on these buffers; the self-play
//! benchmark's encode-only evaluator stops here, to measure the CPU side of self-play alone.

use crate::features::encode;
use crate::symmetries::Symmetries;
use hane_engine::rng::mix64;
use hane_engine::{Action, Game, GameState};

/// Reusable input buffers of one evaluator (see the module docs).
#[derive(Debug)]
pub struct BatchEncoder {
    size: usize,
    action_space: usize,
    planes: Vec<u8>,
    globals: Vec<f32>,
    /// The symmetry maps when positions get a random symmetry.
    symmetries: Option<Symmetries>,
    /// The symmetry of each position of the current batch.
    chosen: Vec<usize>,
    /// The rows of every batch, when fixed.
    fixed_batch: Option<usize>,
}

impl BatchEncoder {
    /// Buffers for positions on a `size` board with a policy of `action_space` entries, each
    /// shown as it is.
    pub fn new(size: usize, action_space: usize) -> BatchEncoder {
        BatchEncoder {
            size,
            action_space,
            planes: Vec::new(),
            globals: Vec::new(),
            symmetries: None,
            chosen: Vec::new(),
            fixed_batch: None,
        }
    }

    /// The same, showing each position in a symmetry of its own.
    pub fn with_random_symmetries(mut self) -> BatchEncoder {
        self.symmetries = Some(Symmetries::new(self.size, self.action_space));
        self
    }

    /// The same, padding every batch with zeros to at least `rows` rows.
    pub fn with_fixed_batch(mut self, rows: usize) -> BatchEncoder {
        self.fixed_batch = Some(rows);
        self
    }

    /// The symmetry `g` is shown in: identity without random symmetries, else one of the
    /// eight by a hash of the board, the player to move and the turn.
    pub fn symmetry_of(&self, g: &GameState) -> usize {
        match self.symmetries {
            None => 0,
            Some(_) => {
                let key = g.board().hash() ^ (u64::from(g.turns()) << 1) ^ g.to_move().index() as u64;
                (mix64(key) % 8) as usize
            }
        }
    }

    /// Encodes `states` (at least one) into the buffers, padded to the fixed row count if any;
    /// returns the number of rows.
    ///
    /// # Panics
    /// If a position's board size or action space differs from this encoder's: the caller
    /// must not mix games.
    pub fn encode<'a>(&mut self, states: impl Iterator<Item = &'a GameState>) -> usize {
        self.planes.clear();
        self.globals.clear();
        self.chosen.clear();
        for s in states {
            assert!(
                s.geo().size() == self.size && s.action_space() == self.action_space,
                "a {}x{} input with {} actions cannot take {}",
                self.size,
                self.size,
                self.action_space,
                s.rules()
            );
            let (p, g) = encode(s);
            let sym = self.symmetry_of(s);
            match &self.symmetries {
                Some(maps) if sym != 0 => maps.planes(sym, &p, &mut self.planes),
                _ => self.planes.extend_from_slice(&p),
            }
            self.chosen.push(sym);
            self.globals.extend_from_slice(&g);
        }
        let n = self.chosen.len();
        let rows = self.fixed_batch.map_or(n, |f| f.max(n));
        self.planes.resize(self.planes.len() / n.max(1) * rows, 0);
        self.globals.resize(self.globals.len() / n.max(1) * rows, 0.0);
        rows
    }

    /// The planes of the last batch (rows × planes × size × size, 0/1).
    pub fn planes(&self) -> &[u8] {
        &self.planes
    }

    /// The global features of the last batch (rows × globals).
    pub fn globals(&self) -> &[f32] {
        &self.globals
    }

    /// The policy entry of row `k` of the last batch that answers `state`'s action `a`: the
    /// net answered for the moved position, so `a`'s entry sits where the symmetry moved it.
    pub fn entry(&self, k: usize, state: &GameState, a: Action) -> usize {
        let i = state.action_index(a);
        match &self.symmetries {
            Some(maps) => maps.action(self.chosen[k], i),
            None => i,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{GLOBALS, PLANES};
    use hane_engine::Rules;

    #[test]
    fn a_batch_is_padded_and_its_entries_follow_the_symmetry() {
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let mut g = GameState::new(rules);
        g.play(Action::Place(g.geo().parse("B2").unwrap())).unwrap();
        let states = [GameState::new(rules), g.clone()];
        let mut plain = BatchEncoder::new(5, 26).with_fixed_batch(4);
        assert_eq!(plain.encode(states.iter()), 4);
        assert_eq!(plain.planes().len(), 4 * PLANES * 25);
        assert_eq!(plain.globals().len(), 4 * GLOBALS);
        assert!(plain.planes()[2 * PLANES * 25..].iter().all(|&x| x == 0), "padding rows are zeros");
        let c3 = Action::Place(g.geo().parse("C3").unwrap());
        assert_eq!(plain.entry(1, &g, c3), g.action_index(c3));

        let mut sym = BatchEncoder::new(5, 26).with_random_symmetries();
        assert_eq!(sym.encode(states.iter()), 2, "no padding unless asked");
        let maps = Symmetries::new(5, 26);
        let s = sym.symmetry_of(&g);
        let b2 = Action::Place(g.geo().parse("B2").unwrap());
        assert_eq!(sym.entry(1, &g, b2), maps.action(s, g.action_index(b2)));
        let mut moved = Vec::new();
        maps.planes(s, &plain.planes()[PLANES * 25..2 * PLANES * 25], &mut moved);
        assert_eq!(&sym.planes()[PLANES * 25..], &moved[..], "row 1 is the moved position");
    }
}
