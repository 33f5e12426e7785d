//! Actions: what a player (or a search) chooses at one decision point.
//!
//! Go and Loose turns are one action: [`Action::Place`] or [`Action::Pass`]. A Sligo turn is two
//! actions of the same player: first [`Action::Pass`], [`Action::NoSlide`] or
//! [`Action::Slide`], then (unless it passed) an [`Action::Place`]. This keeps a policy over the
//! action space bounded: `N*N` placements, pass, no-slide and `8*N*N` slides.

use crate::point::{Dir, Geometry, Point};
use crate::rules::{Rules, Variant};

/// One decision (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Action {
    /// Put a stone on an empty point.
    Place(Point),
    /// End the turn without a stone.
    Pass,
    /// Sligo: place without sliding first.
    NoSlide,
    /// Sligo: slide the own stone at the point one step in the direction, then place.
    Slide(Point, Dir),
}

impl Action {
    /// Size of the action space on an `n x n` board: placements, pass, no-slide, slides.
    pub fn space(n: usize) -> usize {
        n * n + 2 + 8 * n * n
    }

    /// Dense index in `0..Action::space(n)`: placements first, then pass, no-slide, and the
    /// slides ordered by stone then direction.
    pub fn index(self, geo: Geometry) -> usize {
        let a = geo.area();
        match self {
            Action::Place(p) => geo.dense(p),
            Action::Pass => a,
            Action::NoSlide => a + 1,
            Action::Slide(p, d) => a + 2 + 8 * geo.dense(p) + d.0 as usize,
        }
    }

    /// Inverse of [`Action::index`].
    pub fn from_index(geo: Geometry, i: usize) -> Option<Action> {
        let a = geo.area();
        Some(match i {
            _ if i < a => Action::Place(geo.from_dense(i)),
            _ if i == a => Action::Pass,
            _ if i == a + 1 => Action::NoSlide,
            _ if i < Action::space(geo.size()) => {
                let j = i - a - 2;
                Action::Slide(geo.from_dense(j / 8), Dir((j % 8) as u8))
            }
            _ => return None,
        })
    }

    /// Human-readable form: `D4`, `pass`, `noslide`, `E5>F6`.
    pub fn name(self, geo: Geometry) -> String {
        match self {
            Action::Place(p) => geo.name(p),
            Action::Pass => "pass".into(),
            Action::NoSlide => "noslide".into(),
            Action::Slide(p, d) => match geo.step(p, d) {
                Some(t) => format!("{}>{}", geo.name(p), geo.name(t)),
                None => format!("{}>off-board", geo.name(p)),
            },
        }
    }
}

/// The order of a policy's entries for one rule set and board size: what the net's policy
/// output, the shards' policy targets and the trainer's symmetry maps must all agree on.
///
/// Entry [`Action::index`] holds the action: the `N*N` placements in dense point order, then
/// pass; for Sligo also no-slide and the `8*N*N` slides, ordered by stone then direction. Go
/// and Loose use the first `N*N + 1` entries only. Shards and checkpoints store
/// [`PolicyLayout::VERSION`], and readers refuse another: change the version whenever this
/// order changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyLayout {
    geo: Geometry,
    slides: bool,
}

impl PolicyLayout {
    /// The version of this order.
    pub const VERSION: u32 = 1;

    /// The layout of `rules`'s game on its board.
    pub fn of(rules: &Rules) -> PolicyLayout {
        PolicyLayout { geo: Geometry::new(rules.size), slides: rules.variant == Variant::Sligo }
    }

    /// Number of entries.
    pub fn len(self) -> usize {
        if self.slides {
            Action::space(self.geo.size())
        } else {
            self.geo.area() + 1
        }
    }

    /// Whether the layout has no entries (never: every board has a pass).
    pub fn is_empty(self) -> bool {
        false
    }

    /// The same game's layout on a `size` board.
    pub fn resized(self, size: u8) -> PolicyLayout {
        PolicyLayout { geo: Geometry::new(size), slides: self.slides }
    }

    /// Where entry `i` of this layout lies in `outer`, the layout of the same game on a board
    /// at least as large, with this board in its top-left corner (how a net for several board
    /// sizes sees a smaller board): each point keeps its column and row.
    ///
    /// # Panics
    /// If `i` is not an entry of this layout, or `outer` is smaller or of another game.
    pub fn embed(self, outer: PolicyLayout, i: usize) -> usize {
        assert!(
            outer.slides == self.slides && outer.geo.size() >= self.geo.size(),
            "a {}x{} layout does not fit into a {}x{} one of the same game",
            self.geo.size(),
            self.geo.size(),
            outer.geo.size(),
            outer.geo.size()
        );
        let moved = |p: Point| {
            let (x, y) = self.geo.xy(p);
            outer.geo.point(x, y)
        };
        let a = match Action::from_index(self.geo, i).filter(|_| i < self.len()) {
            Some(Action::Place(p)) => Action::Place(moved(p)),
            Some(Action::Slide(p, d)) => Action::Slide(moved(p), d),
            Some(other) => other,
            None => panic!("entry {i} is outside a layout of {} entries", self.len()),
        };
        a.index(outer.geo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_round_trips() {
        let g = Geometry::new(5);
        for i in 0..Action::space(5) {
            let a = Action::from_index(g, i).unwrap();
            assert_eq!(a.index(g), i);
        }
        assert_eq!(Action::from_index(g, Action::space(5)), None);
    }

    #[test]
    fn a_layout_numbers_every_action_of_its_game_once() {
        for (rules, len) in
            [("ttakji,size=5", 26), ("loose,size=3", 10), ("sligo,size=4", 4 * 4 + 2 + 8 * 16)]
        {
            let rules: Rules = rules.parse().unwrap();
            let (l, geo) = (PolicyLayout::of(&rules), Geometry::new(rules.size));
            assert_eq!(l.len(), len, "{rules}");
            for i in 0..l.len() {
                assert_eq!(Action::from_index(geo, i).unwrap().index(geo), i, "{rules}");
            }
        }
        let geo = Geometry::new(5);
        assert_eq!(Action::Pass.index(geo), 25, "pass follows the placements");
        assert_eq!(Action::NoSlide.index(geo), 26, "Sligo's entries follow pass");
    }

    #[test]
    fn a_smaller_layout_embeds_point_for_point_into_a_larger_one() {
        for rules in ["ttakji,size=5", "sligo,size=3"] {
            let rules: Rules = rules.parse().unwrap();
            let (inner, outer) = (PolicyLayout::of(&rules), PolicyLayout::of(&rules).resized(7));
            let (small, big) = (Geometry::new(rules.size), Geometry::new(7));
            let mut seen = std::collections::BTreeSet::new();
            for i in 0..inner.len() {
                let j = inner.embed(outer, i);
                assert!(j < outer.len() && seen.insert(j), "{rules}: entry {i} maps to a fresh entry");
                let (a, b) = (Action::from_index(small, i).unwrap(), Action::from_index(big, j).unwrap());
                let xy = |geo: Geometry, a: Action| match a {
                    Action::Place(p) | Action::Slide(p, _) => Some(geo.xy(p)),
                    _ => None,
                };
                assert_eq!(xy(small, a), xy(big, b), "{rules}: {a:?} keeps its column and row");
            }
            assert_eq!(inner.embed(outer, small.area()), big.area(), "pass is pass");
            assert_eq!(inner.embed(inner, 3), 3, "a layout embeds into itself unchanged");
        }
    }
}
