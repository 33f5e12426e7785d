//! One net for several board sizes: where each position's board lies in a batch.
//!
//! No weight of the net depends on the board size, so one net can play several. A batch of
//! [`Boards::Padded`] holds smaller boards in the top-left corner of the net's (see
//! `hane_data::batch`); their on-board plane is the mask, as in KataGo. Every activation is
//! then zeroed off the board before a convolution reads it, so a convolution sees the zeros
//! that a native board's padding gives; pooling takes means and maxima over each board's own
//! points, with S its own side; batch normalisation in training counts only on-board points;
//! policy logits off the board are pushed to [`OFF_BOARD_LOGIT`]. A position so evaluated gives
//! what the same net gives it at its own size (up to the last bits of the arithmetic).
//! [`Boards::Full`] batches skip all of it.

use hane_data::features::ON_BOARD_PLANE;
use tch::nn;
use tch::{Kind, Tensor};

/// Board side that KataGo's pooling terms are centred on.
const POOL_CENTRE: f64 = 14.0;

/// Whether every position of a batch fills the net's board, or some are smaller boards in its
/// corner (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Boards {
    /// Every position is on a board of the net's size.
    Full,
    /// Some positions are smaller boards: mask by the on-board plane.
    Padded,
}

impl Boards {
    /// [`Boards::Padded`] when a batch holds a smaller board (`padded`), else [`Boards::Full`].
    pub fn of(padded: bool) -> Boards {
        if padded {
            Boards::Padded
        } else {
            Boards::Full
        }
    }
}

/// The logit of a policy entry off a smaller board: its probability is 0 in every softmax.
pub const OFF_BOARD_LOGIT: f64 = -1.0e4;

/// Batch normalisation's defaults (tch's and PyTorch's), for the masked statistics.
const BN_EPS: f64 = 1e-5;
const BN_MOMENTUM: f64 = 0.1;

/// Where a batch's boards lie: the whole tensor, or each position's own corner.
pub(crate) struct Area {
    /// The net's board side.
    size: f64,
    /// With smaller boards: the mask (N × 1 × S × S, 1 on the board), its complement as
    /// booleans, and each board's point count (N × 1).
    mask: Option<(Tensor, Tensor, Tensor)>,
}

impl Area {
    pub(crate) fn new(planes: &Tensor, size: usize, boards: Boards) -> Area {
        let mask = (boards == Boards::Padded).then(|| {
            let m = planes.narrow(1, ON_BOARD_PLANE as i64, 1).to_kind(Kind::Float);
            let off = m.eq(0.0);
            let count = m.sum_dim_intlist([2i64, 3].as_slice(), false, Kind::Float);
            (m, off, count)
        });
        Area { size: size as f64, mask }
    }

    /// `x` with every point off its board set to 0 (in `x`'s type: an inference trunk may
    /// compute in bf16).
    pub(crate) fn clip(&self, x: Tensor) -> Tensor {
        match &self.mask {
            Some((m, _, _)) => {
                let m = m.to_kind(x.kind());
                x * m
            }
            None => x,
        }
    }

    /// Per-point policy logits with every point off its board set to [`OFF_BOARD_LOGIT`].
    pub(crate) fn off_board_logits(&self, x: Tensor) -> Tensor {
        match &self.mask {
            Some((_, off, _)) => x.masked_fill(off, OFF_BOARD_LOGIT),
            None => x,
        }
    }

    /// With smaller boards: each board's mean of `x` (N × C) and its side minus
    /// [`POOL_CENTRE`] (N × 1).
    fn board_mean(x: &Tensor, m: &Tensor, count: &Tensor) -> (Tensor, Tensor) {
        let sum = (x * m).sum_dim_intlist([2i64, 3].as_slice(), false, Kind::Float);
        (sum / count, count.sqrt() - POOL_CENTRE)
    }

    /// Mean, size-scaled mean and max over each board: N × C × S × S → N × 3C, in `x`'s type
    /// (with smaller boards the sums are FP32, whatever that type).
    pub(crate) fn pool(&self, x: &Tensor) -> Tensor {
        let Some((m, off, count)) = &self.mask else {
            // Every board of the net's size: the scale is one number.
            let mean = x.mean_dim([2i64, 3].as_slice(), false, None::<Kind>);
            let max = x.amax([2i64, 3].as_slice(), false);
            let scaled = &mean * ((self.size - POOL_CENTRE) / 10.0);
            return Tensor::cat(&[mean, scaled, max], 1);
        };
        let (mean, d) = Area::board_mean(x, m, count);
        let max = x.masked_fill(off, f64::NEG_INFINITY).amax([2i64, 3].as_slice(), false);
        let scaled = &mean * (d / 10.0);
        Tensor::cat(&[mean, scaled, max.to_kind(Kind::Float)], 1).to_kind(x.kind())
    }

    /// The value head's pooling: mean and two size-scaled means, N × 3C, in `x`'s type.
    pub(crate) fn value_pool(&self, x: &Tensor) -> Tensor {
        let Some((m, _, count)) = &self.mask else {
            let mean = x.mean_dim([2i64, 3].as_slice(), false, None::<Kind>);
            let d = self.size - POOL_CENTRE;
            let (a, b) = (&mean * (d / 10.0), &mean * ((d * d - 10.0) / 100.0));
            return Tensor::cat(&[mean, a, b], 1);
        };
        let (mean, d) = Area::board_mean(x, m, count);
        let (a, b) = (&mean * (&d / 10.0), &mean * ((&d * &d - 10.0) / 100.0));
        Tensor::cat(&[mean, a, b], 1).to_kind(x.kind())
    }

    /// Batch normalisation of `x` by `bn`; in training with smaller boards the statistics (and
    /// the running ones) count only on-board points.
    pub(crate) fn norm(&self, bn: &nn::BatchNorm, x: &Tensor, train: bool) -> Tensor {
        let Some((m, _, _)) = self.mask.as_ref().filter(|_| train) else {
            return x.apply_t(bn, train);
        };
        let dims = [0i64, 2, 3];
        let n = m.sum(Kind::Float);
        let c = x.size()[1];
        let mean = (x * m).sum_dim_intlist(dims.as_slice(), false, Kind::Float) / &n;
        let centred = x - mean.view([1, c, 1, 1]);
        let var = (&centred * &centred * m).sum_dim_intlist(dims.as_slice(), false, Kind::Float) / &n;
        tch::no_grad(|| {
            // The running variance is unbiased, as PyTorch keeps it.
            let unbiased = var.detach() * (&n / (&n - 1.0).clamp_min(1.0));
            let (mut rm, mut rv) = (bn.running_mean.shallow_clone(), bn.running_var.shallow_clone());
            rm *= 1.0 - BN_MOMENTUM;
            rm += mean.detach() * BN_MOMENTUM;
            rv *= 1.0 - BN_MOMENTUM;
            rv += unbiased * BN_MOMENTUM;
        });
        // Not in place: autograd needs each product's inputs.
        let y = centred / (var + BN_EPS).sqrt().view([1, c, 1, 1]);
        let y = match &bn.ws {
            Some(w) => y * w.view([1, c, 1, 1]),
            None => y,
        };
        match &bn.bs {
            Some(b) => y + b.view([1, c, 1, 1]),
            None => y,
        }
    }
}
