//! The network as the search's [`Evaluator`]: one forward pass per batch of requests.
//!
//! Each call encodes the positions with [`hane_data::features::encode`], runs the net in
//! inference mode (running batch-norm statistics) with gradients off on the calling thread
//! (libtorch's grad mode is thread-local, so the guard is taken inside every call), and
//! turns the outputs into the search's view: a softmax over the *legal* actions only, the
//! win/draw/loss probabilities and the score in points, all for the side to move.
//!
//! With [`NetEvaluator::with_random_symmetries`] each position is shown to the net in one of
//! the eight board symmetries, picked by a hash of the position (so the choice is the same
//! however requests are batched), and the policy is mapped back (KataGo's `nnRandomize`): a
//! small net is not exactly symmetric, and a search that always looks through one
//! orientation keeps that orientation's mistakes, where the mistakes of eight orientations
//! mostly differ. Without it the net sees every position as it is.
//!
//! With [`NetEvaluator::with_fixed_batch`] every forward pass has the same number of rows,
//! the batch padded with zeros: libtorch's CPU kernels round differently for different batch
//! sizes (a position evaluated alone and in a batch of 64 gets results that differ in the
//! last bits), while for one shape a position's result does not depend on its companions. So
//! self-play, whose batch sizes vary with thread timing, gives the same games in every run.
//!
//! With [`NetEvaluator::with_precision`] the net's trunk computes in bf16 (see
//! [`crate::precision`]); the heads, and so everything returned, stay FP32.
//!
//! tch tensors are `Send` but not `Sync`, so an evaluator is owned by one inference thread;
//! run several evaluators (each with its own network) for several threads. Each sets
//! libtorch's thread count for its own thread ([`crate::init_threads`]).

use crate::model::{input_tensors, Boards, Network};
use crate::{NnError, Precision};
use hane_data::batch::BatchEncoder;
use hane_engine::{Game, GameState, Rules};
use hane_mcts::{EvalRequest, Evaluation, Evaluator};
use std::path::Path;
use tch::{Device, Kind, Tensor};

/// A [`Network`] answering batches of search requests.
#[derive(Debug)]
pub struct NetEvaluator {
    net: Network,
    /// The input buffers, symmetries and padding.
    input: BatchEncoder,
}

fn to_vec(t: &Tensor) -> Vec<f32> {
    Vec::<f32>::try_from(t.to_device(Device::Cpu).to_kind(Kind::Float).flatten(0, -1))
        .expect("float tensor converts")
}

/// Softmax of `logits` at `indices`, in that order.
fn softmax_at(logits: &[f32], indices: impl Iterator<Item = usize>) -> Vec<f32> {
    let picked: Vec<f32> = indices.map(|i| logits[i]).collect();
    let max = picked.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = picked.iter().map(|&x| (x - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    exp.into_iter().map(|e| e / sum).collect()
}

impl NetEvaluator {
    /// Wraps a network (on any device).
    pub fn new(net: Network) -> NetEvaluator {
        let cfg = net.config();
        NetEvaluator { input: BatchEncoder::new(cfg.board_size, cfg.action_space), net }
    }

    /// The same evaluator running every forward pass on at least `rows` rows, the batch
    /// padded with zeros (see the module docs): for self-play, with its batch size.
    pub fn with_fixed_batch(mut self, rows: usize) -> NetEvaluator {
        self.input = self.input.with_fixed_batch(rows);
        self
    }

    /// The same evaluator computing in `precision` on this machine (see [`crate::precision`]):
    /// the net's trunk is converted once, here.
    pub fn with_precision(self, precision: Precision) -> NetEvaluator {
        let trunk = crate::precision::resolve(precision, self.net.device()).trunk;
        NetEvaluator { net: self.net.for_inference(trunk), ..self }
    }

    /// The same evaluator showing each position to the net in a symmetry of its own (see the
    /// module docs).
    pub fn with_random_symmetries(mut self) -> NetEvaluator {
        self.input = self.input.with_random_symmetries();
        self
    }

    /// Loads the checkpoint at `path` for `rules` on `device` (see [`crate::device`]), after
    /// setting libtorch's threads for the calling thread ([`crate::init_threads`]). Call it on
    /// the inference thread that will own the evaluator.
    pub fn load(path: &Path, rules: &Rules, device: &str, threads: usize) -> Result<NetEvaluator, NnError> {
        crate::init_threads(threads);
        let device = crate::device(device)?;
        Ok(NetEvaluator::new(Network::load(path, rules, device)?))
    }

    /// The network.
    pub fn network(&self) -> &Network {
        &self.net
    }
}

impl Evaluator<GameState> for NetEvaluator {
    /// Evaluates the batch in one forward pass.
    ///
    /// # Panics
    /// If a position's board size or action space differs from the network's: the caller
    /// loads the net for its rule set ([`Network::load`]) and must not mix games.
    fn evaluate(&mut self, batch: &[EvalRequest<GameState>]) -> Vec<Evaluation> {
        if batch.is_empty() {
            return Vec::new();
        }
        let cfg = *self.net.config();
        let rows = self.input.encode(batch.iter().map(|r| &r.state));
        let (policy, wdl, score) = tch::no_grad(|| {
            let (planes, globals) =
                input_tensors(&cfg, self.input.planes(), self.input.globals(), rows, self.net.device());
            let boards = Boards::of(self.input.padded());
            let out = self.net.forward_t(&planes, &globals, boards, false);
            (to_vec(&out.policy), to_vec(&out.wdl.softmax(1, Kind::Float)), to_vec(&out.score_mean))
        });
        let m = cfg.action_space;
        let scale = cfg.score_scale() as f32;
        batch
            .iter()
            .enumerate()
            .map(|(k, r)| {
                let logits = &policy[k * m..(k + 1) * m];
                Evaluation {
                    policy: softmax_at(logits, r.legal.iter().map(|&a| self.input.entry(k, &r.state, a))),
                    wdl: [wdl[3 * k], wdl[3 * k + 1], wdl[3 * k + 2]],
                    score: score[k] * scale,
                }
            })
            .collect()
    }

    /// The net's ownership head for `state` as it stands (no symmetry): `tanh` of its logits,
    /// turned from the side to move's view into Black's; a board smaller than the net's is
    /// read from its corner.
    fn ownership(&mut self, state: &GameState) -> Option<Vec<f32>> {
        let cfg = *self.net.config();
        let mut input = BatchEncoder::new(cfg.board_size, cfg.action_space);
        input.encode(std::iter::once(state));
        let boards = Boards::of(input.padded());
        let own = tch::no_grad(|| {
            let (p, g) = input_tensors(&cfg, input.planes(), input.globals(), 1, self.net.device());
            to_vec(&self.net.forward_t(&p, &g, boards, false).ownership.tanh())
        });
        let sign = if state.to_move() == hane_engine::Color::Black { 1.0 } else { -1.0 };
        let side = state.geo().size();
        let rows = own.chunks_exact(cfg.board_size).take(side);
        Some(rows.flat_map(|row| row[..side].iter().map(move |&x| sign * x)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{NetConfig, NetShape};
    use hane_engine::Action;

    fn request(state: GameState) -> EvalRequest<GameState> {
        let mut legal: Vec<Action> = Vec::new();
        state.legal_actions(&mut legal);
        EvalRequest { state, legal }
    }

    #[test]
    fn a_random_symmetry_is_the_net_looking_at_the_moved_position() {
        use hane_engine::symmetry::Symmetry;
        // Not Sligo: after a slide, which of two turns with the same result is listed (the
        // lower slide target) depends on the orientation, and so does the legal-placement
        // plane of the moved game.
        for rules in ["ttakji,size=5", "brainking,size=5", "loose,size=5"] {
            let rules: Rules = rules.parse().unwrap();
            let net = Network::new(NetConfig::new(&rules, NetShape::tiny()), Device::Cpu).unwrap();
            let path =
                std::env::temp_dir().join(format!("hane-nn-sym-{}-{rules}.safetensors", std::process::id()));
            net.save(&path, &rules).unwrap();
            let mut plain = NetEvaluator::load(&path, &rules, "cpu", 0).unwrap();
            let mut sym = NetEvaluator::load(&path, &rules, "cpu", 0).unwrap().with_random_symmetries();
            std::fs::remove_file(&path).unwrap();
            let (mut g, mut actions) = (GameState::new(rules), Vec::new());
            let mut moved = 0;
            for turn in 0..12 {
                let s = sym.input.symmetry_of(&g);
                moved += usize::from(s != 0);
                // The same game with every action moved by the symmetry.
                let t = Symmetry::ALL[s];
                let mut h = GameState::new(rules);
                for &a in &actions {
                    h.play(t.apply_action(g.geo(), a)).unwrap();
                }
                let here = request(g.clone());
                let there = request(h);
                let a = &sym.evaluate(std::slice::from_ref(&here))[0];
                let b = &plain.evaluate(std::slice::from_ref(&there))[0];
                for k in 0..3 {
                    assert!((a.wdl[k] - b.wdl[k]).abs() < 1e-4, "{rules} turn {turn}");
                }
                for (i, &act) in here.legal.iter().enumerate() {
                    let j = there.legal.iter().position(|&x| x == t.apply_action(g.geo(), act)).unwrap();
                    assert!((a.policy[i] - b.policy[j]).abs() < 1e-4, "{rules} turn {turn}: {act:?}");
                }
                let next = here.legal[(turn * 7 + 3) % here.legal.len()];
                g.play(next).unwrap();
                actions.push(next);
                if g.is_over() {
                    break;
                }
            }
            assert!(moved > 0, "{rules}: some positions get a symmetry other than the identity");
        }
    }

    #[test]
    fn with_a_fixed_batch_a_position_is_evaluated_the_same_alone_or_among_others() {
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let shape = NetShape { blocks: 2, channels: 32, ..NetShape::tiny() };
        let net = Network::new(NetConfig::new(&rules, shape), Device::Cpu).unwrap();
        let mut ev = NetEvaluator::new(net).with_fixed_batch(64);
        let mut batch = Vec::new();
        let mut g = GameState::new(rules);
        for turn in 0..40 {
            batch.push(request(g.clone()));
            let legal = &batch[turn].legal;
            if g.play(legal[(turn * 7 + 3) % legal.len()]).is_err() || g.is_over() {
                break;
            }
        }
        let together = ev.evaluate(&batch);
        for (k, r) in batch.iter().enumerate().step_by(5) {
            let alone = &ev.evaluate(std::slice::from_ref(r))[0];
            assert_eq!(alone.wdl, together[k].wdl, "position {k}");
            assert_eq!(alone.policy, together[k].policy, "position {k}");
            assert_eq!(alone.score, together[k].score, "position {k}");
        }
    }

    #[test]
    fn evaluations_cover_exactly_the_legal_actions() {
        for rules in ["ttakji,size=5", "sligo,size=5", "loose,size=5"] {
            let rules: Rules = rules.parse().unwrap();
            let shape = NetShape::tiny();
            let net = Network::new(NetConfig::new(&rules, shape), Device::Cpu).unwrap();
            let path =
                std::env::temp_dir().join(format!("hane-nn-eval-{}-{rules}.safetensors", std::process::id()));
            net.save(&path, &rules).unwrap();
            let mut ev = NetEvaluator::load(&path, &rules, "cpu", 0).unwrap();
            std::fs::remove_file(&path).unwrap();
            let mut states = vec![GameState::new(rules)];
            let mut g = GameState::new(rules);
            let mut legal = Vec::new();
            g.legal_actions(&mut legal);
            g.play(legal[legal.len() / 2]).unwrap();
            states.push(g);
            let batch: Vec<EvalRequest<GameState>> = states
                .into_iter()
                .map(|state| {
                    let mut legal: Vec<Action> = Vec::new();
                    state.legal_actions(&mut legal);
                    EvalRequest { state, legal }
                })
                .collect();
            let evals = ev.evaluate(&batch);
            assert_eq!(evals.len(), 2);
            for (e, r) in evals.iter().zip(&batch) {
                assert_eq!(e.policy.len(), r.legal.len());
                assert!((e.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                assert!(e.policy.iter().all(|p| p.is_finite() && *p >= 0.0));
                assert!((e.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                assert!(e.score.is_finite());
            }
            assert!(ev.evaluate(&[]).is_empty());
        }
    }

    #[test]
    fn bf16_agrees_with_fp32_up_to_its_rounding() {
        // A narrow trunk and a wide one.
        let (rules, batch) = mixed_batch();
        for channels in [32, 96] {
            let shape = NetShape { blocks: 3, channels, pool_every: 2, ..NetShape::tiny() };
            let net = Network::new(NetConfig::new(&rules, shape), Device::Cpu).unwrap();
            let path = std::env::temp_dir()
                .join(format!("hane-nn-bf16-{}-{channels}.safetensors", std::process::id()));
            net.save(&path, &rules).unwrap();
            let load = |p| NetEvaluator::load(&path, &rules, "cpu", 1).unwrap().with_precision(p);
            let (mut fp32, mut bf16) = (load(Precision::Fp32), load(Precision::Bf16));
            std::fs::remove_file(&path).unwrap();
            assert_eq!(fp32.network().trunk_kind(), Kind::Float);
            assert_eq!(bf16.network().trunk_kind(), Kind::BFloat16);
            let (a, b) = (fp32.evaluate(&batch), bf16.evaluate(&batch));
            let (mut policy, mut wdl, mut score) = (0f32, 0f32, 0f32);
            for (x, y) in a.iter().zip(&b) {
                assert!((y.policy.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                assert!((y.wdl.iter().sum::<f32>() - 1.0).abs() < 1e-4);
                policy = x.policy.iter().zip(&y.policy).map(|(p, q)| (p - q).abs()).fold(policy, f32::max);
                wdl = x.wdl.iter().zip(&y.wdl).map(|(p, q)| (p - q).abs()).fold(wdl, f32::max);
                score = score.max((x.score - y.score).abs());
            }
            let what = format!("{channels} channels: policy {policy}, wdl {wdl}, score {score}");
            assert!(policy > 0.0 || wdl > 0.0, "{what}: the bf16 copy computes in bf16");
            assert!(policy < 0.01 && wdl < 0.005 && score < 0.05, "{what}");
        }
    }

    /// 7x7 positions and, in the same batch, 5x5 ones in the corner (the masked path).
    fn mixed_batch() -> (Rules, Vec<EvalRequest<GameState>>) {
        let rules: Rules = "ttakji,size=7".parse().unwrap();
        let mut batch = Vec::new();
        for rules in [rules, "ttakji,size=5".parse().unwrap()] {
            let mut g = GameState::new(rules);
            for turn in 0..30 {
                batch.push(request(g.clone()));
                let legal = &batch.last().unwrap().legal;
                if g.play(legal[(turn * 7 + 3) % legal.len()]).is_err() || g.is_over() {
                    break;
                }
            }
        }
        (rules, batch)
    }

    #[test]
    fn an_fp32_copy_channels_last_agrees_with_the_training_layout() {
        // The inference copy on a CPU runs channels-last; the net as trained does not. Only the
        // order of the sums may differ.
        let (rules, batch) = mixed_batch();
        let shape = NetShape { blocks: 3, channels: 32, pool_every: 2, ..NetShape::tiny() };
        let net = Network::new(NetConfig::new(&rules, shape), Device::Cpu).unwrap();
        let path = std::env::temp_dir().join(format!("hane-nn-layout-{}.safetensors", std::process::id()));
        net.save(&path, &rules).unwrap();
        let mut plain = NetEvaluator::new(net);
        let mut copy = NetEvaluator::load(&path, &rules, "cpu", 1).unwrap().with_precision(Precision::Fp32);
        std::fs::remove_file(&path).unwrap();
        assert!(copy.network().channels_last() && !plain.network().channels_last());
        let (a, b) = (plain.evaluate(&batch), copy.evaluate(&batch));
        let mut most = 0f32;
        for (x, y) in a.iter().zip(&b) {
            let pairs = x.policy.iter().zip(&y.policy).chain(x.wdl.iter().zip(&y.wdl));
            most = pairs.map(|(p, q)| (p - q).abs()).fold(most, f32::max).max((x.score - y.score).abs());
        }
        assert!(most < 1e-4, "largest difference {most}");
    }

    #[test]
    fn an_evaluator_can_move_to_its_inference_thread() {
        fn send<T: Send>() {}
        send::<NetEvaluator>();
    }

    #[test]
    fn softmax_over_a_subset() {
        let p = softmax_at(&[0.0, 100.0, (2.0f32).ln(), 0.0], [0usize, 2, 3].into_iter());
        assert!((p[0] - 0.25).abs() < 1e-6 && (p[1] - 0.5).abs() < 1e-6 && (p[2] - 0.25).abs() < 1e-6);
    }

    #[test]
    fn ownership_is_the_heads_tanh_in_blacks_view() {
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let cfg = NetConfig::new(&rules, NetShape::tiny());
        let mut ev = NetEvaluator::new(Network::new(cfg, Device::Cpu).unwrap());
        let mut g = GameState::new(rules);
        g.play(Action::Place(g.geo().parse("C3").unwrap())).unwrap();
        let own = ev.ownership(&g).expect("a net predicts ownership");
        let (p, gl) = hane_data::features::encode(&g);
        let (p, gl) = input_tensors(&cfg, &p, &gl, 1, Device::Cpu);
        let raw = to_vec(&ev.net.forward_t(&p, &gl, Boards::Full, false).ownership.tanh());
        assert_eq!(own.len(), 25);
        for (o, r) in own.iter().zip(&raw) {
            assert!((o + r).abs() < 1e-6, "White moves: the head's view is White's, flipped for Black");
        }
    }
}
