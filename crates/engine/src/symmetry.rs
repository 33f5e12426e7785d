//! The eight symmetries of the square board (the dihedral group of order 8): the identity,
//! three rotations and four reflections. They map points, Sligo slide directions, actions
//! and whole boards, e.g. to augment training positions or to canonicalise openings.
//!
//! A [`Symmetry`] is stored as three bits applied to column `x` and row `y` (row 0 is the top
//! row, "north"), in this order: bit 2 transposes (`(x, y) -> (y, x)`), then bit 0 mirrors
//! the columns (`x -> n-1-x`), then bit 1 mirrors the rows (`y -> n-1-y`):
//!
//! | index | map of `(x, y)`          | name                          |
//! |-------|--------------------------|-------------------------------|
//! | 0     | `(x, y)`                 | identity                      |
//! | 1     | `(n-1-x, y)`             | mirror left-right             |
//! | 2     | `(x, n-1-y)`             | mirror top-bottom             |
//! | 3     | `(n-1-x, n-1-y)`         | rotation by 180°              |
//! | 4     | `(y, x)`                 | transpose (main diagonal)     |
//! | 5     | `(n-1-y, x)`             | rotation by 90° clockwise     |
//! | 6     | `(y, n-1-x)`             | rotation by 90° anticlockwise |
//! | 7     | `(n-1-y, n-1-x)`         | anti-diagonal reflection      |
//!
//! (Clockwise as seen on a diagram with row 0 at the top.) Every map here is a bijection of
//! the board onto itself; points off the board and actions without a point are left alone.

use crate::action::Action;
use crate::board::Board;
use crate::point::{Dir, Geometry, Point};

const FLIP_X: u8 = 1;
const FLIP_Y: u8 = 2;
const TRANSPOSE: u8 = 4;

/// One of the eight symmetries of the square board (see the module docs for the numbering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Symmetry(u8);

impl Symmetry {
    /// The identity.
    pub const IDENTITY: Symmetry = Symmetry(0);

    /// All eight symmetries, identity first, in index order.
    pub const ALL: [Symmetry; 8] = [
        Symmetry(0),
        Symmetry(1),
        Symmetry(2),
        Symmetry(3),
        Symmetry(4),
        Symmetry(5),
        Symmetry(6),
        Symmetry(7),
    ];

    /// The symmetry with index `i` (`0..8`), if any.
    pub fn from_index(i: usize) -> Option<Symmetry> {
        Symmetry::ALL.get(i).copied()
    }

    /// The index `0..8` of this symmetry.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    fn transposes(self) -> bool {
        self.0 & TRANSPOSE != 0
    }

    fn flips_x(self) -> bool {
        self.0 & FLIP_X != 0
    }

    fn flips_y(self) -> bool {
        self.0 & FLIP_Y != 0
    }

    /// The symmetry that undoes this one: `s.inverse().apply_xy(n, s.apply_xy(n, x, y))` is
    /// `(x, y)`.
    pub fn inverse(self) -> Symmetry {
        // (F P)^-1 = P F = (P F P^-1) P: the transpose stays, the flips swap axes under it.
        if self.transposes() {
            let fx = self.0 & FLIP_X;
            let fy = (self.0 & FLIP_Y) >> 1;
            Symmetry(TRANSPOSE | (fx << 1) | fy)
        } else {
            self
        }
    }

    /// `self` after `first`: the symmetry that maps like `first`, then `self`.
    pub fn compose(self, first: Symmetry) -> Symmetry {
        // With F a diagonal sign matrix and P a permutation, F_a P_a F_b P_b =
        // F_a (P_a F_b P_a^-1) P_a P_b; conjugating by a transpose swaps the flip axes.
        let (bx, by) = if self.transposes() {
            (first.flips_y(), first.flips_x())
        } else {
            (first.flips_x(), first.flips_y())
        };
        let fx = self.flips_x() ^ bx;
        let fy = self.flips_y() ^ by;
        let t = self.transposes() ^ first.transposes();
        Symmetry(u8::from(fx) | (u8::from(fy) << 1) | (u8::from(t) << 2))
    }

    /// Maps column `x` and row `y` (0 = top) of an `n x n` board (`x, y < n`).
    pub fn apply_xy(self, n: usize, x: usize, y: usize) -> (usize, usize) {
        let (mut x, mut y) = if self.transposes() { (y, x) } else { (x, y) };
        if self.flips_x() {
            x = n - 1 - x;
        }
        if self.flips_y() {
            y = n - 1 - y;
        }
        (x, y)
    }

    /// Maps a point of the board `geo`; a point off that board is returned unchanged.
    pub fn apply_point(self, geo: Geometry, p: Point) -> Point {
        if !geo.on_board(p) {
            return p;
        }
        let (x, y) = geo.xy(p);
        let (x, y) = self.apply_xy(geo.size(), x, y);
        geo.point(x, y)
    }

    /// Maps a slide direction, so that stepping from a mapped point in the mapped direction
    /// reaches the mapped target. Directions are taken modulo 8, as [`Dir::delta`] does.
    pub fn apply_dir(self, d: Dir) -> Dir {
        let (dx, dy) = d.delta();
        let (mut dx, mut dy) = if self.transposes() { (dy, dx) } else { (dx, dy) };
        if self.flips_x() {
            dx = -dx;
        }
        if self.flips_y() {
            dy = -dy;
        }
        Dir::from_delta(dx, dy).expect("a symmetry maps king steps to king steps")
    }

    /// Maps an action: placements and slides move with the board, `Pass` and `NoSlide` stay.
    pub fn apply_action(self, geo: Geometry, a: Action) -> Action {
        match a {
            Action::Place(p) => Action::Place(self.apply_point(geo, p)),
            Action::Slide(p, d) => Action::Slide(self.apply_point(geo, p), self.apply_dir(d)),
            Action::Pass | Action::NoSlide => a,
        }
    }

    /// The board with every stone moved to its image (chains, liberties and hash rebuilt).
    pub fn apply_board(self, b: &Board) -> Board {
        let geo = b.geo();
        let mut out = Board::new(geo.size() as u8);
        for p in geo.points() {
            if let Some(c) = b.color(p) {
                out.put(self.apply_point(geo, p), c);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;
    use crate::rng::Rng;

    #[test]
    fn group_laws() {
        let n = 5;
        let id = Symmetry::IDENTITY;
        for a in Symmetry::ALL {
            assert_eq!(a.compose(a.inverse()), id, "{a:?}");
            assert_eq!(a.inverse().compose(a), id, "{a:?}");
            assert_eq!(a.compose(id), a);
            assert_eq!(id.compose(a), a);
            for b in Symmetry::ALL {
                let c = a.compose(b);
                assert!(Symmetry::ALL.contains(&c));
                for y in 0..n {
                    for x in 0..n {
                        let (bx, by) = b.apply_xy(n, x, y);
                        assert_eq!(c.apply_xy(n, x, y), a.apply_xy(n, bx, by));
                    }
                }
                for c2 in Symmetry::ALL {
                    assert_eq!(a.compose(b).compose(c2), a.compose(b.compose(c2)));
                }
            }
        }
        // The eight maps are distinct, and index 5 is a quarter turn of order 4.
        let images: std::collections::HashSet<_> =
            Symmetry::ALL.iter().map(|s| (s.apply_xy(n, 1, 0), s.apply_xy(n, 0, 2))).collect();
        assert_eq!(images.len(), 8);
        let r = Symmetry(5);
        assert_eq!(r.apply_xy(n, 0, 0), (4, 0), "top-left goes to top-right");
        assert_ne!(r.compose(r), id);
        assert_eq!(r.compose(r), Symmetry(3));
        assert_eq!(r.compose(r).compose(r).compose(r), id);
    }

    #[test]
    fn action_index_permutation_is_a_bijection() {
        for n in [1usize, 2, 3, 4, 9, 19] {
            let geo = Geometry::new(n as u8);
            let space = Action::space(n);
            for s in Symmetry::ALL {
                let mut hit = vec![false; space];
                for i in 0..space {
                    let a = Action::from_index(geo, i).unwrap();
                    let j = s.apply_action(geo, a).index(geo);
                    assert!(!hit[j], "{s:?} maps two actions to {j} on {n}x{n}");
                    hit[j] = true;
                    assert_eq!(s.inverse().apply_action(geo, s.apply_action(geo, a)), a);
                }
            }
        }
    }

    #[test]
    fn slides_transform_with_their_points() {
        let geo = Geometry::new(6);
        for s in Symmetry::ALL {
            for f in geo.points() {
                for d in Dir::ALL {
                    let Some(t) = geo.step(f, d) else { continue };
                    let Action::Slide(f2, d2) = s.apply_action(geo, Action::Slide(f, d)) else {
                        unreachable!()
                    };
                    assert_eq!(f2, s.apply_point(geo, f));
                    assert_eq!(geo.step(f2, d2), Some(s.apply_point(geo, t)), "{s:?} {d:?}");
                }
            }
        }
        // North is the top row: a quarter turn clockwise maps north to east.
        assert_eq!(Symmetry(5).apply_dir(Dir(0)), Dir(2));
        assert_eq!(Symmetry(1).apply_dir(Dir(1)), Dir(7));
    }

    #[test]
    fn boards_round_trip() {
        let mut rng = Rng::new(7);
        for n in [2u8, 5, 9, 19] {
            let mut b = Board::new(n);
            let geo = b.geo();
            for p in geo.points() {
                match rng.below(3) {
                    0 => b.put(p, Color::Black),
                    1 => b.put(p, Color::White),
                    _ => {}
                }
            }
            for s in Symmetry::ALL {
                let t = s.apply_board(&b);
                t.check_consistency().unwrap();
                assert_eq!(t.stone_count(Color::Black), b.stone_count(Color::Black));
                for p in geo.points() {
                    assert_eq!(t.at(s.apply_point(geo, p)), b.at(p));
                    if b.color(p).is_some() {
                        assert_eq!(t.libs(s.apply_point(geo, p)), b.libs(p));
                    }
                }
                let back = s.inverse().apply_board(&t);
                assert_eq!(back.rows(), b.rows());
                assert_eq!(back.hash(), b.hash());
            }
        }
    }
}
