//! Checkpoints: one `.safetensors` file per save, readable by Python's `safetensors`.
//!
//! The file holds the network's variables under their names (`stem.conv.weight`, ...), any
//! extra tensors of the caller (the trainer's optimizer buffers, under `optimizer.`), and in
//! the header's `__metadata__` map a JSON [`ModelMeta`] under the key `hane` (encoder
//! version, rule set, board size and net shape), plus the caller's extra entries.
//!
//! Files are written to a temporary name and renamed, so a crash leaves either the old file
//! or the new one. Reading checks everything before it is used: the header (by the
//! `safetensors` parser: offsets, sizes), the metadata, the net configuration's limits, and
//! every tensor's name, dtype and shape against the network built from it. A damaged or
//! foreign file is an [`NnError`], never a panic.

use crate::config::{same_game, NetConfig};
use crate::model::Network;
use crate::NnError;
use hane_data::features::ENCODER_VERSION;
use hane_engine::Rules;
use safetensors::{Dtype, SafeTensors, View};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use tch::{Device, Kind, Tensor};

/// Version of the checkpoint layout.
pub const FORMAT_VERSION: u32 = 1;
/// The `__metadata__` key holding the [`ModelMeta`] JSON.
pub const META_KEY: &str = "hane";
/// Prefix of tensors that belong to the trainer, not the network.
pub const OPTIMIZER_PREFIX: &str = "optimizer.";
/// Largest file accepted (a b64c512 net with optimizer state is well below).
const MAX_FILE_BYTES: u64 = 8 << 30;

/// What a checkpoint says about its network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelMeta {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// [`ENCODER_VERSION`] of the feature encoder the net was trained with.
    pub encoder_version: u32,
    /// Rule set the net plays (its string form; komi and turn cap do not matter).
    pub rules: String,
    /// Board size, action space, inputs and net shape.
    pub net: NetConfig,
}

impl ModelMeta {
    /// Metadata for a net of `net` playing `rules`, with the current encoder.
    pub fn new(rules: &Rules, net: NetConfig) -> ModelMeta {
        ModelMeta {
            format_version: FORMAT_VERSION,
            encoder_version: ENCODER_VERSION,
            rules: rules.to_string(),
            net,
        }
    }

    /// The rule set, parsed.
    pub fn parsed_rules(&self) -> Result<Rules, String> {
        self.rules.parse().map_err(|e| format!("rules {:?}: {e}", self.rules))
    }

    /// An error message unless this net plays `rules` (same game and board size).
    pub fn check_rules(&self, rules: &Rules) -> Result<(), String> {
        let mine = self.parsed_rules()?;
        if same_game(&mine, rules) {
            Ok(())
        } else {
            Err(format!("the net plays {} but {rules} was asked for", self.rules))
        }
    }
}

/// A checkpoint read into memory (tensors on the CPU).
#[derive(Debug)]
pub struct Checkpoint {
    /// Where it was read from.
    pub path: PathBuf,
    /// The network's metadata.
    pub meta: ModelMeta,
    /// Every tensor, by name.
    pub tensors: BTreeMap<String, Tensor>,
    /// Metadata entries other than [`META_KEY`].
    pub extra: BTreeMap<String, String>,
}

/// A tensor's bytes, for the safetensors writer.
struct Bytes {
    shape: Vec<usize>,
    data: Vec<u8>,
}

impl View for &Bytes {
    fn dtype(&self) -> Dtype {
        Dtype::F32
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.data)
    }
    fn data_len(&self) -> usize {
        self.data.len()
    }
}

fn to_bytes(t: &Tensor) -> Result<Bytes, NnError> {
    let t = t.f_to_device(Device::Cpu)?.f_to_kind(Kind::Float)?.f_contiguous()?;
    let numel = t.numel();
    let mut data = vec![0u8; numel * 4];
    t.f_copy_data_u8(&mut data, numel)?;
    Ok(Bytes { shape: t.size().iter().map(|&d| d as usize).collect(), data })
}

/// Writes a checkpoint atomically: `tensors` (float; moved to the CPU), `meta` and `extra`.
pub fn write(
    path: &Path,
    meta: &ModelMeta,
    tensors: &[(String, Tensor)],
    extra: &BTreeMap<String, String>,
) -> Result<(), NnError> {
    let bytes: Vec<(String, Bytes)> =
        tensors.iter().map(|(n, t)| Ok((n.clone(), to_bytes(t)?))).collect::<Result<_, NnError>>()?;
    let mut info: HashMap<String, String> = extra.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    info.insert(META_KEY.into(), serde_json::to_string(meta).expect("metadata serialises"));
    let data = safetensors::serialize(bytes.iter().map(|(n, b)| (n.as_str(), b)), &Some(info))
        .map_err(|e| NnError::Corrupt(path.to_path_buf(), format!("cannot serialise: {e}")))?;
    hane_data::shard::write_atomic(path, &data).map_err(|e| match e {
        hane_data::shard::ShardError::Io(p, e) => NnError::Io(p, e),
        other => NnError::Corrupt(path.to_path_buf(), other.to_string()),
    })
}

impl Checkpoint {
    /// Reads and checks a checkpoint file (format, metadata and tensor dtypes; the tensor
    /// shapes are checked against a network by [`Checkpoint::network`]).
    pub fn read(path: &Path) -> Result<Checkpoint, NnError> {
        let io = |e| NnError::Io(path.to_path_buf(), e);
        let bad = |m: String| NnError::Corrupt(path.to_path_buf(), m);
        let len = std::fs::metadata(path).map_err(io)?.len();
        if len > MAX_FILE_BYTES {
            return Err(bad(format!("{len} bytes is too large for a checkpoint")));
        }
        let buf = std::fs::read(path).map_err(io)?;
        let st = SafeTensors::deserialize(&buf).map_err(|e| bad(format!("not a safetensors file: {e:?}")))?;
        let (_, header) = SafeTensors::read_metadata(&buf).map_err(|e| bad(format!("{e:?}")))?;
        let mut extra: BTreeMap<String, String> =
            header.metadata().clone().unwrap_or_default().into_iter().collect();
        let json = extra
            .remove(META_KEY)
            .ok_or_else(|| bad(format!("no `{META_KEY}` metadata: not a hane checkpoint")))?;
        let meta: ModelMeta = serde_json::from_str(&json).map_err(|e| bad(format!("metadata: {e}")))?;
        if meta.format_version != FORMAT_VERSION {
            return Err(NnError::Mismatch(format!(
                "{}: checkpoint format {} (this build reads {FORMAT_VERSION})",
                path.display(),
                meta.format_version
            )));
        }
        let mut tensors = BTreeMap::new();
        for (name, view) in st.tensors() {
            if view.dtype() != Dtype::F32 {
                return Err(bad(format!("tensor {name} is {:?}, expected F32", view.dtype())));
            }
            let shape: Vec<i64> = view.shape().iter().map(|&d| d as i64).collect();
            tensors.insert(name, Tensor::f_from_data_size(view.data(), &shape, Kind::Float)?);
        }
        Ok(Checkpoint { path: path.to_path_buf(), meta, tensors, extra })
    }

    /// Builds the network the metadata describes on `device` and loads its variables,
    /// after checking the encoder version and every variable's presence and shape. Tensors
    /// other than the network's must be under [`OPTIMIZER_PREFIX`].
    pub fn network(&self, device: Device) -> Result<Network, NnError> {
        let bad = |m: String| NnError::Corrupt(self.path.clone(), m);
        if self.meta.encoder_version != ENCODER_VERSION {
            return Err(NnError::Mismatch(format!(
                "{}: trained with feature encoder version {}, this build encodes version {ENCODER_VERSION}",
                self.path.display(),
                self.meta.encoder_version
            )));
        }
        let rules = self.meta.parsed_rules().map_err(bad)?;
        self.meta.net.validate()?;
        if NetConfig::new(&rules, self.meta.net.shape) != self.meta.net {
            return Err(bad(format!(
                "net {:?} does not fit its rules {} and this encoder",
                self.meta.net, self.meta.rules
            )));
        }
        let net = Network::new(self.meta.net, device)?;
        let vars = net.named_variables();
        for (name, var) in &vars {
            let src = self.tensors.get(name).ok_or_else(|| bad(format!("tensor {name} is missing")))?;
            if src.size() != var.size() {
                return Err(bad(format!(
                    "tensor {name} has shape {:?}, the net needs {:?}",
                    src.size(),
                    var.size()
                )));
            }
        }
        for name in self.tensors.keys() {
            if !name.starts_with(OPTIMIZER_PREFIX) && !vars.iter().any(|(n, _)| n == name) {
                return Err(bad(format!("unexpected tensor {name}")));
            }
        }
        tch::no_grad(|| -> Result<(), NnError> {
            for (name, mut var) in vars {
                var.f_copy_(&self.tensors[&name])?;
            }
            Ok(())
        })?;
        Ok(net)
    }
}

impl Network {
    /// Saves the network alone (no optimizer state) as a checkpoint for `rules`.
    pub fn save(&self, path: &Path, rules: &Rules) -> Result<(), NnError> {
        write(path, &ModelMeta::new(rules, *self.config()), &self.named_variables(), &BTreeMap::new())
    }

    /// Loads a network for playing `rules` from a checkpoint on `device`: a net of another
    /// rule set or board size, or of another encoder version, is a [`NnError::Mismatch`].
    pub fn load(path: &Path, rules: &Rules, device: Device) -> Result<Network, NnError> {
        let ck = Checkpoint::read(path)?;
        ck.meta.check_rules(rules).map_err(|m| NnError::Mismatch(format!("{}: {m}", path.display())))?;
        ck.network(device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::NetShape;

    fn temp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hane-nn-ck-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn tiny(rules: &Rules) -> Network {
        // Two blocks, so that a plain block and a global pooling block are both covered.
        let shape = NetShape { blocks: 2, pool_every: 2, ..NetShape::tiny() };
        Network::new(NetConfig::new(rules, shape), Device::Cpu).unwrap()
    }

    #[test]
    fn save_and_load_round_trip_exactly() {
        let dir = temp("roundtrip");
        let rules: Rules = "sligo,size=5".parse().unwrap();
        tch::manual_seed(3);
        let net = tiny(&rules);
        // Make the batch-norm statistics non-trivial too (variances stay positive).
        tch::no_grad(|| {
            for (_, mut t) in net.named_variables() {
                t.copy_(&(t.rand_like() + 0.5));
            }
        });
        let path = dir.join("a.safetensors");
        net.save(&path, &rules).unwrap();
        let with_komi: Rules = "sligo,size=5,komi=0.5".parse().unwrap();
        let back = Network::load(&path, &with_komi, Device::Cpu).unwrap();
        assert_eq!(back.config(), net.config());
        let (a, b) = (net.named_variables(), back.named_variables());
        assert_eq!(a.len(), b.len());
        for ((na, ta), (nb, tb)) in a.iter().zip(&b) {
            assert_eq!(na, nb);
            assert!(ta.equal(tb), "{na} differs");
        }
        // Same outputs in inference mode.
        let planes = Tensor::rand([2, net.config().planes as i64, 5, 5], (Kind::Float, Device::Cpu)).round();
        let globals = Tensor::rand([2, net.config().globals as i64], (Kind::Float, Device::Cpu));
        let (oa, ob) = (net.forward_t(&planes, &globals, false), back.forward_t(&planes, &globals, false));
        assert!(oa.policy.equal(&ob.policy) && oa.wdl.equal(&ob.wdl) && oa.ownership.equal(&ob.ownership));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn mismatches_and_garbage_are_errors() {
        let dir = temp("bad");
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let net = tiny(&rules);
        let path = dir.join("a.safetensors");
        net.save(&path, &rules).unwrap();
        let msg =
            Network::load(&path, &"ttakji,size=7".parse().unwrap(), Device::Cpu).unwrap_err().to_string();
        assert!(msg.contains("plays ttakji,size=5"), "{msg}");
        assert!(Network::load(&path, &"loose,size=5".parse().unwrap(), Device::Cpu).is_err());

        // Another encoder version.
        let mut meta = ModelMeta::new(&rules, *net.config());
        meta.encoder_version += 1;
        let other = dir.join("b.safetensors");
        write(&other, &meta, &net.named_variables(), &BTreeMap::new()).unwrap();
        let msg = Network::load(&other, &rules, Device::Cpu).unwrap_err().to_string();
        assert!(msg.contains("encoder version"), "{msg}");

        // A tensor of the wrong shape, a missing one, an alien one.
        let meta = ModelMeta::new(&rules, *net.config());
        let mut vars = net.named_variables();
        vars[0].1 = Tensor::zeros([1], (Kind::Float, Device::Cpu));
        write(&other, &meta, &vars, &BTreeMap::new()).unwrap();
        assert!(Network::load(&other, &rules, Device::Cpu).unwrap_err().to_string().contains("shape"));
        let _ = vars.remove(0);
        write(&other, &meta, &vars, &BTreeMap::new()).unwrap();
        assert!(Network::load(&other, &rules, Device::Cpu).unwrap_err().to_string().contains("missing"));
        let mut vars = net.named_variables();
        vars.push(("evil".into(), Tensor::zeros([1], (Kind::Float, Device::Cpu))));
        write(&other, &meta, &vars, &BTreeMap::new()).unwrap();
        assert!(Network::load(&other, &rules, Device::Cpu).unwrap_err().to_string().contains("unexpected"));

        // A net shape that would need an absurd allocation is refused before building it.
        let mut huge = meta.clone();
        huge.net.shape.channels = 1 << 20;
        write(&other, &huge, &net.named_variables(), &BTreeMap::new()).unwrap();
        assert!(matches!(Network::load(&other, &rules, Device::Cpu), Err(NnError::Config(_))));

        // Truncations, bit flips and random bytes.
        let good = std::fs::read(&path).unwrap();
        let mut rng = hane_engine::rng::Rng::new(11);
        for cut in [0, 3, 8, 20, good.len() / 2, good.len() - 1] {
            std::fs::write(&other, &good[..cut]).unwrap();
            assert!(Network::load(&other, &rules, Device::Cpu).is_err(), "cut at {cut}");
        }
        for _ in 0..200 {
            let mut b = good.clone();
            let i = rng.below(b.len().min(4096));
            b[i] ^= 1 << rng.below(8);
            std::fs::write(&other, &b).unwrap();
            // A flip inside tensor data gives a valid file with other weights; anything
            // else must be refused. Either way: no panic.
            let _ = Network::load(&other, &rules, Device::Cpu);
        }
        let noise: Vec<u8> = (0..5000).map(|_| rng.below(256) as u8).collect();
        std::fs::write(&other, &noise).unwrap();
        assert!(Network::load(&other, &rules, Device::Cpu).is_err());
        std::fs::write(&other, b"\x10\0\0\0\0\0\0\0{\"a\":1}        ").unwrap();
        assert!(Network::load(&other, &rules, Device::Cpu).is_err());
        assert!(matches!(Network::load(&dir.join("absent"), &rules, Device::Cpu), Err(NnError::Io(..))));
        std::fs::remove_dir_all(&dir).ok();
    }
}
