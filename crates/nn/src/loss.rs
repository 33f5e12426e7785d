//! The training objective of each head, and the metrics the trainer logs.
//!
//! | head | loss | minimum |
//! |---|---|---|
//! | policy | cross-entropy against the search's visit distribution | entropy of the target |
//! | value | cross-entropy against the game's win / draw / loss | entropy of the target |
//! | score | Huber (δ = 1) of `score_mean` against the final margin / [`NetConfig::score_scale`] | 0 |
//! | score spread | Huber of `exp(score_log_spread)` against the mean's actual absolute error | 0 |
//! | ownership | cross-entropy of `(1 + tanh)/2` against `(1 + owner)/2`, mean over each board's points | 0 for ±1 targets |
//!
//! The score spread learns how wrong the mean is likely to be: its target is the current
//! absolute error of the (detached) mean, so it never pulls on the mean itself. Every loss is
//! non-negative, so "the total fell by 90%" means what it says.
//!
//! [`NetConfig::score_scale`]: crate::NetConfig::score_scale

use crate::model::Outputs;
use serde::{Deserialize, Serialize};
use tch::{Kind, Reduction, Tensor};

/// The clamp on the predicted log-spread, so `exp` stays finite early in training.
const LOG_SPREAD_RANGE: (f64, f64) = (-6.0, 4.0);

/// Targets of a batch of N rows, on the network's device.
#[derive(Debug)]
pub struct Targets {
    /// Visit distribution over the action space, N × M (rows sum to 1).
    pub policy: Tensor,
    /// Win / draw / loss for the side to move, N × 3.
    pub wdl: Tensor,
    /// Final score margin for the side to move in points, N.
    pub score: Tensor,
    /// Final owner of each point (+1 side to move, −1 opponent, 0 none), float, N × S × S.
    pub ownership: Tensor,
    /// With smaller boards in the batch ([`crate::Boards::Padded`]): each point's weight in the
    /// ownership loss, N × S × S: S² / (the row's board area) on its board, 0 off it, so that
    /// each row's loss is the mean over its own points. `None`: every point weighs 1.
    pub ownership_weight: Option<Tensor>,
}

impl Targets {
    /// The ownership weights of a batch whose boards are marked by `on_board` (N × S × S, 1 on
    /// a row's board, 0 off it): see [`Targets::ownership_weight`].
    pub fn ownership_weight_of(on_board: &Tensor) -> Tensor {
        let s2 = (on_board.size()[1] * on_board.size()[2]) as f64;
        let area = on_board.sum_dim_intlist([1i64, 2].as_slice(), true, Kind::Float);
        on_board * (area.reciprocal() * s2)
    }
}

/// Weight of each head's loss in the total. The defaults follow KataGo's balance (value 1.5,
/// ownership 1.5 per board, small score terms).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LossWeights {
    /// Policy cross-entropy.
    pub policy: f64,
    /// Win/draw/loss cross-entropy (KataGo's c_g = 1.5).
    pub value: f64,
    /// Score mean (Huber on the scaled margin).
    pub score: f64,
    /// Score spread.
    pub score_spread: f64,
    /// Ownership (mean over points; KataGo's w_o = 1.5/b² on a per-point sum).
    pub ownership: f64,
}

impl Default for LossWeights {
    fn default() -> LossWeights {
        LossWeights { policy: 1.0, value: 1.5, score: 0.5, score_spread: 0.1, ownership: 1.5 }
    }
}

/// Scalar losses and metrics of one batch. `total` carries gradients; the rest are detached.
#[derive(Debug)]
pub struct Losses {
    /// Weighted sum of the head losses.
    pub total: Tensor,
    /// Policy cross-entropy.
    pub policy: Tensor,
    /// Value cross-entropy.
    pub value: Tensor,
    /// Score-mean Huber loss.
    pub score: Tensor,
    /// Score-spread Huber loss.
    pub score_spread: Tensor,
    /// Ownership cross-entropy.
    pub ownership: Tensor,
    /// Fraction of rows whose most likely action is the target's most visited one.
    pub policy_accuracy: Tensor,
    /// Mean squared error of the expected value (win − loss, in [−1, 1]).
    pub value_error: Tensor,
    /// Mean absolute error of the score mean, in points.
    pub score_error: Tensor,
}

impl Losses {
    /// The scalars as (name, tensor) pairs, in a fixed order, for logging.
    pub fn named(&self) -> [(&'static str, &Tensor); 9] {
        [
            ("loss/total", &self.total),
            ("loss/policy", &self.policy),
            ("loss/value", &self.value),
            ("loss/score", &self.score),
            ("loss/score_spread", &self.score_spread),
            ("loss/ownership", &self.ownership),
            ("metric/policy_top1", &self.policy_accuracy),
            ("metric/value_mse", &self.value_error),
            ("metric/score_abs_error", &self.score_error),
        ]
    }
}

fn soft_cross_entropy(logits: &Tensor, target: &Tensor) -> Tensor {
    -(target * logits.log_softmax(1, Kind::Float)).sum_dim_intlist(1, false, Kind::Float).mean(Kind::Float)
}

/// Computes every head's loss, the weighted total, and the metrics. `score_scale` is
/// [`crate::NetConfig::score_scale`].
pub fn losses(out: &Outputs, t: &Targets, w: &LossWeights, score_scale: f64) -> Losses {
    let policy = soft_cross_entropy(&out.policy, &t.policy);
    let value = soft_cross_entropy(&out.wdl, &t.wdl);
    let score_target = &t.score / score_scale;
    let score = out.score_mean.smooth_l1_loss(&score_target, Reduction::Mean, 1.0);
    let abs_error = (&score_target - out.score_mean.detach()).abs();
    let spread = out.score_log_spread.clamp(LOG_SPREAD_RANGE.0, LOG_SPREAD_RANGE.1).exp();
    let score_spread = spread.smooth_l1_loss(&abs_error, Reduction::Mean, 1.0);
    let ownership = (&out.ownership * 2.0).binary_cross_entropy_with_logits::<&Tensor>(
        &((&t.ownership + 1.0) / 2.0),
        t.ownership_weight.as_ref(),
        None,
        Reduction::Mean,
    );
    let total = &policy * w.policy
        + &value * w.value
        + &score * w.score
        + &score_spread * w.score_spread
        + &ownership * w.ownership;

    let (policy_accuracy, value_error, score_error) = tch::no_grad(|| {
        let hit = out.policy.argmax(1, false).eq_tensor(&t.policy.argmax(1, false));
        let expected = |wdl: &Tensor| wdl.select(1, 0) - wdl.select(1, 2);
        let v = expected(&out.wdl.softmax(1, Kind::Float)) - expected(&t.wdl);
        (
            hit.to_kind(Kind::Float).mean(Kind::Float),
            v.square().mean(Kind::Float),
            abs_error.mean(Kind::Float) * score_scale,
        )
    });
    Losses {
        total,
        policy: policy.detach(),
        value: value.detach(),
        score: score.detach(),
        score_spread: score_spread.detach(),
        ownership: ownership.detach(),
        policy_accuracy,
        value_error,
        score_error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tch::Device;

    fn outputs(policy: &[f32], wdl: [f32; 3], score: f32, own: f32) -> Outputs {
        let t = |v: &[f32], shape: &[i64]| Tensor::from_slice(v).view(shape);
        Outputs {
            policy: t(policy, &[1, policy.len() as i64]),
            wdl: t(&wdl, &[1, 3]),
            score_mean: t(&[score], &[1]),
            score_log_spread: t(&[-6.0], &[1]),
            ownership: t(&[own; 4], &[1, 2, 2]),
        }
    }

    #[test]
    fn confident_correct_predictions_cost_nothing() {
        let targets = Targets {
            policy: Tensor::from_slice(&[0.0f32, 1.0, 0.0]).view([1, 3]),
            wdl: Tensor::from_slice(&[1.0f32, 0.0, 0.0]).view([1, 3]),
            score: Tensor::from_slice(&[18.0f32]),
            ownership: Tensor::from_slice(&[1.0f32, -1.0, 1.0, 1.0]).view([1, 2, 2]).to_device(Device::Cpu),
            ownership_weight: None,
        };
        let good = outputs(&[-30.0, 30.0, -30.0], [30.0, -30.0, -30.0], 2.0, 0.0);
        let own = Tensor::from_slice(&[30.0f32, -30.0, 30.0, 30.0]).view([1, 2, 2]);
        let good = Outputs { ownership: own, ..good };
        let l = losses(&good, &targets, &LossWeights::default(), 9.0);
        assert!(l.total.double_value(&[]) < 1e-3, "{}", l.total.double_value(&[]));
        assert_eq!(l.policy_accuracy.double_value(&[]), 1.0);
        let bad = outputs(&[30.0, -30.0, -30.0], [-30.0, -30.0, 30.0], -2.0, 0.0);
        let l = losses(&bad, &targets, &LossWeights::default(), 9.0);
        assert_eq!(l.policy_accuracy.double_value(&[]), 0.0);
        assert!((l.value_error.double_value(&[]) - 4.0).abs() < 1e-4);
        assert!((l.score_error.double_value(&[]) - 36.0).abs() < 1e-3);
        assert!((l.ownership.double_value(&[]) - std::f64::consts::LN_2).abs() < 1e-5);
    }

    #[test]
    fn a_smaller_board_counts_its_own_points_only() {
        let on_board = Tensor::from_slice(&[1.0f32, 1.0, 0.0, 0.0]).view([1, 2, 2]);
        let targets = Targets {
            policy: Tensor::from_slice(&[0.0f32, 1.0, 0.0]).view([1, 3]),
            wdl: Tensor::from_slice(&[1.0f32, 0.0, 0.0]).view([1, 3]),
            score: Tensor::from_slice(&[18.0f32]),
            // Off the board the targets say nothing (0) and the net says nothing (logit 0).
            ownership: Tensor::from_slice(&[1.0f32, -1.0, 0.0, 0.0]).view([1, 2, 2]),
            ownership_weight: Some(Targets::ownership_weight_of(&on_board)),
        };
        let own = Tensor::from_slice(&[30.0f32, -30.0, 0.0, 0.0]).view([1, 2, 2]);
        let good =
            Outputs { ownership: own, ..outputs(&[-30.0, 30.0, -30.0], [30.0, -30.0, -30.0], 2.0, 0.0) };
        let l = losses(&good, &targets, &LossWeights::default(), 9.0);
        assert!(
            l.ownership.double_value(&[]) < 1e-5,
            "the two board points are right: {}",
            l.ownership.double_value(&[])
        );
        let unweighted = Targets { ownership_weight: None, ..targets };
        let l = losses(&good, &unweighted, &LossWeights::default(), 9.0);
        assert!((l.ownership.double_value(&[]) - std::f64::consts::LN_2 / 2.0).abs() < 1e-5);
    }
}
