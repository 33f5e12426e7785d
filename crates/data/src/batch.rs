//! Positions turned into a net's input batch, the one way every evaluator that feeds a net
//! does it: each position's planes ([`features::encode`]) in one of the eight board
//! symmetries when random symmetries are on (picked by a hash of the position, so the choice
//! does not depend on how requests are batched), its global features, padding to a fixed row
//! count when asked, and the map from a legal action to the policy entry that answers it.
//!
//! A batch may hold boards smaller than the encoder's (a net for several board sizes): such a
//! board is encoded, and moved by its symmetry, at its own size, then laid into the top-left
//! corner of the encoder's planes with zeros around it, its policy entries embedded the same
//! way ([`PolicyLayout::embed`]). Its on-board plane ([`crate::features::ON_BOARD_PLANE`]) then marks where
//! the board is, and [`BatchEncoder::padded`] tells the net to mask by it.
//!
//! The net's evaluator (`hane_nn`) runs its forward pass on these buffers; the self-play
//! benchmark's encode-only evaluator stops here, to measure the CPU side of self-play alone.

use crate::features::encode;
use crate::symmetries::Symmetries;
use hane_engine::rng::mix64;
use hane_engine::{Action, Game, GameState, PolicyLayout};

/// Reusable input buffers of one evaluator (see the module docs).
#[derive(Debug)]
pub struct BatchEncoder {
    size: usize,
    action_space: usize,
    planes: Vec<u8>,
    globals: Vec<f32>,
    /// Whether positions get a random symmetry.
    random_symmetries: bool,
    /// The symmetry maps of each board size met so far, by size.
    maps: Vec<Option<Symmetries>>,
    /// The symmetry and board size of each position of the current batch.
    chosen: Vec<(usize, usize)>,
    /// The rows of every batch, when fixed.
    fixed_batch: Option<usize>,
    /// Scratch planes of one position.
    scratch: Vec<u8>,
}

impl BatchEncoder {
    /// Buffers for positions on boards of at most `size` points a side with a policy of
    /// `action_space` entries on that size, each shown as it is.
    pub fn new(size: usize, action_space: usize) -> BatchEncoder {
        BatchEncoder {
            size,
            action_space,
            planes: Vec::new(),
            globals: Vec::new(),
            random_symmetries: false,
            maps: Vec::new(),
            chosen: Vec::new(),
            fixed_batch: None,
            scratch: Vec::new(),
        }
    }

    /// The same, showing each position in a symmetry of its own.
    pub fn with_random_symmetries(mut self) -> BatchEncoder {
        self.random_symmetries = true;
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
        if !self.random_symmetries {
            return 0;
        }
        let key = g.board().hash() ^ (u64::from(g.turns()) << 1) ^ g.to_move().index() as u64;
        (mix64(key) % 8) as usize
    }

    /// Encodes `states` (at least one) into the buffers, padded to the fixed row count if any;
    /// returns the number of rows.
    ///
    /// # Panics
    /// If a position's board is larger than this encoder's or its game has another action
    /// space (Sligo's slides or not): the caller must not mix games.
    pub fn encode<'a>(&mut self, states: impl Iterator<Item = &'a GameState>) -> usize {
        self.planes.clear();
        self.globals.clear();
        self.chosen.clear();
        for s in states {
            let side = s.geo().size();
            let layout = PolicyLayout::of(s.rules());
            assert!(
                side <= self.size && layout.resized(self.size as u8).len() == self.action_space,
                "a {}x{} input with {} actions cannot take {}",
                self.size,
                self.size,
                self.action_space,
                s.rules()
            );
            let (p, g) = encode(s);
            let sym = self.symmetry_of(s);
            // A full-size board goes straight into the batch; a smaller one through `scratch`.
            let whole = side == self.size;
            let out = if whole { &mut self.planes } else { &mut self.scratch };
            if !whole {
                out.clear();
            }
            if sym != 0 {
                maps_of(&mut self.maps, side, layout.len()).planes(sym, &p, out);
            } else {
                out.extend_from_slice(&p);
            }
            if !whole {
                corner(&self.scratch, side, self.size, &mut self.planes);
            }
            self.chosen.push((sym, side));
            self.globals.extend_from_slice(&g);
        }
        let n = self.chosen.len();
        let rows = self.fixed_batch.map_or(n, |f| f.max(n));
        self.planes.resize(self.planes.len() / n.max(1) * rows, 0);
        self.globals.resize(self.globals.len() / n.max(1) * rows, 0.0);
        rows
    }

    /// Whether a position of the last batch is smaller than the encoder's board, so the net
    /// must mask its planes by the on-board plane.
    pub fn padded(&self) -> bool {
        self.chosen.iter().any(|&(_, side)| side < self.size)
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
    /// net answered for the moved position, so `a`'s entry sits where the symmetry moved it,
    /// and for a smaller board where its corner of the encoder's board puts it.
    pub fn entry(&self, k: usize, state: &GameState, a: Action) -> usize {
        let (sym, side) = self.chosen[k];
        let mut i = state.action_index(a);
        if sym != 0 {
            let maps = self.maps[side].as_ref().expect("the maps of a size this batch encoded");
            i = maps.action(sym, i);
        }
        if side < self.size {
            let layout = PolicyLayout::of(state.rules());
            i = layout.embed(layout.resized(self.size as u8), i);
        }
        i
    }
}

/// Appends planes of a `side` board (C × side × side) to `out` as planes of an `outer` board,
/// the board in their top-left corner and zeros around it.
pub fn corner<T: Copy + Default>(planes: &[T], side: usize, outer: usize, out: &mut Vec<T>) {
    for plane in planes.chunks_exact(side * side) {
        let start = out.len();
        out.resize(start + outer * outer, T::default());
        for (y, row) in plane.chunks_exact(side).enumerate() {
            out[start + y * outer..start + y * outer + side].copy_from_slice(row);
        }
    }
}

/// The symmetry maps of `side` boards in `maps`, built the first time that size is met.
fn maps_of(maps: &mut Vec<Option<Symmetries>>, side: usize, action_space: usize) -> &Symmetries {
    if maps.len() <= side {
        maps.resize(side + 1, None);
    }
    maps[side].get_or_insert_with(|| Symmetries::new(side, action_space))
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

    #[test]
    fn a_smaller_board_lies_in_the_top_left_corner_with_its_entries() {
        let five: Rules = "ttakji,size=5".parse().unwrap();
        let seven: Rules = "ttakji,size=7".parse().unwrap();
        let mut small = GameState::new(five);
        small.play(Action::Place(small.geo().parse("B2").unwrap())).unwrap();
        let big = GameState::new(seven);
        let mut enc = BatchEncoder::new(7, 50).with_random_symmetries();
        assert_eq!(enc.encode([&big, &small].into_iter()), 2);
        assert!(enc.padded(), "a 5x5 board in a 7x7 batch is padded");
        let (p5, g5) = crate::features::encode(&small);
        let row = &enc.planes()[PLANES * 49..];
        let sym = enc.symmetry_of(&small);
        let mut moved = Vec::new();
        Symmetries::new(5, 26).planes(sym, &p5, &mut moved);
        for c in 0..PLANES {
            for y in 0..7 {
                for x in 0..7 {
                    let want = if x < 5 && y < 5 { moved[c * 25 + y * 5 + x] } else { 0 };
                    assert_eq!(row[c * 49 + y * 7 + x], want, "plane {c} at ({x}, {y})");
                }
            }
        }
        assert_eq!(&enc.globals()[GLOBALS..], &g5[..]);
        // Each action's entry is where its moved point lies on the 7x7 board.
        let maps = Symmetries::new(5, 26);
        let (g5, g7) = (small.geo(), big.geo());
        for p in g5.points() {
            let moved = g5.from_dense(maps.action(sym, g5.dense(p)));
            let (x, y) = g5.xy(moved);
            assert_eq!(enc.entry(1, &small, Action::Place(p)), g7.dense(g7.point(x, y)));
        }
        assert_eq!(enc.entry(1, &small, Action::Pass), 49);
        assert!(!{
            enc.encode([&big].into_iter());
            enc.padded()
        });
    }
}
