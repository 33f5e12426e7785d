//! The root's policy training target: visit counts with KataGo's forced playouts pruned
//! (paper §3.2), and choosing the move to play from it.
//!
//! Forced playouts make the search spend `sqrt(k * P * total)` visits on every child it
//! tried, however bad, so that noise-boosted moves get a real look. Those visits say nothing
//! about the move's quality, so before the counts become a target they are taken back: from
//! every child except the most visited one (`c*`) subtract up to its forced playouts, but
//! only as long as the child's PUCT score stays below `c*`'s — i.e. keep exactly the visits
//! PUCT alone would have given it. A child left with at most one visit is removed outright.
//!
//! The alternative target, [`completed_q_weights`], is the improved policy of Gumbel
//! AlphaZero (Danihelka, Guez, Schrittwieser and Silver, "Policy improvement by planning with
//! Gumbel", ICLR 2022, §4 and appendix D): the net's logits plus a monotone transform of each
//! child's mean value, so a move the search found better moves the target at once, however
//! few visits it got.

use hane_engine::rng::Rng;

/// What pruning needs to know about one root child.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChildInfo {
    /// The prior the search used (noise included).
    pub prior: f32,
    /// The net's own prior, before root noise and temperature.
    pub raw_prior: f32,
    /// Completed visits.
    pub visits: u32,
    /// Mean utility from the root player's view (meaningless when `visits == 0`).
    pub utility: f32,
}

/// Visit weights with forced playouts removed, in the order of `children`.
pub(crate) fn pruned_weights(children: &[ChildInfo], c_puct: f32, k: f32) -> Vec<f32> {
    let total: f64 = children.iter().map(|c| f64::from(c.visits)).sum();
    let mut w: Vec<f32> = children.iter().map(|c| c.visits as f32).collect();
    let Some(best) = (0..children.len()).max_by_key(|&i| children[i].visits) else {
        return w;
    };
    if children[best].visits == 0 {
        return w;
    }
    let explore = f64::from(c_puct) * (total + 0.01).sqrt();
    let puct = |c: &ChildInfo, n: f64| f64::from(c.utility) + explore * f64::from(c.prior) / (1.0 + n);
    let best_puct = puct(&children[best], f64::from(children[best].visits));
    for (i, c) in children.iter().enumerate() {
        if i == best || c.visits == 0 {
            continue;
        }
        let n = f64::from(c.visits);
        let gap = best_puct - f64::from(c.utility);
        if gap <= 0.0 {
            continue; // Already at least as attractive as c*: every visit was PUCT's own.
        }
        let forced = (f64::from(k) * f64::from(c.prior) * total).sqrt();
        // Fewest visits at which this child's PUCT is still no higher than c*'s.
        let at_par = explore * f64::from(c.prior) / gap - 1.0;
        let reduced = (n - forced).max(at_par).min(n);
        if reduced < n && reduced <= 1.0 {
            w[i] = 0.0;
        } else {
            w[i] = reduced as f32;
        }
    }
    w
}

/// `c_visit` of the improved policy's value transform (the paper's value, appendix D).
const C_VISIT: f64 = 50.0;
/// `c_scale` of the same transform, for values scaled to [0, 1] (the paper's value).
const C_SCALE: f64 = 1.0;

/// The completed-Q policy target: `softmax(log P_raw + sigma(q))`, where `q` is each child's
/// mean utility scaled from `[-bound, bound]` to `[0, 1]` (an unvisited child takes `v_mix`,
/// the root's utility mixed with the prior-weighted mean of the visited children's) and
/// `sigma(q) = (C_VISIT + max visits) * C_SCALE * q`. `root_utility` is the root's mean
/// utility for the player to move; `bound` the largest utility's magnitude (1 plus the score
/// weight). All zeros when no child has been visited.
pub(crate) fn completed_q_weights(children: &[ChildInfo], root_utility: f32, bound: f32) -> Vec<f32> {
    let total: f64 = children.iter().map(|c| f64::from(c.visits)).sum();
    if total == 0.0 {
        return vec![0.0; children.len()];
    }
    let scaled = |u: f32| ((f64::from(u) / f64::from(bound.max(1e-6)) + 1.0) / 2.0).clamp(0.0, 1.0);
    let visited = || children.iter().filter(|c| c.visits > 0);
    let mass: f64 = visited().map(|c| f64::from(c.raw_prior)).sum();
    let mean_visited = if mass > 0.0 {
        visited().map(|c| f64::from(c.raw_prior) * scaled(c.utility)).sum::<f64>() / mass
    } else {
        visited().map(|c| scaled(c.utility)).sum::<f64>() / visited().count() as f64
    };
    let v_mix = (scaled(root_utility) + total * mean_visited) / (1.0 + total);
    let max_visits = children.iter().map(|c| c.visits).max().unwrap_or(0);
    let sigma = (C_VISIT + f64::from(max_visits)) * C_SCALE;
    let logits: Vec<f64> = children
        .iter()
        .map(|c| {
            let q = if c.visits > 0 { scaled(c.utility) } else { v_mix };
            f64::from(c.raw_prior).max(1e-30).ln() + sigma * q
        })
        .collect();
    let top = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    logits.iter().map(|&l| (l - top).exp() as f32).collect()
}

/// Weights scaled to sum to 1 (all zeros stay zeros).
pub(crate) fn normalized(w: &[f32]) -> Vec<f32> {
    let sum: f32 = w.iter().sum();
    if sum > 0.0 {
        w.iter().map(|x| x / sum).collect()
    } else {
        w.to_vec()
    }
}

/// Index of the move to play: the largest weight at temperature 0 (an exact tie is drawn
/// uniformly from `rng`, so that equal visit counts do not favour low action indices), else
/// a sample proportional to `w^(1/temperature)`. `None` if every weight is 0.
pub(crate) fn choose(w: &[f32], temperature: f32, rng: &mut Rng) -> Option<usize> {
    let max = w.iter().copied().fold(0.0f32, f32::max);
    if max <= 0.0 {
        return None;
    }
    if temperature <= 1e-4 {
        let ties = w.iter().filter(|&&x| x == max).count();
        // The rng is drawn only on a tie, so a unique maximum leaves its stream alone.
        let k = if ties > 1 { rng.below(ties) } else { 0 };
        return w.iter().enumerate().filter(|&(_, &x)| x == max).nth(k).map(|(i, _)| i);
    }
    // w^(1/T) relative to the maximum, in logs so a small temperature cannot overflow.
    let p: Vec<f64> = w
        .iter()
        .map(|&x| {
            if x > 0.0 {
                ((f64::from(x).ln() - f64::from(max).ln()) / f64::from(temperature)).exp()
            } else {
                0.0
            }
        })
        .collect();
    let mut r = rng.unit() * p.iter().sum::<f64>();
    for (i, &x) in p.iter().enumerate() {
        if x > 0.0 {
            if r < x {
                return Some(i);
            }
            r -= x;
        }
    }
    p.iter().rposition(|&x| x > 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child(prior: f32, visits: u32, utility: f32) -> ChildInfo {
        ChildInfo { prior, raw_prior: prior, visits, utility }
    }

    #[test]
    fn completed_q_moves_the_target_to_a_better_move_with_few_visits() {
        // The net prefers the first move; the search's one visit of the second found it
        // better by 0.4 of the utility's range: the target goes there, the visits would not.
        let kids = [child(0.7, 60, 0.0), child(0.2, 1, 0.4), child(0.1, 0, 0.0)];
        let w = normalized(&completed_q_weights(&kids, 0.0, 1.0));
        assert!(w[1] > 0.99, "{w:?}");
        // The unvisited move is valued at the prior-weighted mean of the visited ones (0.54
        // of the range), above the first move's 0.5 and below the second's 0.7.
        assert!(w[0] < w[2] && w[2] < w[1], "{w:?}");
    }

    #[test]
    fn completed_q_keeps_the_priors_where_the_values_agree() {
        // Equal values everywhere (visited or not): the target is the net's prior.
        let kids = [child(0.6, 30, 0.1), child(0.3, 10, 0.1), child(0.1, 0, 0.0)];
        let w = normalized(&completed_q_weights(&kids, 0.1, 1.4));
        for (got, want) in w.iter().zip([0.6, 0.3, 0.1]) {
            assert!((got - want).abs() < 1e-4, "{w:?}");
        }
        assert_eq!(completed_q_weights(&[child(1.0, 0, 0.0)], 0.0, 1.0), vec![0.0]);
    }

    #[test]
    fn best_child_keeps_its_visits_and_bad_forced_children_go() {
        // A strong best move and two bad moves that only forced playouts visited.
        let kids = [child(0.5, 80, 0.6), child(0.25, 10, -0.8), child(0.25, 2, -0.9)];
        let w = pruned_weights(&kids, 1.1, 2.0);
        assert_eq!(w[0], 80.0);
        assert!(w[1] < 10.0, "{w:?}");
        assert_eq!(w[2], 0.0, "{w:?}");
    }

    #[test]
    fn good_children_are_not_pruned() {
        // Second child as good as the best: its visits were earned.
        let kids = [child(0.5, 50, 0.2), child(0.5, 45, 0.2)];
        let w = pruned_weights(&kids, 1.1, 2.0);
        assert_eq!(w, vec![50.0, 45.0]);
    }

    #[test]
    fn choose_at_zero_temperature_is_argmax() {
        let mut rng = Rng::new(0);
        assert_eq!(choose(&[1.0, 5.0, 2.0, 2.0], 0.0, &mut rng), Some(1));
        assert_eq!(choose(&[0.0, 0.0], 1.0, &mut rng), None);
        for _ in 0..100 {
            assert_ne!(choose(&[0.0, 3.0, 1.0], 1.0, &mut rng), Some(0));
        }
    }

    #[test]
    fn a_tie_at_zero_temperature_is_drawn_uniformly() {
        let mut rng = Rng::new(7);
        let mut count = [0u32; 4];
        for _ in 0..4000 {
            count[choose(&[1.0, 5.0, 5.0, 5.0], 0.0, &mut rng).unwrap()] += 1;
        }
        assert_eq!(count[0], 0);
        assert!(count[1..].iter().all(|&n| (1100..1570).contains(&n)), "{count:?}");
        // The same generator state draws the same move.
        let pick = |seed| choose(&[2.0, 2.0, 2.0], 0.0, &mut Rng::new(seed));
        assert!((0..20).all(|seed| pick(seed) == pick(seed)));
    }
}
