//! The network: a pre-activation residual trunk with KataGo-style global pooling blocks, and
//! four heads (policy, value, score, ownership).
//!
//! ```text
//!  planes N×C×S×S ──conv3x3──┐
//!  globals N×G ────linear────+ (per-channel bias)
//!                            │
//!        blocks × [BN-ReLU-conv3x3 (+ global pooling bias) BN-ReLU-conv3x3] + skip
//!                            │
//!                         BN-ReLU ──────────────┬───────────────────────┐
//!                                               │                       │
//!   policy: conv1x1 P, conv1x1 G ─ pool(G) ─ bias on P ─ conv1x1    value: conv1x1 V
//!           → per-point logits (placements, Sligo slides)            ├─ conv1x1 → ownership
//!           pool(G) ─ linear → pass (and Sligo no-slide) logits      └─ pool(V) ─ fc ─┬─ WDL
//!                                                                                     └─ score
//! ```
//!
//! Global pooling (KataGo paper §3.3): a channel's mean, its mean scaled by `(S − 14)/10`, and
//! its max (the value head replaces the max by the mean scaled by `((S − 14)² − σ²)/100`, with
//! σ² = 10). It lets the net see whole-board properties such as how much territory each side
//! has, or where a ko threat is, without many layers. With one board size per net the scaled
//! means are redundant with the mean; they are kept so the layer keeps KataGo's meaning.
//!
//! One policy covers both decisions of a Sligo turn: at the start of a turn the legal actions
//! are pass, no-slide and the slides, after it the placements. The inputs say which decision
//! it is (the Sligo slide planes and the phase feature), and the evaluator's softmax over the
//! legal actions keeps just that decision's part of the action space.
//!
//! Variable names are the checkpoint keys: `stem.conv`, `trunk.3.conv1`, `trunk.2.pool.linear`,
//! `policy.conv_p`, `value.wdl`, ... (each with `.weight`, `.bias`, `.running_mean`, ...).

use crate::config::NetConfig;
use crate::NnError;
use tch::nn::{self, ModuleT};
use tch::{Device, Kind, Tensor};

/// Board side that KataGo's pooling terms are centred on.
const POOL_CENTRE: f64 = 14.0;

/// The raw outputs of a forward pass, for a batch of N positions (side to move's view).
#[derive(Debug)]
pub struct Outputs {
    /// Policy logits, N × M, in the engine's dense action order.
    pub policy: Tensor,
    /// Win / draw / loss logits, N × 3.
    pub wdl: Tensor,
    /// Expected score margin divided by [`NetConfig::score_scale`], N.
    pub score_mean: Tensor,
    /// Natural log of the expected absolute error of `score_mean` (same units), N.
    pub score_log_spread: Tensor,
    /// Ownership logits, N × S × S: `tanh` of them is the expected owner (+1 side to move).
    pub ownership: Tensor,
}

fn conv(p: nn::Path, cin: usize, cout: usize, k: i64, bias: bool) -> nn::Conv2D {
    let cfg = nn::ConvConfig { padding: k / 2, bias, ..Default::default() };
    nn::conv2d(p, cin as i64, cout as i64, k, cfg)
}

fn bn(p: nn::Path, c: usize) -> nn::BatchNorm {
    nn::batch_norm2d(p, c as i64, Default::default())
}

fn linear(p: nn::Path, cin: usize, cout: usize) -> nn::Linear {
    nn::linear(p, cin as i64, cout as i64, Default::default())
}

/// Mean, size-scaled mean and max over the board: N × C × S × S → N × 3C.
fn pool(x: &Tensor, size: f64) -> Tensor {
    let mean = x.mean_dim([2i64, 3].as_slice(), false, None::<Kind>);
    let max = x.amax([2i64, 3].as_slice(), false);
    let scaled = &mean * ((size - POOL_CENTRE) / 10.0);
    Tensor::cat(&[mean, scaled, max], 1)
}

/// The value head's pooling: mean and two size-scaled means, N × 3C.
fn value_pool(x: &Tensor, size: f64) -> Tensor {
    let mean = x.mean_dim([2i64, 3].as_slice(), false, None::<Kind>);
    let d = size - POOL_CENTRE;
    let a = &mean * (d / 10.0);
    let b = &mean * ((d * d - 10.0) / 100.0);
    Tensor::cat(&[mean, a, b], 1)
}

/// The global pooling part of a block: `pool_channels` extra convolution channels, pooled
/// and turned into one bias per regular channel.
#[derive(Debug)]
struct GlobalPool {
    conv: nn::Conv2D,
    bn: nn::BatchNorm,
    linear: nn::Linear,
    size: f64,
}

impl GlobalPool {
    fn new(p: nn::Path, cin: usize, pooled: usize, cout: usize, size: usize) -> GlobalPool {
        GlobalPool {
            conv: conv(&p / "conv", cin, pooled, 3, false),
            bn: bn(&p / "bn", pooled),
            linear: linear(&p / "linear", 3 * pooled, cout),
            size: size as f64,
        }
    }

    /// The per-channel bias computed from the (already activated) block input `x`, N × C × 1 × 1.
    fn bias(&self, x: &Tensor, train: bool) -> Tensor {
        let g = x.apply(&self.conv).apply_t(&self.bn, train).relu_();
        let b = pool(&g, self.size).apply(&self.linear);
        let n = b.size()[0];
        b.view([n, -1, 1, 1])
    }
}

/// A pre-activation residual block, optionally with global pooling after its first
/// convolution.
#[derive(Debug)]
struct Block {
    bn1: nn::BatchNorm,
    conv1: nn::Conv2D,
    pool: Option<GlobalPool>,
    bn2: nn::BatchNorm,
    conv2: nn::Conv2D,
}

impl Block {
    fn new(p: nn::Path, c: usize, pooled: Option<usize>, size: usize) -> Block {
        Block {
            bn1: bn(&p / "bn1", c),
            conv1: conv(&p / "conv1", c, c, 3, false),
            pool: pooled.map(|k| GlobalPool::new(&p / "pool", c, k, c, size)),
            bn2: bn(&p / "bn2", c),
            conv2: conv(&p / "conv2", c, c, 3, false),
        }
    }
}

impl ModuleT for Block {
    fn forward_t(&self, x: &Tensor, train: bool) -> Tensor {
        let a = x.apply_t(&self.bn1, train).relu_();
        let mut h = a.apply(&self.conv1);
        if let Some(pool) = &self.pool {
            h += pool.bias(&a, train);
        }
        let mut h = h.apply_t(&self.bn2, train).relu_().apply(&self.conv2);
        h += x;
        h
    }
}

#[derive(Debug)]
struct PolicyHead {
    conv_p: nn::Conv2D,
    conv_g: nn::Conv2D,
    bn_g: nn::BatchNorm,
    linear_g: nn::Linear,
    bn_p: nn::BatchNorm,
    /// 1 channel of placement logits, plus 8 slide directions for Sligo.
    conv_out: nn::Conv2D,
    /// Pass logit, plus no-slide for Sligo.
    linear_out: nn::Linear,
}

#[derive(Debug)]
struct ValueHead {
    conv: nn::Conv2D,
    bn: nn::BatchNorm,
    ownership: nn::Conv2D,
    fc: nn::Linear,
    wdl: nn::Linear,
    score: nn::Linear,
}

/// The policy/value network with its variables.
pub struct Network {
    config: NetConfig,
    vs: nn::VarStore,
    stem_conv: nn::Conv2D,
    stem_global: nn::Linear,
    blocks: Vec<Block>,
    trunk_bn: nn::BatchNorm,
    policy: PolicyHead,
    value: ValueHead,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Network({:?} on {:?})", self.config, self.vs.device())
    }
}

/// How many values (weights, biases, batch-norm statistics) [`Network::new`] allocates for
/// `config`, counted without allocating them, so that a checkpoint whose metadata claims a net
/// far larger than its tensors is refused before that net is built. It follows the layers of
/// [`Network::new`] one for one (a test compares the two).
pub fn value_count(config: &NetConfig) -> usize {
    let conv =
        |cin: usize, cout: usize, k: usize, bias: bool| cin * cout * k * k + if bias { cout } else { 0 };
    let bn = |c: usize| 4 * c;
    let linear = |cin: usize, cout: usize| cin * cout + cout;
    let sh = config.shape;
    let (c, k, h, v) = (sh.channels, sh.pool_channels, sh.head_channels, sh.value_channels);
    let block = |i: usize| {
        let pool = if sh.is_pool_block(i) { conv(c, k, 3, false) + bn(k) + linear(3 * k, c) } else { 0 };
        2 * (bn(c) + conv(c, c, 3, false)) + pool
    };
    let slides = config.has_slides();
    let stem = conv(config.planes, c, 3, false) + config.globals * c;
    let trunk = (0..sh.blocks).map(block).sum::<usize>() + bn(c);
    let policy = 2 * conv(c, h, 1, false)
        + 2 * bn(h)
        + linear(3 * h, h)
        + conv(h, if slides { 9 } else { 1 }, 1, false)
        + linear(3 * h, if slides { 2 } else { 1 });
    let value =
        conv(c, v, 1, false) + bn(v) + conv(v, 1, 1, true) + linear(3 * v, v) + linear(v, 3) + linear(v, 2);
    stem + trunk + policy + value
}

impl Network {
    /// A freshly initialised network on `device`.
    pub fn new(config: NetConfig, device: Device) -> Result<Network, NnError> {
        config.validate()?;
        let vs = nn::VarStore::new(device);
        let root = vs.root();
        let sh = config.shape;
        let (c, s) = (sh.channels, config.board_size);
        let blocks = (0..sh.blocks)
            .map(|i| {
                let pooled = sh.is_pool_block(i).then_some(sh.pool_channels);
                Block::new(&root / "trunk" / i, c, pooled, s)
            })
            .collect();
        let (h, v) = (sh.head_channels, sh.value_channels);
        let slides = config.has_slides();
        let p = &root / "policy";
        let policy = PolicyHead {
            conv_p: conv(&p / "conv_p", c, h, 1, false),
            conv_g: conv(&p / "conv_g", c, h, 1, false),
            bn_g: bn(&p / "bn_g", h),
            linear_g: linear(&p / "linear_g", 3 * h, h),
            bn_p: bn(&p / "bn_p", h),
            conv_out: conv(&p / "conv_out", h, if slides { 9 } else { 1 }, 1, false),
            linear_out: linear(&p / "linear_out", 3 * h, if slides { 2 } else { 1 }),
        };
        let q = &root / "value";
        let value = ValueHead {
            conv: conv(&q / "conv", c, v, 1, false),
            bn: bn(&q / "bn", v),
            ownership: conv(&q / "ownership", v, 1, 1, true),
            fc: linear(&q / "fc", 3 * v, v),
            wdl: linear(&q / "wdl", v, 3),
            score: linear(&q / "score", v, 2),
        };
        Ok(Network {
            stem_conv: conv(&root / "stem" / "conv", config.planes, c, 3, false),
            stem_global: nn::linear(
                &root / "stem" / "global",
                config.globals as i64,
                c as i64,
                nn::LinearConfig { bias: false, ..Default::default() },
            ),
            blocks,
            trunk_bn: bn(&root / "trunk" / "final_bn", c),
            policy,
            value,
            config,
            vs,
        })
    }

    /// The configuration it was built from.
    pub fn config(&self) -> &NetConfig {
        &self.config
    }

    /// Its variables (weights and batch-norm statistics).
    pub fn var_store(&self) -> &nn::VarStore {
        &self.vs
    }

    /// The device its variables live on.
    pub fn device(&self) -> Device {
        self.vs.device()
    }

    /// All variables by checkpoint name, sorted by name (shallow handles to the live tensors).
    pub fn named_variables(&self) -> Vec<(String, Tensor)> {
        let mut v: Vec<_> = self.vs.variables().into_iter().collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// The trainable variables by name, sorted by name.
    pub fn named_parameters(&self) -> Vec<(String, Tensor)> {
        self.named_variables().into_iter().filter(|(_, t)| t.requires_grad()).collect()
    }

    /// Number of trainable weights.
    pub fn parameter_count(&self) -> usize {
        self.named_parameters().iter().map(|(_, t)| t.numel()).sum()
    }

    /// Runs the network on `planes` (N × C × S × S, float, 0/1) and `globals` (N × G).
    /// `train` selects batch statistics (training) or running statistics (inference).
    pub fn forward_t(&self, planes: &Tensor, globals: &Tensor, train: bool) -> Outputs {
        let n = planes.size()[0];
        let s = self.config.board_size as i64;
        let size = s as f64;
        let mut x = planes.apply(&self.stem_conv);
        x += globals.apply(&self.stem_global).view([n, -1, 1, 1]);
        for b in &self.blocks {
            x = b.forward_t(&x, train);
        }
        let x = x.apply_t(&self.trunk_bn, train).relu_();

        let ph = &self.policy;
        let g = x.apply(&ph.conv_g).apply_t(&ph.bn_g, train).relu_();
        let g = pool(&g, size);
        let p = x.apply(&ph.conv_p) + g.apply(&ph.linear_g).view([n, -1, 1, 1]);
        let spatial = p.apply_t(&ph.bn_p, train).relu_().apply(&ph.conv_out).view([n, -1, s * s]);
        let global = g.apply(&ph.linear_out);
        let place = spatial.select(1, 0);
        let pass = global.narrow(1, 0, 1);
        // The policy in `hane_engine::PolicyLayout` order: placements, pass, then for Sligo
        // no-slide and the slides.
        let policy = if self.config.has_slides() {
            // Slides are indexed by stone then direction: N × 8 × S² → N × S² × 8 → N × 8S².
            let slides = spatial.narrow(1, 1, 8).transpose(1, 2).reshape([n, -1]);
            Tensor::cat(&[place, pass, global.narrow(1, 1, 1), slides], 1)
        } else {
            Tensor::cat(&[place, pass], 1)
        };

        let vh = &self.value;
        let v = x.apply(&vh.conv).apply_t(&vh.bn, train).relu_();
        let ownership = v.apply(&vh.ownership).view([n, s, s]);
        let h = value_pool(&v, size).apply(&vh.fc).relu_();
        let score = h.apply(&vh.score);
        Outputs {
            policy,
            wdl: h.apply(&vh.wdl),
            score_mean: score.select(1, 0),
            score_log_spread: score.select(1, 1),
            ownership,
        }
    }
}

/// Input tensors on `device` from the raw arrays of `n` rows: planes as stored in shards
/// (u8, N × C × S × S) and globals (f32, N × G). The planes travel as bytes and become floats
/// on the device.
pub fn input_tensors(
    config: &NetConfig,
    planes: &[u8],
    globals: &[f32],
    n: usize,
    device: Device,
) -> (Tensor, Tensor) {
    let s = config.board_size as i64;
    let p = Tensor::from_slice(planes).view([n as i64, config.planes as i64, s, s]);
    let g = Tensor::from_slice(globals).view([n as i64, config.globals as i64]);
    (p.to_device(device).to_kind(Kind::Float), g.to_device(device))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NetShape;
    use hane_engine::Rules;

    fn tiny(rules: &str) -> NetConfig {
        // Two blocks, so that a plain block and a global pooling block are both covered.
        let shape = NetShape { blocks: 2, pool_every: 2, ..NetShape::tiny() };
        NetConfig::new(&rules.parse::<Rules>().unwrap(), shape)
    }

    #[test]
    fn output_shapes_follow_the_action_space() {
        for (rules, m) in [("ttakji,size=5", 26), ("sligo,size=5", 25 + 2 + 200), ("loose,size=5", 26)] {
            let cfg = tiny(rules);
            let net = Network::new(cfg, Device::Cpu).unwrap();
            let planes = Tensor::zeros([3, cfg.planes as i64, 5, 5], (Kind::Float, Device::Cpu));
            let globals = Tensor::zeros([3, cfg.globals as i64], (Kind::Float, Device::Cpu));
            let out = net.forward_t(&planes, &globals, false);
            assert_eq!(out.policy.size(), [3, m], "{rules}");
            assert_eq!(out.wdl.size(), [3, 3]);
            assert_eq!(out.score_mean.size(), [3]);
            assert_eq!(out.score_log_spread.size(), [3]);
            assert_eq!(out.ownership.size(), [3, 5, 5]);
        }
    }

    #[test]
    fn the_value_count_is_that_of_the_built_net() {
        let shapes = [
            NetShape::tiny(),
            NetShape { blocks: 3, pool_every: 2, pool_channels: 5, head_channels: 7, ..NetShape::tiny() },
            NetShape { blocks: 4, pool_every: 0, value_channels: 3, ..NetShape::tiny() },
        ];
        for rules in ["ttakji,size=5", "sligo,size=4", "loose,size=7"] {
            for shape in shapes {
                let cfg = NetConfig::new(&rules.parse::<Rules>().unwrap(), shape);
                let net = Network::new(cfg, Device::Cpu).unwrap();
                let built: i64 = net.named_variables().iter().map(|(_, t)| t.numel() as i64).sum();
                assert_eq!(value_count(&cfg) as i64, built, "{rules} {shape:?}");
            }
        }
    }

    #[test]
    fn variable_names_are_the_documented_keys() {
        let net = Network::new(tiny("ttakji,size=5"), Device::Cpu).unwrap();
        let names: Vec<String> = net.named_variables().into_iter().map(|(n, _)| n).collect();
        for key in [
            "stem.conv.weight",
            "trunk.1.pool.linear.weight",
            "trunk.0.bn1.running_mean",
            "policy.conv_out.weight",
            "value.wdl.bias",
        ] {
            assert!(names.iter().any(|n| n == key), "{key} missing from {names:?}");
        }
        assert!(!names.iter().any(|n| n.starts_with("trunk.0.pool")), "block 0 is not a pooling block");
    }
}
