//! What a search result depends on beyond the state hash: the turn count (through the move
//! cap) and, under positional superko, the earlier positions of the game.
//!
//! Under positional superko a subtree's search asks "is this position in the history?" for
//! every placement it considers (a *probe*). Two histories that end in the same state give
//! the same search exactly when they answer every probe alike. A [`Deps`] records:
//!
//! - `found`: the probes answered "yes" by a position before the subtree (exactly);
//! - `probes`: an over-approximation of all probed positions, relative to the subtree's root
//!   board `B` ([`Probes`]): for each probe `Q`, the stones of `B` that `Q` lacks (exactly, for
//!   up to [`PROBE_SHAPES`] different sets, else as a union) and a lower bound on the stones
//!   `Q` has that `B` lacks. Positions in `B`'s own history mostly miss these: an earlier
//!   position that `B` extends has no stone `B` lacks, while a probe has at least the stone
//!   just placed unless captures removed it; and an earlier position that `B` captured from
//!   is a probe only if the subtree removes exactly the stones placed since.
//!
//! A result computed under history `H` is reused under `H'` only if every `found` position is
//! in `H'` and no other position of `H'` could be a probe; then `H' ∩ probes = H ∩ probes`.
//!
//! Boards are bit masks over the dense point order (at most 64 points), so that a result can
//! be stored in a symmetric frame and mapped back ([`Deps::mapped`]).

use hane_engine::{Board, Color};

/// Black and white stones of a board as bit masks over dense point indices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Stones {
    pub black: u64,
    pub white: u64,
}

impl Stones {
    /// The masks of a board (at most 64 points).
    pub fn of(b: &Board) -> Stones {
        let geo = b.geo();
        let (mut black, mut white) = (0, 0);
        for p in geo.points() {
            match b.color(p) {
                Some(Color::Black) => black |= 1 << geo.dense(p),
                Some(Color::White) => white |= 1 << geo.dense(p),
                None => {}
            }
        }
        Stones { black, white }
    }

    /// Both masks mapped point by point.
    pub fn map(self, f: impl Fn(u64) -> u64) -> Stones {
        Stones { black: f(self.black), white: f(self.white) }
    }

    /// Points where `self` has a stone that `other` lacks (absent or of the other colour).
    pub fn minus(self, other: Stones) -> u64 {
        (self.black & !other.black) | (self.white & !other.white)
    }

    fn all(self) -> u64 {
        self.black | self.white
    }
}

/// Turns after which no cap applies (an open interval end).
pub(super) const FOREVER: u32 = u32::MAX;

/// The dependencies of one search result (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Deps {
    /// The result holds for every turn count in `lo..=hi`.
    pub lo: u32,
    /// See `lo`.
    pub hi: u32,
    /// Some line of the subtree ended at the move cap.
    pub capped: bool,
    /// Earlier positions that banned a move in the subtree.
    pub found: Vec<Stones>,
    /// The positions the subtree probed, relative to its root board.
    pub probes: Probes,
}

/// How many different "stones of `B` removed" sets [`Probes`] keeps exactly.
pub(super) const PROBE_SHAPES: usize = 6;

/// Bytes of a [`Probes`] in a saved table.
pub(super) const PROBES_BYTES: usize = 17 * PROBE_SHAPES + 2;

/// An over-approximation of a set of positions `Q`, relative to a board `B`. While exact,
/// every `Q` lacks all the stones `removed[i]` of `B`, perhaps some of `maybe[i]`, and no
/// other, and has at least `added[i]` stones `B` lacks, for some `i < len`; once collapsed,
/// `B.minus(Q)` lies within `removed[0]` and `Q` has at least `added[0]` stones `B` lacks.
/// Empty (`len == 0`) means no probes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Probes {
    removed: [u64; PROBE_SHAPES],
    maybe: [u64; PROBE_SHAPES],
    added: [u8; PROBE_SHAPES],
    len: u8,
    collapsed: bool,
}

/// One shape of [`Probes`]: the stones of `B` that the positions lack for sure, those they may
/// lack, and how many stones `B` lacks they have at least.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    pub removed: u64,
    pub maybe: u64,
    pub added: u8,
}

impl Probes {
    /// Adds positions of the shape `s` (or, when `within`, lacking only stones within
    /// `s.removed | s.maybe`).
    fn insert(&mut self, s: Shape, within: bool) {
        let n = usize::from(self.len);
        if !self.collapsed && !within {
            if let Some(i) = (0..n).find(|&i| self.removed[i] == s.removed && self.maybe[i] == s.maybe) {
                self.added[i] = self.added[i].min(s.added);
                return;
            }
            if n < PROBE_SHAPES {
                (self.removed[n], self.maybe[n], self.added[n]) = (s.removed, s.maybe, s.added);
                self.len += 1;
                return;
            }
        }
        // Collapse to a union.
        let union = (0..n).fold(s.removed | s.maybe, |u, i| u | self.removed[i] | self.maybe[i]);
        let least = self.added[..n].iter().fold(s.added, |m, &a| m.min(a));
        *self = Probes { len: 1, collapsed: true, ..Probes::default() };
        self.removed[0] = union;
        self.added[0] = least;
    }

    /// The shapes.
    fn entries(&self) -> impl Iterator<Item = Shape> + '_ {
        (0..usize::from(self.len)).map(|i| Shape {
            removed: self.removed[i],
            maybe: self.maybe[i],
            added: self.added[i],
        })
    }

    /// Whether `p` could be among the positions, relative to `b`.
    fn may_hold(&self, b: Stones, p: Stones) -> bool {
        let (removed, added) = (b.minus(p), p.minus(b).count_ones() as u8);
        self.entries().any(|s| {
            let shape =
                if self.collapsed { removed & !s.removed == 0 } else { removed & !s.maybe == s.removed };
            shape && added >= s.added
        })
    }

    /// Appends the set as [`PROBES_BYTES`] bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        for r in self.removed.iter().chain(&self.maybe) {
            out.extend_from_slice(&r.to_le_bytes());
        }
        out.extend_from_slice(&self.added);
        out.extend_from_slice(&[self.len, u8::from(self.collapsed)]);
    }

    /// The set [`Probes::encode`] wrote, or `None` if the bytes cannot be one.
    pub fn decode(b: &[u8; PROBES_BYTES]) -> Option<Probes> {
        let mask = |i: usize| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        let removed = std::array::from_fn(mask);
        let maybe = std::array::from_fn(|i| mask(PROBE_SHAPES + i));
        let rest = &b[16 * PROBE_SHAPES..];
        let added = rest[..PROBE_SHAPES].try_into().expect("PROBE_SHAPES bytes");
        let (len, collapsed) = (rest[PROBE_SHAPES], rest[PROBE_SHAPES + 1]);
        let valid = usize::from(len) <= PROBE_SHAPES
            && collapsed <= 1
            && (collapsed == 0 || len == 1)
            && (0..PROBE_SHAPES).all(|i| removed[i] & maybe[i] == 0);
        valid.then_some(Probes { removed, maybe, added, len, collapsed: collapsed == 1 })
    }

    /// The same set with every point mapped by `f`.
    pub fn mapped(&self, f: impl Fn(u64) -> u64) -> Probes {
        Probes { removed: self.removed.map(&f), maybe: self.maybe.map(&f), ..*self }
    }
}

/// How a child was reached, for [`Deps::add_child`].
pub(super) enum Step {
    /// A Sligo slide or no-slide: the same turn, the same stones.
    Within,
    /// A completed turn that adds no position to a superko history: a pass, or any turn
    /// where no ko rule looks back.
    Turn,
    /// A placement at the dense point `at`, from `parent` to `child` stones.
    Place { at: usize, parent: Stones, child: Stones },
}

impl Deps {
    /// A finished game at `turns`: over for good after two passes, or from the cap on.
    pub fn leaf(passes: u8, turns: u32) -> Deps {
        if passes >= 2 {
            Deps::none()
        } else {
            Deps { lo: turns, capped: true, ..Deps::none() }
        }
    }

    /// The same dependencies with every point mapped by `f` (a symmetry of the board).
    pub fn mapped(&self, f: impl Fn(u64) -> u64 + Copy) -> Deps {
        Deps {
            found: self.found.iter().map(|s| s.map(f)).collect(),
            probes: self.probes.mapped(f),
            ..self.clone()
        }
    }

    /// A result that holds at any turn count after any history.
    pub fn none() -> Deps {
        Deps { lo: 0, hi: FOREVER, capped: false, found: Vec::new(), probes: Probes::default() }
    }

    /// An unfinished position, before its children are added: it is unfinished below the cap.
    pub fn inner(max_turns: u32) -> Deps {
        Deps { lo: 0, hi: max_turns - 1, ..Deps::none() }
    }

    /// Adds a child's dependencies.
    pub fn add_child(&mut self, child: &Deps, step: &Step) {
        let turns = u32::from(!matches!(step, Step::Within));
        self.lo = self.lo.max(child.lo.saturating_sub(turns));
        if child.hi != FOREVER {
            self.hi = self.hi.min(child.hi.saturating_sub(turns));
        }
        self.capped |= child.capped;
        match *step {
            Step::Within | Step::Turn => {
                for &h in &child.found {
                    self.add_found(h);
                }
                for shape in child.probes.entries() {
                    self.probes.insert(shape, child.probes.collapsed);
                }
            }
            Step::Place { at, parent, child: stones } => {
                // The child's own position is new here: a ban by it is internal to the subtree.
                for &h in child.found.iter().filter(|&&h| h != stones) {
                    self.add_found(h);
                }
                // Relative to the parent, a probe Q lacks the stones it lacked of the child
                // (but the placed one), and perhaps the captured ones: it may have put them
                // back. It has at least a - |captured| stones the parent lacks, plus the placed
                // one if it kept it.
                let captured = parent.minus(stones);
                for s in child.probes.entries() {
                    let kept = u8::from((s.removed | s.maybe) & (1 << at) == 0);
                    let added = s.added.saturating_sub(captured.count_ones() as u8) + kept;
                    let shape = Shape {
                        removed: s.removed & parent.all(),
                        maybe: (s.maybe & parent.all()) | captured,
                        added,
                    };
                    self.probes.insert(shape, child.probes.collapsed);
                }
            }
        }
    }

    /// Records a probe of this position's placements: the resulting stones `q`.
    pub fn add_probe(&mut self, root: Stones, q: Stones) {
        let shape = Shape { removed: root.minus(q), maybe: 0, added: q.minus(root).count_ones() as u8 };
        self.probes.insert(shape, false);
    }

    /// Records an earlier position that banned a move.
    pub fn add_found(&mut self, h: Stones) {
        if !self.found.contains(&h) {
            self.found.push(h);
        }
    }
}

/// Whether a result with dependencies given by these [`Deps`] fields, computed at the last
/// position of its history, holds at `turns` with the history `path` (ending in the same
/// position): in the turn interval, every `found` position in `path`, and no other position of
/// `path` but the last a possible probe.
pub(super) fn holds(
    lo: u32,
    hi: u32,
    found: &[Stones],
    probes: &Probes,
    turns: u32,
    path: &[Stones],
) -> bool {
    if turns < lo || turns > hi {
        return false;
    }
    if found.is_empty() && probes.len == 0 {
        return true;
    }
    let root = *path.last().expect("the history holds the root");
    found.iter().all(|h| path.contains(h))
        && path.iter().all(|&p| p == root || found.contains(&p) || !probes.may_hold(root, p))
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Deps {
        fn holds(&self, turns: u32, path: &[Stones]) -> bool {
            holds(self.lo, self.hi, &self.found, &self.probes, turns, path)
        }
    }

    fn st(black: u64, white: u64) -> Stones {
        Stones { black, white }
    }

    #[test]
    fn turn_intervals_shift_through_children() {
        let mut d = Deps::inner(10);
        d.add_child(&Deps::leaf(2, 7), &Step::Turn);
        assert_eq!((d.lo, d.hi, d.capped), (0, 9, false));
        let mut d = Deps::inner(10);
        d.add_child(&Deps::leaf(0, 10), &Step::Turn);
        assert_eq!((d.lo, d.hi, d.capped), (9, 9, true));
        let mut e = Deps::inner(10);
        e.add_child(&d, &Step::Within);
        assert_eq!((e.lo, e.hi), (9, 9));
        assert!(e.holds(9, &[]) && !e.holds(8, &[]));
    }

    #[test]
    fn earlier_positions_block_reuse_only_when_they_could_be_probed() {
        // Root B = black at 0 and 1. Its subtree probed Q = {black 0, white 2} (stone 1 taken).
        let b = st(0b11, 0);
        let mut d = Deps::inner(100);
        d.add_probe(b, st(0b01, 0b100));
        // An ancestor that B extends (black 0 only) has nothing B lacks: never a probe here.
        assert!(d.holds(3, &[st(0, 0), st(0b01, 0), b]));
        // A position holding a stone B lacks, and lacking only stone 1 of B: maybe a probe.
        assert!(!d.holds(3, &[st(0b01, 0b1000), b]));
        // Lacking stone 0, which no probe removed: not a probe.
        assert!(d.holds(3, &[st(0b10, 0b1000), b]));
        // A found position must be in the history.
        d.add_found(st(0b01, 0b1000));
        assert!(d.holds(3, &[st(0b01, 0b1000), b]));
        assert!(!d.holds(3, &[b]));
    }

    #[test]
    fn a_placed_stone_shifts_the_summary() {
        // Parent P = white at 3; black plays 0, capturing nothing: child C = {b0, w3}.
        let p = st(0, 0b1000);
        let c = st(0b1, 0b1000);
        let mut child = Deps::inner(100);
        // C's subtree probed Q = {b0, w3, w5}: 1 added w.r.t. C, nothing removed.
        child.add_probe(c, st(0b1, 0b10_1000));
        child.add_found(c);
        let mut d = Deps::inner(100);
        d.add_child(&child, &Step::Place { at: 0, parent: p, child: c });
        // Relative to P, Q adds b0 and w5.
        assert_eq!(d.probes.entries().collect::<Vec<_>>(), [Shape { removed: 0, maybe: 0, added: 2 }]);
        assert!(d.found.is_empty());
    }

    #[test]
    fn a_probe_may_put_a_captured_stone_back() {
        // Parent P = white at 0 and 2; black plays 1, capturing white 0: child C = {b1, w2}.
        let p = st(0, 0b101);
        let c = st(0b10, 0b100);
        // Below C, the probe Q = {b7, w0, w2}: it lacks b1 of C and has w0 again. Relative to
        // P it lacks nothing, so a history with Q before P must refuse the result.
        let q = st(1 << 7, 0b101);
        let mut child = Deps::inner(100);
        child.add_probe(c, q);
        let mut d = Deps::inner(100);
        d.add_child(&child, &Step::Place { at: 1, parent: p, child: c });
        assert!(!d.holds(3, &[q, p]));
        // Lacking w2 of P, a position is no probe here.
        assert!(d.holds(3, &[st(1 << 7, 0b1), p]));
    }

    #[test]
    fn many_shapes_collapse_to_a_union() {
        let b = st(0xFF, 0);
        let mut p = Probes::default();
        let shape = |removed, added| Shape { removed, maybe: 0, added };
        for i in 0..PROBE_SHAPES {
            p.insert(shape(1 << i, 1), false);
        }
        assert!(!p.collapsed && p.may_hold(b, st(0xFE, 0x100)) && !p.may_hold(b, st(0xFC, 0x100)));
        p.insert(shape(1 << 7, 2), false);
        assert!(p.collapsed && p.len == 1);
        assert!(p.may_hold(b, st(0xFC, 0x100)) && !p.may_hold(b, st(0xFC, 0)));
    }
}
