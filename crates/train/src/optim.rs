//! SGD with momentum and AdamW, written on tensor operations so that their state (momentum,
//! moment estimates) can be saved in a checkpoint and restored exactly — tch's built-in
//! optimisers keep that state inside libtorch with no way to read it back.
//!
//! The update rules are PyTorch's (`torch.optim.SGD` with `dampening = 0`, and
//! `torch.optim.AdamW`). Weight decay applies to the weights of convolutions and linear
//! layers (tensors of rank ≥ 2), not to biases or batch-norm scales.

use crate::config::{OptimizerKind, TrainConfig};
use hane_host::show::list;
use hane_nn::checkpoint::OPTIMIZER_PREFIX;
use hane_nn::tch::{Kind, Tensor};
use hane_nn::Network;
use std::collections::BTreeMap;

#[derive(Debug)]
struct Param {
    name: String,
    var: Tensor,
    decay: bool,
    /// SGD: `[momentum]`; AdamW: `[exp_avg, exp_avg_sq]`.
    state: Vec<Tensor>,
}

/// An optimiser bound to a network's trainable variables.
#[derive(Debug)]
pub struct Optimizer {
    kind: OptimizerKind,
    momentum: f64,
    betas: [f64; 2],
    eps: f64,
    weight_decay: f64,
    params: Vec<Param>,
}

impl OptimizerKind {
    fn name(self) -> &'static str {
        match self {
            OptimizerKind::Sgd => "sgd",
            OptimizerKind::AdamW => "adamw",
        }
    }

    fn buffers(self) -> &'static [&'static str] {
        match self {
            OptimizerKind::Sgd => &["momentum"],
            OptimizerKind::AdamW => &["exp_avg", "exp_avg_sq"],
        }
    }
}

impl Optimizer {
    /// A fresh optimiser (zero state) for `net`'s trainable variables.
    pub fn new(net: &Network, cfg: &TrainConfig) -> Optimizer {
        let params = net
            .named_parameters()
            .into_iter()
            .map(|(name, var)| Param {
                decay: var.dim() >= 2,
                state: cfg.optimizer.buffers().iter().map(|_| var.zeros_like().detach()).collect(),
                name,
                var,
            })
            .collect();
        Optimizer {
            kind: cfg.optimizer,
            momentum: cfg.momentum,
            betas: cfg.adam_betas,
            eps: cfg.adam_eps,
            weight_decay: cfg.weight_decay,
            params,
        }
    }

    /// Clears every gradient.
    pub fn zero_grad(&mut self) {
        for p in &mut self.params {
            p.var.zero_grad();
        }
    }

    /// The global gradient norm (a scalar tensor, so the device need not synchronise),
    /// after scaling the gradients down to at most `max_norm` (0: no clipping).
    pub fn clip_grad_norm(&mut self, max_norm: f64) -> Tensor {
        hane_nn::tch::no_grad(|| {
            let norms: Vec<Tensor> = self.params.iter().map(|p| p.var.grad().norm()).collect();
            let total = Tensor::stack(&norms, 0).norm();
            if max_norm > 0.0 {
                let coef = (max_norm / (&total + 1e-6)).clamp_max(1.0);
                for p in &self.params {
                    let _ = p.var.grad().g_mul_(&coef);
                }
            }
            total
        })
    }

    /// One update with learning rate `lr`; `t` is the 1-based step number (for AdamW's bias
    /// correction).
    pub fn step(&mut self, lr: f64, t: u64) {
        let wd = self.weight_decay;
        hane_nn::tch::no_grad(|| {
            for p in &mut self.params {
                let g = p.var.grad();
                let decay = if p.decay { wd } else { 0.0 };
                match self.kind {
                    OptimizerKind::Sgd => {
                        let d = if decay > 0.0 { &g + &p.var * decay } else { g };
                        let buf = &mut p.state[0];
                        let _ = buf.g_mul_scalar_(self.momentum);
                        let _ = buf.g_add_(&d);
                        let _ = p.var.g_add_(&(&*buf * -lr));
                    }
                    OptimizerKind::AdamW => {
                        let [b1, b2] = self.betas;
                        if decay > 0.0 {
                            let _ = p.var.g_mul_scalar_(1.0 - lr * decay);
                        }
                        let _ = p.state[0].g_mul_scalar_(b1);
                        let _ = p.state[0].g_add_(&(&g * (1.0 - b1)));
                        let _ = p.state[1].g_mul_scalar_(b2);
                        let _ = p.state[1].g_add_(&(g.square() * (1.0 - b2)));
                        let bc1 = 1.0 - b1.powf(t as f64);
                        let bc2 = 1.0 - b2.powf(t as f64);
                        let denom = (&p.state[1] / bc2).sqrt() + self.eps;
                        let _ = p.var.g_add_(&(&p.state[0] / denom * (-lr / bc1)));
                    }
                }
            }
        });
    }

    fn key(&self, buffer: &str, param: &str) -> String {
        format!("{OPTIMIZER_PREFIX}{}.{buffer}.{param}", self.kind.name())
    }

    /// The state tensors under their checkpoint names
    /// (`optimizer.<kind>.<buffer>.<variable>`).
    pub fn named_state(&self) -> Vec<(String, Tensor)> {
        let mut out = Vec::new();
        for p in &self.params {
            for (b, t) in self.kind.buffers().iter().zip(&p.state) {
                out.push((self.key(b, &p.name), t.shallow_clone()));
            }
        }
        out
    }

    /// Restores the state from checkpoint tensors: every buffer must be present with its
    /// variable's shape (a checkpoint of the other optimiser is refused).
    pub(crate) fn load_state(&mut self, tensors: &BTreeMap<String, Tensor>) -> Result<(), String> {
        let mine = format!("{OPTIMIZER_PREFIX}{}.", self.kind.name());
        if let Some(other) = tensors.keys().find(|k| k.starts_with(OPTIMIZER_PREFIX) && !k.starts_with(&mine))
        {
            return Err(format!(
                "the checkpoint holds another optimizer's state ({other}), the config asks for {}",
                self.kind.name()
            ));
        }
        for i in 0..self.params.len() {
            for (j, b) in self.kind.buffers().iter().enumerate() {
                let key = self.key(b, &self.params[i].name);
                let src = tensors.get(&key).ok_or_else(|| format!("optimizer state {key} is missing"))?;
                let dst = &mut self.params[i].state[j];
                if src.size() != dst.size() {
                    return Err(format!(
                        "optimizer state {key} has shape [{}], expected [{}]",
                        list(&src.size()),
                        list(&dst.size())
                    ));
                }
                hane_nn::tch::no_grad(|| dst.copy_(&src.to_kind(Kind::Float)));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hane_nn::tch::Device;
    use hane_nn::{NetConfig, NetShape};

    fn setup(kind: OptimizerKind, weight_decay: f64) -> (Network, Optimizer) {
        let rules = "ttakji,size=3".parse().unwrap();
        let shape = NetShape {
            blocks: 1,
            channels: 4,
            pool_channels: 2,
            head_channels: 2,
            value_channels: 2,
            pool_every: 1,
        };
        let net = Network::new(NetConfig::new(&rules, shape), Device::Cpu).unwrap();
        let cfg = TrainConfig { optimizer: kind, momentum: 0.9, weight_decay, ..TrainConfig::default() };
        let opt = Optimizer::new(&net, &cfg);
        (net, opt)
    }

    /// Sets every gradient to 1 (the gradient of the sum of all weights).
    fn unit_grads(net: &Network, opt: &mut Optimizer) {
        opt.zero_grad();
        let total: Tensor = net.named_parameters().iter().map(|(_, v)| v.sum(Kind::Float)).sum();
        total.backward();
    }

    fn weights(net: &Network) -> Vec<Tensor> {
        net.named_parameters().into_iter().map(|(_, v)| v.copy()).collect()
    }

    fn max_diff(a: &[Tensor], b: &[Tensor], expect: f64) -> f64 {
        a.iter().zip(b).map(|(a, b)| (a - b - expect).abs().max().double_value(&[])).fold(0.0, f64::max)
    }

    #[test]
    fn sgd_momentum_follows_pytorch() {
        let (net, mut opt) = setup(OptimizerKind::Sgd, 0.0);
        let w0 = weights(&net);
        unit_grads(&net, &mut opt);
        opt.step(0.1, 1);
        let w1 = weights(&net);
        assert!(max_diff(&w0, &w1, 0.1) < 1e-6, "first step moves by lr");
        unit_grads(&net, &mut opt);
        opt.step(0.1, 2);
        assert!(max_diff(&w1, &weights(&net), 0.19) < 1e-6, "second step by lr * (1 + momentum)");
    }

    #[test]
    fn adamw_steps_by_lr_and_decays_only_matrices() {
        let (net, mut opt) = setup(OptimizerKind::AdamW, 0.5);
        let w0 = weights(&net);
        unit_grads(&net, &mut opt);
        opt.step(0.01, 1);
        for ((name, w1), w0) in net.named_parameters().iter().zip(&w0) {
            // Decoupled decay shrinks rank >= 2 weights by lr * wd first; then the unit
            // gradient moves every weight by lr (bias-corrected moments are exactly 1).
            let decay = if w0.dim() >= 2 { 1.0 - 0.01 * 0.5 } else { 1.0 };
            let d = (w0 * decay - 0.01 - w1).abs().max().double_value(&[]);
            assert!(d < 1e-6, "{name}: {d}");
        }
    }

    #[test]
    fn clipping_scales_to_the_maximum_norm() {
        let (net, mut opt) = setup(OptimizerKind::Sgd, 0.0);
        unit_grads(&net, &mut opt);
        let n = net.parameter_count() as f64;
        let norm = opt.clip_grad_norm(1.0).double_value(&[]);
        assert!((norm - n.sqrt()).abs() < 1e-3);
        assert!((opt.clip_grad_norm(0.0).double_value(&[]) - 1.0).abs() < 1e-4);
    }
}
