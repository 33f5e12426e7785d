//! The eight board symmetries as index maps: the trainer's data augmentation, and the
//! evaluator's random symmetry per position.
//!
//! Every feature plane is a function of the points, so a symmetry moves plane values with
//! their points; the policy target moves with the engine's action map
//! ([`Symmetry::apply_action`]: placements with their points, Sligo slides with their stone
//! *and* direction, pass and no-slide unchanged); the ownership target moves with its
//! points; global features, value and score do not change. The tables below are built from
//! the engine's own maps, so the trainer and the engine cannot disagree about what a
//! symmetry does.

use hane_engine::symmetry::Symmetry;
use hane_engine::{Action, Geometry};

/// Index maps of the eight symmetries for one board size and action space:
/// `points[s][i]` is where point `i` (dense) goes, `actions[s][i]` where action `i` goes.
#[derive(Clone, Debug)]
pub struct Symmetries {
    area: usize,
    points: Vec<Vec<u32>>,
    actions: Vec<Vec<u32>>,
}

impl Symmetries {
    /// The maps for `size`x`size` boards and a policy of `action_space` entries.
    pub fn new(size: usize, action_space: usize) -> Symmetries {
        let geo = Geometry::new(size as u8);
        let area = size * size;
        let points = Symmetry::ALL
            .iter()
            .map(|s| (0..area).map(|i| geo.dense(s.apply_point(geo, geo.from_dense(i))) as u32).collect())
            .collect();
        let actions = Symmetry::ALL
            .iter()
            .map(|s| {
                (0..action_space)
                    .map(|i| {
                        let a = Action::from_index(geo, i).expect("index within the action space");
                        s.apply_action(geo, a).index(geo) as u32
                    })
                    .collect()
            })
            .collect();
        Symmetries { area, points, actions }
    }

    /// Appends the planes (`C × S × S`, any element type) moved by symmetry `s` to `out`.
    pub fn planes<T: Copy + Default>(&self, s: usize, planes: &[T], out: &mut Vec<T>) {
        let start = out.len();
        out.resize(start + planes.len(), T::default());
        let dst = &mut out[start..];
        for (c, plane) in planes.chunks_exact(self.area).enumerate() {
            let base = c * self.area;
            for (i, &v) in plane.iter().enumerate() {
                dst[base + self.points[s][i] as usize] = v;
            }
        }
    }

    /// The index that action `i` moves to under symmetry `s`.
    pub fn action(&self, s: usize, i: usize) -> usize {
        self.actions[s][i] as usize
    }

    /// Appends the policy moved by symmetry `s` to `out`.
    pub fn policy(&self, s: usize, policy: &[f32], out: &mut Vec<f32>) {
        let start = out.len();
        out.resize(start + policy.len(), 0.0);
        for (i, &v) in policy.iter().enumerate() {
            out[start + self.actions[s][i] as usize] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_are_permutations_and_identity_first() {
        for (n, m) in [(5, 26), (5, Action::space(5)), (9, 82)] {
            let t = Symmetries::new(n, m);
            for s in 0..8 {
                let mut p: Vec<u32> = t.points[s].clone();
                p.sort_unstable();
                assert!(p.iter().enumerate().all(|(i, &v)| v as usize == i));
                let mut a: Vec<u32> = t.actions[s].clone();
                a.sort_unstable();
                assert!(a.iter().enumerate().all(|(i, &v)| v as usize == i));
            }
            assert!(t.points[0].iter().enumerate().all(|(i, &v)| v as usize == i));
            assert_eq!(t.actions[3][n * n], (n * n) as u32, "pass stays");
        }
    }
}
