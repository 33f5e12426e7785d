//! Symmetry reduction: positions that are images of each other under the eight symmetries of
//! the board share table entries. A position is stored in its canonical frame, the image
//! whose (black, white) masks are smallest; everything stored (bounds need nothing, the best
//! action and the dependencies do) is mapped into that frame and back.

use super::deps::Stones;
use hane_engine::rng::mix64;
use hane_engine::symmetry::Symmetry;
use hane_engine::{Action, Color, Game, GameState, Geometry, Phase};

/// The eight point permutations of one board size, over dense indices.
pub(super) struct Frames {
    geo: Geometry,
    perm: [[u8; 64]; 8],
}

impl Frames {
    /// The permutations of `geo` (at most 64 points).
    pub fn new(geo: Geometry) -> Frames {
        let mut perm = [[0; 64]; 8];
        for s in Symmetry::ALL {
            for p in geo.points() {
                perm[s.index()][geo.dense(p)] = geo.dense(s.apply_point(geo, p)) as u8;
            }
        }
        Frames { geo, perm }
    }

    /// The board these frames are of.
    pub fn geo(&self) -> Geometry {
        self.geo
    }

    /// The image of a point mask under `s`.
    pub fn map(&self, s: Symmetry, mut m: u64) -> u64 {
        let perm = &self.perm[s.index()];
        let mut out = 0;
        while m != 0 {
            out |= 1 << perm[m.trailing_zeros() as usize];
            m &= m - 1;
        }
        out
    }

    /// The symmetry taking `st` to its canonical frame.
    pub fn canonical(&self, st: Stones) -> Symmetry {
        Symmetry::ALL
            .into_iter()
            .min_by_key(|&s| (self.map(s, st.black), self.map(s, st.white)))
            .expect("eight symmetries")
    }

    /// The table key of `g` (whose stones are `st`) in the frame of `s`: stones, side to move,
    /// passes, the Sligo phase and, if given, the legal actions (which show a ko ban).
    pub fn key(&self, g: &GameState, st: Stones, s: Symmetry, legal: Option<&[Action]>) -> u64 {
        let dense = |p| u64::from(self.perm[s.index()][self.geo.dense(p)]);
        let mut key = mix64(self.map(s, st.black))
            ^ mix64(self.map(s, st.white) ^ 0x5555_5555_5555_5555).rotate_left(17);
        if g.to_move() == Color::White {
            key ^= 0xA3B1_95F0_5E3D_C7A1;
        }
        key ^= mix64(0x1000 + u64::from(g.passes()));
        key ^= match g.phase() {
            Phase::Start => 0,
            Phase::Place(None) => mix64(0x2000),
            Phase::Place(Some((f, t))) => mix64(0x3000 + 64 * dense(f) + dense(t)),
        };
        for &a in legal.unwrap_or(&[]) {
            key ^= mix64(0x10_0000 + g.action_index(s.apply_action(self.geo, a)) as u64);
        }
        key
    }

    /// The action with canonical index `i`, mapped back through `s` (the symmetry that took
    /// the position to its canonical frame).
    pub fn action_from(&self, s: Symmetry, i: u16) -> Option<Action> {
        Action::from_index(self.geo, usize::from(i)).map(|a| s.inverse().apply_action(self.geo, a))
    }

    /// The canonical index of `a` under `s`.
    pub fn action_index(&self, g: &GameState, s: Symmetry, a: Action) -> u16 {
        g.action_index(s.apply_action(self.geo, a)) as u16
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hane_engine::Rules;

    #[test]
    fn images_share_a_key_and_actions_map_back() {
        let rules: Rules = "ttakji,size=4".parse().unwrap();
        let frames = Frames::new(Geometry::new(4));
        let mut g = GameState::new(rules);
        g.play(Action::Place(g.geo().parse("A1").unwrap())).unwrap();
        g.play(Action::Place(g.geo().parse("C2").unwrap())).unwrap();
        let st = Stones::of(g.board());
        let s = frames.canonical(st);
        let key = frames.key(&g, st, s, None);
        for r in Symmetry::ALL {
            let mut h = GameState::new(rules);
            for m in ["A1", "C2"] {
                h.play(r.apply_action(h.geo(), Action::Place(h.geo().parse(m).unwrap()))).unwrap();
            }
            let hs = Stones::of(h.board());
            let t = frames.canonical(hs);
            assert_eq!(frames.key(&h, hs, t, None), key);
            // The same move, seen from both frames, has one canonical index.
            let a = r.apply_action(h.geo(), Action::Place(h.geo().parse("D4").unwrap()));
            let i = frames.action_index(&h, t, a);
            assert_eq!(frames.action_from(t, i), Some(a));
            assert_eq!(frames.map(t.inverse(), frames.map(t, hs.black)), hs.black);
        }
    }
}
