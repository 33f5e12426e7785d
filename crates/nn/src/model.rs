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
//! No weight depends on the board size, so one net can play several board sizes at once
//! ([`Boards`], `crate::boards`).
//!
//! One policy covers both decisions of a Sligo turn: at the start of a turn the legal actions
//! are pass, no-slide and the slides, after it the placements. The inputs say which decision
//! it is (the Sligo slide planes and the phase feature), and the evaluator's softmax over the
//! legal actions keeps just that decision's part of the action space.
//!
//! Variable names are the checkpoint keys: `stem.conv`, `trunk.3.conv1`, `trunk.2.pool.linear`,
//! `policy.conv_p`, `value.wdl`, ... (each with `.weight`, `.bias`, `.running_mean`, ...).

use crate::boards::Area;
pub use crate::boards::{Boards, OFF_BOARD_LOGIT};
use crate::config::NetConfig;
use crate::NnError;
use tch::nn;
use tch::{Device, Kind, Tensor};

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

/// The global pooling part of a block: `pool_channels` extra convolution channels, pooled
/// and turned into one bias per regular channel.
#[derive(Debug)]
struct GlobalPool {
    conv: nn::Conv2D,
    bn: nn::BatchNorm,
    linear: nn::Linear,
}

impl GlobalPool {
    fn new(p: nn::Path, cin: usize, pooled: usize, cout: usize) -> GlobalPool {
        GlobalPool {
            conv: conv(&p / "conv", cin, pooled, 3, false),
            bn: bn(&p / "bn", pooled),
            linear: linear(&p / "linear", 3 * pooled, cout),
        }
    }

    /// The per-channel bias computed from the (already activated) block input `x`, N × C × 1 × 1.
    fn bias(&self, x: &Tensor, area: &Area, train: bool) -> Tensor {
        let g = area.norm(&self.bn, &x.apply(&self.conv), train).relu_();
        let b = area.pool(&area.clip(g)).apply(&self.linear);
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
    fn new(p: nn::Path, c: usize, pooled: Option<usize>) -> Block {
        Block {
            bn1: bn(&p / "bn1", c),
            conv1: conv(&p / "conv1", c, c, 3, false),
            pool: pooled.map(|k| GlobalPool::new(&p / "pool", c, k, c)),
            bn2: bn(&p / "bn2", c),
            conv2: conv(&p / "conv2", c, c, 3, false),
        }
    }
}

impl Block {
    /// The block's output; with smaller boards `x` is 0 off them, and so is the output.
    fn forward(&self, x: &Tensor, area: &Area, train: bool) -> Tensor {
        let a = area.clip(area.norm(&self.bn1, x, train).relu_());
        let mut h = a.apply(&self.conv1);
        if let Some(pool) = &self.pool {
            h += pool.bias(&a, area, train);
        }
        let h = area.clip(area.norm(&self.bn2, &h, train).relu_()).apply(&self.conv2);
        area.clip(h + x)
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
    /// The stem's and the residual blocks' tensor type: [`Kind::Float`], or another for an
    /// inference copy ([`Network::for_inference`]).
    trunk_kind: Kind,
    /// Whether the trunk's convolutions run channels-last (NHWC in memory).
    channels_last: bool,
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
        let c = sh.channels;
        let blocks = (0..sh.blocks)
            .map(|i| {
                let pooled = sh.is_pool_block(i).then_some(sh.pool_channels);
                Block::new(&root / "trunk" / i, c, pooled)
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
            trunk_kind: Kind::Float,
            channels_last: false,
        })
    }

    /// The same net as an inference copy whose stem and residual blocks compute in `trunk`
    /// (see `crate::precision`), in the memory layout [`crate::precision::channels_last`]
    /// picks: their weights are converted once, here; the inputs are cast at the stem, and the
    /// trunk's output back to FP32 before its final batch norm, so the heads stay FP32. Not for
    /// training: the converted weights no longer match the optimiser's FP32 copies.
    pub fn for_inference(mut self, trunk: Kind) -> Network {
        let channels_last = crate::precision::channels_last(trunk, self.config.shape.channels, self.device());
        if trunk == self.trunk_kind && channels_last == self.channels_last {
            return self;
        }
        for (name, mut t) in self.vs.variables() {
            let in_trunk = name.starts_with("stem.")
                || (name.starts_with("trunk.") && !name.starts_with("trunk.final_bn."));
            if in_trunk {
                let converted = if trunk == t.kind() { t.shallow_clone() } else { t.to_kind(trunk) };
                let converted =
                    if channels_last && t.dim() == 4 { to_channels_last(&converted) } else { converted };
                tch::no_grad(|| t.set_data(&converted));
            }
        }
        self.trunk_kind = trunk;
        self.channels_last = channels_last;
        self
    }

    /// Whether the stem and the residual blocks run channels-last ([`Network::for_inference`]).
    pub fn channels_last(&self) -> bool {
        self.channels_last
    }

    /// The tensor type of the stem and the residual blocks ([`Network::for_inference`]).
    pub fn trunk_kind(&self) -> Kind {
        self.trunk_kind
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

    /// Runs the network on `planes` (N × C × S × S, float, 0/1) and `globals` (N × G), whose
    /// boards are all of the net's size or, with [`Boards::Padded`], some smaller ones in its
    /// corner (see the module docs). `train` selects batch statistics (training) or running
    /// statistics (inference).
    pub fn forward_t(&self, planes: &Tensor, globals: &Tensor, boards: Boards, train: bool) -> Outputs {
        let n = planes.size()[0];
        let s = self.config.board_size as i64;
        let area = Area::new(planes, self.config.board_size, boards);
        let (planes, globals) = (planes.to_kind(self.trunk_kind), globals.to_kind(self.trunk_kind));
        let planes = if self.channels_last { to_channels_last(&planes) } else { planes };
        let mut x = planes.apply(&self.stem_conv);
        x += globals.apply(&self.stem_global).view([n, -1, 1, 1]);
        let mut x = area.clip(x);
        for b in &self.blocks {
            x = b.forward(&x, &area, train);
        }
        // The heads compute in FP32 whatever the trunk's type.
        let x = x.to_kind(Kind::Float);
        let x = area.clip(area.norm(&self.trunk_bn, &x, train).relu_());

        let ph = &self.policy;
        let g = area.clip(area.norm(&ph.bn_g, &x.apply(&ph.conv_g), train).relu_());
        let g = area.pool(&g);
        let p = x.apply(&ph.conv_p) + g.apply(&ph.linear_g).view([n, -1, 1, 1]);
        let spatial = area.clip(area.norm(&ph.bn_p, &p, train).relu_()).apply(&ph.conv_out);
        let spatial = area.off_board_logits(spatial).view([n, -1, s * s]);
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
        let v = area.clip(area.norm(&vh.bn, &x.apply(&vh.conv), train).relu_());
        let ownership = area.clip(v.apply(&vh.ownership)).view([n, s, s]);
        let h = area.value_pool(&v).apply(&vh.fc).relu_();
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

/// `t` (N × C × H × W) with the same shape and values, stored channels-last (NHWC): libtorch's
/// CPU convolutions then keep that layout from layer to layer.
fn to_channels_last(t: &Tensor) -> Tensor {
    t.permute([0, 2, 3, 1]).contiguous().permute([0, 3, 1, 2])
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
            let out = net.forward_t(&planes, &globals, Boards::Full, false);
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

    /// A net of `net`'s shape and weights for the same game on a `size` board.
    fn resized(net: &Network, rules: &Rules, size: u8) -> Network {
        let cfg = NetConfig::new(&Rules { size, ..*rules }, net.config().shape);
        let mut big = Network::new(cfg, Device::Cpu).unwrap();
        big.vs.copy(&net.vs).unwrap();
        big
    }

    /// Positions of one game under `rules`, a few turns apart.
    fn positions(rules: &Rules, count: usize) -> Vec<hane_engine::GameState> {
        use hane_engine::Game;
        let (mut g, mut out, mut legal) = (hane_engine::GameState::new(*rules), Vec::new(), Vec::new());
        for turn in 0..count * 3 {
            if g.is_over() {
                break;
            }
            if turn % 3 == 0 {
                out.push(g.clone());
            }
            legal.clear();
            g.legal_actions(&mut legal);
            g.play(legal[(turn * 7 + 3) % legal.len()]).unwrap();
        }
        out
    }

    /// The inputs of `states` for a net of side `size` and `action_space` entries.
    fn inputs(
        states: &[&hane_engine::GameState],
        cfg: &NetConfig,
    ) -> (Tensor, Tensor, hane_data::batch::BatchEncoder) {
        let mut enc = hane_data::batch::BatchEncoder::new(cfg.board_size, cfg.action_space);
        let n = enc.encode(states.iter().copied());
        let (p, g) = input_tensors(cfg, enc.planes(), enc.globals(), n, Device::Cpu);
        (p, g, enc)
    }

    fn close(a: f64, b: f64, what: &str) {
        assert!((a - b).abs() < 1e-4, "{what}: {a} against {b}");
    }

    #[test]
    fn a_smaller_board_in_a_padded_batch_gets_what_it_gets_at_its_own_size() {
        use hane_engine::Game;
        for rules in ["ttakji,size=5", "sligo,size=4", "loose,size=3"] {
            let rules: Rules = rules.parse().unwrap();
            let small = Network::new(tiny(&rules.to_string()), Device::Cpu).unwrap();
            let big = resized(&small, &rules, 7);
            let mine = positions(&rules, 3);
            let other = positions(&Rules { size: 7, ..rules }, 1);
            let mut batch: Vec<&hane_engine::GameState> = vec![&other[0]];
            batch.extend(mine.iter());
            let (p7, g7, e7) = inputs(&batch, big.config());
            assert!(e7.padded());
            let (p, g, e) = inputs(&mine.iter().collect::<Vec<_>>(), small.config());
            let padded = big.forward_t(&p7, &g7, Boards::Padded, false);
            let alone = small.forward_t(&p, &g, Boards::Full, false);
            let unmasked = big.forward_t(&p7, &g7, Boards::Full, false);
            let side = i64::from(rules.size);
            let mut masking_matters = false;
            for (k, state) in mine.iter().enumerate() {
                let (ki, bi) = (k as i64, k as i64 + 1);
                for j in 0..3 {
                    let (a, b) = (alone.wdl.double_value(&[ki, j]), padded.wdl.double_value(&[bi, j]));
                    close(a, b, &format!("{rules} position {k} wdl {j}"));
                    masking_matters |= (a - unmasked.wdl.double_value(&[bi, j])).abs() > 1e-3;
                }
                close(alone.score_mean.double_value(&[ki]), padded.score_mean.double_value(&[bi]), "score");
                let spread =
                    (alone.score_log_spread.double_value(&[ki]), padded.score_log_spread.double_value(&[bi]));
                close(spread.0, spread.1, "score spread");
                let mut legal = Vec::new();
                state.legal_actions(&mut legal);
                for &act in &legal {
                    let (i, j) = (e.entry(k, state, act) as i64, e7.entry(k + 1, state, act) as i64);
                    let (a, b) = (alone.policy.double_value(&[ki, i]), padded.policy.double_value(&[bi, j]));
                    close(a, b, &format!("{rules} position {k} {act:?}"));
                }
                for y in 0..side {
                    for x in 0..side {
                        let a = alone.ownership.double_value(&[ki, y, x]);
                        close(a, padded.ownership.double_value(&[bi, y, x]), "ownership");
                    }
                }
                // Off the board the policy has no weight.
                let off = e7.entry(k + 1, state, hane_engine::Action::Pass) as i64 - 1;
                assert_eq!(padded.policy.double_value(&[bi, off]), OFF_BOARD_LOGIT, "{rules}");
            }
            assert!(masking_matters, "{rules}: without the mask the padded boards read differently");
        }
    }

    #[test]
    fn batch_statistics_in_training_count_only_the_boards() {
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let small = Network::new(tiny(&rules.to_string()), Device::Cpu).unwrap();
        let big = resized(&small, &rules, 7);
        let mine = positions(&rules, 4);
        let batch: Vec<&hane_engine::GameState> = mine.iter().collect();
        let (p7, g7, _) = inputs(&batch, big.config());
        let (p, g, _) = inputs(&batch, small.config());
        let padded = big.forward_t(&p7, &g7, Boards::Padded, true);
        let alone = small.forward_t(&p, &g, Boards::Full, true);
        // The masked statistics are differentiable.
        (padded.wdl.sum(Kind::Float) + padded.policy.sum(Kind::Float)).backward();
        for k in 0..mine.len() as i64 {
            for j in 0..3 {
                close(alone.wdl.double_value(&[k, j]), padded.wdl.double_value(&[k, j]), "wdl in training");
            }
        }
        let stats = |net: &Network| -> Vec<f64> {
            let vars = net.vs.variables();
            let mut v = Vec::new();
            for name in ["trunk.0.bn1.running_mean", "trunk.1.pool.bn.running_var", "value.bn.running_var"] {
                let t = &vars[name];
                v.extend((0..t.size()[0]).map(|i| t.double_value(&[i])));
            }
            v
        };
        for (a, b) in stats(&small).into_iter().zip(stats(&big)) {
            close(a, b, "running statistics");
        }
    }
}
