//! Checkpoints: one `.safetensors` file per save, readable by Python's `safetensors`.
//!
//! The file holds the network's variables under their names (`stem.conv.weight`, ...), any
//! extra tensors of the caller (the trainer's optimizer buffers, under `optimizer.`), and in
//! the header's `__metadata__` map a JSON [`ModelMeta`] under the key `hane` (encoder
//! version, rule set, board size and net shape), plus the caller's extra entries and, under
//! [`CHECKSUM_KEY`], a CRC-32 over all of that and every tensor (see [`FORMAT_VERSION`]).
//!
//! Files are written to a temporary name and renamed, so a crash leaves either the old file
//! or the new one. Reading checks everything before it is used: the header (by the
//! `safetensors` parser: offsets, sizes), the checksum, that every value is finite, the
//! metadata, the net configuration's limits, and every tensor's name, dtype and shape against
//! the network built from it. A damaged or foreign file is an [`NnError`], never a panic.
//!
//! The checksum catches what the parser cannot: a flipped bit in the tensor data leaves a
//! well-formed file with other weights, which would play (or train) on silently. The finite
//! check catches what the checksum cannot: a net that diverged checksums its NaN faithfully,
//! and a search on NaN values still picks moves. Writing refuses non-finite tensors too, so
//! no checkpoint of a diverged net is ever written.

use crate::config::NetConfig;
use crate::model::Network;
use crate::NnError;
use hane_data::features::ENCODER_VERSION;
use hane_data::npz::Crc32;
use hane_engine::range::Invalid;
use hane_engine::{PolicyLayout, Rules};
use hane_host::read::{self, ReadError};
use hane_host::show::list;
use safetensors::{Dtype, SafeTensors, View};
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use tch::{Device, Kind, Tensor};

/// Version of the checkpoint layout. Version 2 added the checksum under [`CHECKSUM_KEY`] and
/// requires it.
///
/// Version 1 files, written before checkpoints had a checksum, still load: their values are
/// checked finite, but their bytes cannot be verified. Refusing them would strand every
/// earlier run (its resumable trainer state, its generations' nets) for a check those files
/// never had a chance to pass. The version is still bumped, rather than the checksum made
/// optional, so that a damaged version 2 file that lost its checksum entry is refused
/// instead of passing as an old one; a build from before version 2 refuses version 2 files
/// by their version, with a clear message.
pub const FORMAT_VERSION: u32 = 2;
/// The `__metadata__` key holding the [`ModelMeta`] JSON.
pub const META_KEY: &str = "hane";
/// The `__metadata__` key holding the checksum: the CRC-32 ([`hane_data::npz::Crc32`], the
/// shards' checksum) of every other metadata entry, key and value, in key order, then of
/// every tensor's name, shape and little-endian bytes, in name order; lengths come before
/// strings and lists, so no two contents feed it the same bytes. Eight hexadecimal digits.
pub const CHECKSUM_KEY: &str = "hane_crc32";
/// Prefix of tensors that belong to the trainer, not the network.
pub const OPTIMIZER_PREFIX: &str = "optimizer.";
/// What a checkpoint says about its network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelMeta {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// [`ENCODER_VERSION`] of the feature encoder the net was trained with.
    pub encoder_version: u32,
    /// [`PolicyLayout::VERSION`] of the policy output's order (checkpoints written before it
    /// was stored have none: version 1).
    #[serde(default = "hane_data::shard::first_version")]
    pub policy_layout: u32,
    /// Rule set the net plays (its string form; komi and turn cap do not matter).
    pub rules: String,
    /// Board size, action space, inputs and net shape.
    pub net: NetConfig,
    /// The board sizes the net was trained on when they are several (one net for several
    /// sizes, `crate::Boards`); empty (and not written): the net's own size alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<u8>,
}

impl ModelMeta {
    /// Metadata for a net of `net` playing `rules`, with the current encoder.
    pub fn new(rules: &Rules, net: NetConfig) -> ModelMeta {
        ModelMeta {
            format_version: FORMAT_VERSION,
            encoder_version: ENCODER_VERSION,
            policy_layout: PolicyLayout::VERSION,
            rules: rules.to_string(),
            net,
            sizes: Vec::new(),
        }
    }

    /// The board sizes the net plays: [`ModelMeta::sizes`], or its own size.
    pub fn board_sizes(&self) -> Vec<u8> {
        if self.sizes.is_empty() {
            u8::try_from(self.net.board_size).map_or_else(|_| Vec::new(), |s| vec![s])
        } else {
            self.sizes.clone()
        }
    }

    /// The rule set, parsed.
    pub fn parsed_rules(&self) -> Result<Rules, Invalid> {
        self.rules.parse().map_err(|e| Invalid(format!("rules \"{}\": {e}", self.rules.escape_debug())))
    }

    /// An error message unless this net plays `rules`: its game on one of its
    /// [`ModelMeta::board_sizes`] (a smaller one in the corner of its board).
    pub fn check_rules(&self, rules: &Rules) -> Result<(), Invalid> {
        let mine = self.parsed_rules()?;
        if (Rules { size: mine.size, ..*rules }).same_game(&mine) && self.board_sizes().contains(&rules.size)
        {
            Ok(())
        } else {
            let sizes: Vec<String> = self.board_sizes().iter().map(|s| format!("{s}x{s}")).collect();
            Err(Invalid(format!(
                "the net plays {} on {} but {rules} was asked for",
                self.rules,
                sizes.join(", ")
            )))
        }
    }
}

/// A checkpoint read into memory (tensors on the CPU), verified and finite.
#[derive(Debug)]
pub struct Checkpoint {
    /// Where it was read from.
    pub path: PathBuf,
    /// The network's metadata.
    pub meta: ModelMeta,
    /// Every tensor, by name.
    pub tensors: BTreeMap<String, Tensor>,
    /// Metadata entries other than [`META_KEY`] and [`CHECKSUM_KEY`].
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

/// See [`CHECKSUM_KEY`]; `tensors` in name order.
fn checksum<'a>(
    metadata: &BTreeMap<String, String>,
    tensors: impl Iterator<Item = (&'a str, &'a [usize], &'a [u8])>,
) -> u32 {
    let mut crc = Crc32::new();
    let mut feed = |bytes: &[u8]| {
        crc.update(&(bytes.len() as u64).to_le_bytes());
        crc.update(bytes);
    };
    for (k, v) in metadata {
        feed(k.as_bytes());
        feed(v.as_bytes());
    }
    for (name, shape, data) in tensors {
        feed(name.as_bytes());
        feed(&shape.iter().flat_map(|&d| (d as u64).to_le_bytes()).collect::<Vec<u8>>());
        feed(data);
    }
    crc.sum()
}

/// How many of the little-endian `f32` values in `data` are NaN or infinite.
fn non_finite(data: &[u8]) -> usize {
    data.chunks_exact(4).filter(|c| !f32::from_le_bytes([c[0], c[1], c[2], c[3]]).is_finite()).count()
}

fn to_bytes(t: &Tensor) -> Result<Bytes, NnError> {
    let t = t.f_to_device(Device::Cpu)?.f_to_kind(Kind::Float)?.f_contiguous()?;
    let numel = t.numel();
    let mut data = vec![0u8; numel * 4];
    t.f_copy_data_u8(&mut data, numel)?;
    Ok(Bytes { shape: t.size().iter().map(|&d| d as usize).collect(), data })
}

/// Writes a checkpoint atomically: `tensors` (float; moved to the CPU), `meta`, `extra` and
/// the checksum. A tensor with a NaN or infinite value is [`NnError::NonFinite`], and
/// nothing is written.
pub fn write(
    path: &Path,
    meta: &ModelMeta,
    tensors: &[(String, Tensor)],
    extra: &BTreeMap<String, String>,
) -> Result<(), NnError> {
    let mut bytes: Vec<(String, Bytes)> =
        tensors.iter().map(|(n, t)| Ok((n.clone(), to_bytes(t)?))).collect::<Result<_, NnError>>()?;
    bytes.sort_by(|a, b| a.0.cmp(&b.0));
    if let Some((name, count)) = bytes.iter().map(|(n, b)| (n, non_finite(&b.data))).find(|c| c.1 > 0) {
        return Err(NnError::NonFinite { path: path.to_path_buf(), tensor: name.clone(), count });
    }
    let mut info = extra.clone();
    info.insert(META_KEY.into(), serde_json::to_string(meta).expect("metadata serialises"));
    let crc = checksum(&info, bytes.iter().map(|(n, b)| (n.as_str(), b.shape.as_slice(), b.data.as_slice())));
    let mut info: HashMap<String, String> = info.into_iter().collect();
    info.insert(CHECKSUM_KEY.into(), format!("{crc:08x}"));
    let data = safetensors::serialize(bytes.iter().map(|(n, b)| (n.as_str(), b)), &Some(info))
        .map_err(|e| NnError::Corrupt(path.to_path_buf(), format!("cannot serialise: {e}")))?;
    hane_data::shard::write_atomic(path, &data).map_err(|e| match e {
        hane_data::shard::ShardError::Io(p, e) => NnError::Io(p, e),
        other => NnError::Corrupt(path.to_path_buf(), other.to_string()),
    })
}

impl Checkpoint {
    /// Reads and checks a checkpoint file (format, metadata, checksum, tensor dtypes and
    /// finite values; the tensor shapes are checked against a network by
    /// [`Checkpoint::network`]). A file whose bytes differ from those written is
    /// [`NnError::Corrupt`], one with a NaN or infinite value [`NnError::NonFinite`].
    pub fn read(path: &Path) -> Result<Checkpoint, NnError> {
        let io = |e| NnError::Io(path.to_path_buf(), e);
        let bad = |m: String| NnError::Corrupt(path.to_path_buf(), m);
        let buf = read::read(path, read::CHECKPOINT).map_err(|e| match e {
            ReadError::Io(_, e) => io(e),
            other => bad(other.why()),
        })?;
        let st = SafeTensors::deserialize(&buf).map_err(|e| bad(format!("not a safetensors file: {e}")))?;
        let (_, header) = SafeTensors::read_metadata(&buf).map_err(|e| bad(e.to_string()))?;
        let mut extra: BTreeMap<String, String> =
            header.metadata().clone().unwrap_or_default().into_iter().collect();
        let json = extra
            .remove(META_KEY)
            .ok_or_else(|| bad(format!("no `{META_KEY}` metadata: not a hane checkpoint")))?;
        let meta: ModelMeta = serde_json::from_str(&json).map_err(|e| bad(format!("metadata: {e}")))?;
        if !(1..=FORMAT_VERSION).contains(&meta.format_version) {
            return Err(NnError::Mismatch(format!(
                "{}: checkpoint format {} (this build reads 1 to {FORMAT_VERSION})",
                path.display(),
                meta.format_version
            )));
        }
        let stored = extra.remove(CHECKSUM_KEY);
        let mut views = st.tensors();
        views.sort_by(|a, b| a.0.cmp(&b.0));
        if meta.format_version >= 2 {
            let stored = stored
                .and_then(|s| u32::from_str_radix(&s, 16).ok())
                .ok_or_else(|| bad(format!("no valid `{CHECKSUM_KEY}` checksum")))?;
            let mut covered = extra.clone();
            covered.insert(META_KEY.into(), json);
            let crc = checksum(&covered, views.iter().map(|(n, v)| (n.as_str(), v.shape(), v.data())));
            if crc != stored {
                return Err(bad(format!(
                    "checksum mismatch (stored {stored:08x}, computed {crc:08x}): the file was damaged after it was written"
                )));
            }
        }
        let mut tensors = BTreeMap::new();
        for (name, view) in views {
            if view.dtype() != Dtype::F32 {
                // debug-format: safetensors' Dtype has no Display; its Debug is the type's name.
                return Err(bad(format!("tensor {name} is {:?}, expected F32", view.dtype())));
            }
            let count = non_finite(view.data());
            if count > 0 {
                return Err(NnError::NonFinite { path: path.to_path_buf(), tensor: name, count });
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
        self.network_sized(None, device)
    }

    /// The same net built for the board `size` of its game: no weight depends on the board
    /// size, so a net trained on one size continues on another ([`crate::Boards`]).
    pub fn network_for_size(&self, size: u8, device: Device) -> Result<Network, NnError> {
        self.network_sized(Some(size), device)
    }

    fn network_sized(&self, size: Option<u8>, device: Device) -> Result<Network, NnError> {
        let bad = |m: String| NnError::Corrupt(self.path.clone(), m);
        if self.meta.encoder_version != ENCODER_VERSION {
            return Err(NnError::Mismatch(format!(
                "{}: trained with feature encoder version {}, this build encodes version {ENCODER_VERSION}",
                self.path.display(),
                self.meta.encoder_version
            )));
        }
        if self.meta.policy_layout != PolicyLayout::VERSION {
            return Err(NnError::Mismatch(format!(
                "{}: its policy has layout version {}, this build orders policies by version {}",
                self.path.display(),
                self.meta.policy_layout,
                PolicyLayout::VERSION
            )));
        }
        let rules = self.meta.parsed_rules().map_err(|e| bad(e.0))?;
        self.meta.net.validate()?;
        if NetConfig::new(&rules, self.meta.net.shape) != self.meta.net {
            return Err(bad(format!(
                "net {} does not fit its rules {} and this encoder",
                self.meta.net, self.meta.rules
            )));
        }
        if let Some(&size) = self.meta.sizes.iter().find(|&&s| !(2..=rules.size).contains(&s)) {
            return Err(bad(format!("it claims board size {size}, outside 2..={} of its net", rules.size)));
        }
        if !self.meta.sizes.is_empty() && !self.meta.sizes.contains(&rules.size) {
            return Err(bad(format!(
                "its board sizes {} leave out its net's own, {}",
                list(&self.meta.sizes),
                rules.size
            )));
        }
        // A net larger than the file's tensors is refused before it is built: a small file
        // claiming a huge net would otherwise cost that allocation first. One no larger costs
        // no more than the tensors already read, and is checked tensor by tensor below.
        let claimed = crate::model::value_count(&self.meta.net);
        let stored: usize = self
            .tensors
            .iter()
            .filter(|(n, _)| !n.starts_with(OPTIMIZER_PREFIX))
            .map(|(_, t)| t.numel())
            .sum();
        if claimed > stored {
            return Err(bad(format!(
                "its metadata describes a {} net of {claimed} values, more than its tensors hold ({stored})",
                self.meta.net.shape.name()
            )));
        }
        let config = match size {
            Some(size) => NetConfig::new(&Rules { size, ..rules }, self.meta.net.shape),
            None => self.meta.net,
        };
        let net = Network::new(config, device)?;
        let vars = net.named_variables();
        for (name, var) in &vars {
            let src = self.tensors.get(name).ok_or_else(|| bad(format!("tensor {name} is missing")))?;
            if src.size() != var.size() {
                return Err(bad(format!(
                    "tensor {name} has shape [{}], the net needs [{}]",
                    list(&src.size()),
                    list(&var.size())
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

/// Writes the element-wise mean of the network tensors of `inputs`, checkpoints of one
/// network (the same metadata), to `out`: batch-norm statistics included, with the first
/// one's metadata and extra entries and no optimizer state. A weight average of a run's last
/// nets (as KataGo's released nets are averages of their last weights) is steadier than any
/// one of them.
pub fn write_mean(out: &Path, inputs: &[PathBuf]) -> Result<(), NnError> {
    let nets = inputs.iter().map(|p| Checkpoint::read(p)).collect::<Result<Vec<_>, _>>()?;
    let Some(first) = nets.first() else {
        return Err(NnError::Mismatch("no checkpoint to average".into()));
    };
    if let Some(other) = nets.iter().find(|n| n.meta != first.meta) {
        return Err(NnError::Mismatch(format!(
            "{} is another net than {}: only checkpoints of one net average",
            other.path.display(),
            first.path.display()
        )));
    }
    let mut tensors = Vec::new();
    for (name, t) in first.tensors.iter().filter(|(n, _)| !n.starts_with(OPTIMIZER_PREFIX)) {
        let mut sum = t.copy();
        for net in &nets[1..] {
            let other = net.tensors.get(name).filter(|o| o.size() == t.size()).ok_or_else(|| {
                NnError::Mismatch(format!(
                    "{}: no tensor {name} of the first one's shape",
                    net.path.display()
                ))
            })?;
            sum += other;
        }
        tensors.push((name.clone(), sum / nets.len() as f64));
    }
    write(out, &first.meta, &tensors, &first.extra)
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
    use crate::model::Boards;

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
        let (oa, ob) = (
            net.forward_t(&planes, &globals, Boards::Full, false),
            back.forward_t(&planes, &globals, Boards::Full, false),
        );
        assert!(oa.policy.equal(&ob.policy) && oa.wdl.equal(&ob.wdl) && oa.ownership.equal(&ob.ownership));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_mean_of_checkpoints_is_the_mean_of_their_weights() {
        let dir = temp("mean");
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        tch::manual_seed(5);
        let (a, b) = (tiny(&rules), tiny(&rules));
        tch::no_grad(|| {
            for (_, mut t) in b.named_variables() {
                t.copy_(&(t.rand_like() + 0.5));
            }
        });
        let paths = [dir.join("a.safetensors"), dir.join("b.safetensors")];
        a.save(&paths[0], &rules).unwrap();
        b.save(&paths[1], &rules).unwrap();
        let out = dir.join("mean.safetensors");
        write_mean(&out, &paths).unwrap();
        let mean = Network::load(&out, &rules, Device::Cpu).unwrap();
        for (((name, m), (_, x)), (_, y)) in
            mean.named_variables().iter().zip(&a.named_variables()).zip(&b.named_variables())
        {
            let want: Tensor = (x + y) / 2.0;
            assert!(m.allclose(&want, 1e-6, 1e-6, false), "{name}");
        }
        // Nets of another shape or rule set do not average.
        let other = dir.join("c.safetensors");
        tiny(&"ttakji,size=7".parse().unwrap()).save(&other, &"ttakji,size=7".parse().unwrap()).unwrap();
        let msg = write_mean(&out, &[paths[0].clone(), other]).unwrap_err().to_string();
        assert!(msg.contains("another net"), "{msg}");
        assert!(write_mean(&out, &[]).is_err());
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

        // Board sizes the net cannot play, or without its own.
        for sizes in [vec![5, 9], vec![1, 5], vec![3]] {
            let meta = ModelMeta { sizes: sizes.clone(), ..ModelMeta::new(&rules, *net.config()) };
            write(&other, &meta, &net.named_variables(), &BTreeMap::new()).unwrap();
            let msg = Network::load(&other, &rules, Device::Cpu).unwrap_err().to_string();
            assert!(
                ["board size", "leave out", "on 3x3 but"].iter().any(|m| msg.contains(m)),
                "{sizes:?}: {msg}"
            );
        }
        let meta = ModelMeta { sizes: vec![3, 5], ..ModelMeta::new(&rules, *net.config()) };
        write(&other, &meta, &net.named_variables(), &BTreeMap::new()).unwrap();
        Network::load(&other, &"ttakji,size=3".parse().unwrap(), Device::Cpu).unwrap();
        let msg =
            Network::load(&other, &"ttakji,size=4".parse().unwrap(), Device::Cpu).unwrap_err().to_string();
        assert!(msg.contains("on 3x3, 5x5"), "{msg}");

        // Another policy layout.
        let mut meta = ModelMeta::new(&rules, *net.config());
        meta.policy_layout += 1;
        write(&other, &meta, &net.named_variables(), &BTreeMap::new()).unwrap();
        let msg = Network::load(&other, &rules, Device::Cpu).unwrap_err().to_string();
        assert!(msg.contains("policy has layout version 2"), "{msg}");

        // A tensor of the wrong shape, a missing one, an alien one (the net's number of
        // values in all: fewer are refused before the net is built, see below).
        let meta = ModelMeta::new(&rules, *net.config());
        let mut vars = net.named_variables();
        vars[0].1 = vars[0].1.reshape([1, -1]);
        write(&other, &meta, &vars, &BTreeMap::new()).unwrap();
        assert!(Network::load(&other, &rules, Device::Cpu).unwrap_err().to_string().contains("shape"));
        let (_, first) = vars.remove(0);
        vars.push(("evil".into(), first));
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
            // Header or tensor data: every flip is refused (the checksum covers what the
            // parser cannot check), and none panics.
            let mut b = good.clone();
            let i = rng.below(b.len());
            b[i] ^= 1 << rng.below(8);
            std::fs::write(&other, &b).unwrap();
            assert!(Network::load(&other, &rules, Device::Cpu).is_err(), "flip at byte {i} of {}", b.len());
        }
        let noise: Vec<u8> = (0..5000).map(|_| rng.below(256) as u8).collect();
        std::fs::write(&other, &noise).unwrap();
        assert!(Network::load(&other, &rules, Device::Cpu).is_err());
        std::fs::write(&other, b"\x10\0\0\0\0\0\0\0{\"a\":1}        ").unwrap();
        assert!(Network::load(&other, &rules, Device::Cpu).is_err());
        assert!(matches!(Network::load(&dir.join("absent"), &rules, Device::Cpu), Err(NnError::Io(..))));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Rewrites the checkpoint `from` into `to` after `edit` changed its metadata (checksum
    /// removed) and tensors (in name order); `seal` adds the checksum of the result, as a
    /// writer would.
    fn rewrite(
        from: &Path,
        to: &Path,
        seal: bool,
        edit: impl FnOnce(&mut BTreeMap<String, String>, &mut Vec<(String, Bytes)>),
    ) {
        let buf = std::fs::read(from).unwrap();
        let st = SafeTensors::deserialize(&buf).unwrap();
        let (_, header) = SafeTensors::read_metadata(&buf).unwrap();
        let mut info: BTreeMap<String, String> = header.metadata().clone().unwrap().into_iter().collect();
        info.remove(CHECKSUM_KEY);
        let mut tensors: Vec<(String, Bytes)> = st
            .tensors()
            .into_iter()
            .map(|(n, v)| (n, Bytes { shape: v.shape().to_vec(), data: v.data().to_vec() }))
            .collect();
        tensors.sort_by(|a, b| a.0.cmp(&b.0));
        edit(&mut info, &mut tensors);
        let crc =
            checksum(&info, tensors.iter().map(|(n, b)| (n.as_str(), b.shape.as_slice(), b.data.as_slice())));
        let mut info: HashMap<String, String> = info.into_iter().collect();
        if seal {
            info.insert(CHECKSUM_KEY.into(), format!("{crc:08x}"));
        }
        let data = safetensors::serialize(tensors.iter().map(|(n, b)| (n.as_str(), b)), &Some(info)).unwrap();
        std::fs::write(to, data).unwrap();
    }

    /// Sets the `hane` metadata's format version.
    fn set_version(info: &mut BTreeMap<String, String>, version: u32) {
        let mut meta: ModelMeta = serde_json::from_str(&info[META_KEY]).unwrap();
        meta.format_version = version;
        info.insert(META_KEY.into(), serde_json::to_string(&meta).unwrap());
    }

    /// Makes the first value of the tensor `name` NaN.
    fn poison(tensors: &mut [(String, Bytes)], name: &str) {
        let t = tensors.iter_mut().find(|t| t.0 == name).unwrap();
        t.1.data[..4].copy_from_slice(&f32::NAN.to_le_bytes());
    }

    #[test]
    fn a_small_file_claiming_a_huge_net_is_refused_before_it_is_built() {
        let dir = temp("claim");
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let good = dir.join("good.safetensors");
        tiny(&rules).save(&good, &rules).unwrap();
        let huge = dir.join("huge.safetensors");
        rewrite(&good, &huge, true, |info, _| {
            let mut meta: ModelMeta = serde_json::from_str(&info[META_KEY]).unwrap();
            meta.net.shape = NetShape { blocks: 64, channels: 512, ..meta.net.shape };
            info.insert(META_KEY.into(), serde_json::to_string(&meta).unwrap());
        });
        let t = std::time::Instant::now();
        let err = Network::load(&huge, &rules, Device::Cpu).unwrap_err();
        assert!(t.elapsed() < std::time::Duration::from_millis(500), "took {:?}", t.elapsed());
        let msg = err.to_string();
        assert!(matches!(err, NnError::Corrupt(..)), "{msg}");
        assert!(
            msg.contains("describes a b64c512 net of") && msg.contains("more than its tensors hold"),
            "{msg}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_flipped_byte_in_the_tensor_data_is_refused_by_name() {
        let dir = temp("flip");
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let path = dir.join("net.safetensors");
        tiny(&rules).save(&path, &rules).unwrap();
        let mut bytes = std::fs::read(&path).unwrap();
        // The last byte belongs to the last tensor's data: the file stays well-formed.
        *bytes.last_mut().unwrap() ^= 0x10;
        std::fs::write(&path, &bytes).unwrap();
        let err = Network::load(&path, &rules, Device::Cpu).unwrap_err();
        let msg = err.to_string();
        println!("{msg}");
        assert!(matches!(err, NnError::Corrupt(..)), "{msg}");
        assert!(msg.starts_with(&path.display().to_string()) && msg.contains("checksum mismatch"), "{msg}");
        assert!(Checkpoint::read(&path).is_err(), "every reader verifies it");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn nan_weights_are_neither_written_nor_read() {
        let dir = temp("nan");
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let net = tiny(&rules);
        let good = dir.join("good.safetensors");
        net.save(&good, &rules).unwrap();

        // Writing: refused, and no file appears.
        let mut vars = net.named_variables();
        let name = vars[3].0.clone();
        vars[3].1 = vars[3].1.copy().fill_(f64::INFINITY);
        let refused = dir.join("refused.safetensors");
        let meta = ModelMeta::new(&rules, *net.config());
        let err = write(&refused, &meta, &vars, &BTreeMap::new()).unwrap_err();
        let count = vars[3].1.numel();
        assert!(
            matches!(&err, NnError::NonFinite { tensor, count: c, .. } if *tensor == name && *c == count),
            "{err}"
        );
        assert!(!refused.exists());

        // Reading: a NaN under a valid checksum (a writer without the check) is refused,
        // naming the file and the tensor.
        let nan = dir.join("nan.safetensors");
        rewrite(&good, &nan, true, |_, t| poison(t, &name));
        let msg = Network::load(&nan, &rules, Device::Cpu).unwrap_err().to_string();
        println!("{msg}");
        assert!(
            msg.contains("nan.safetensors") && msg.contains(&name) && msg.contains("1 NaN or infinite"),
            "{msg}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn version_1_files_without_a_checksum_still_load() {
        let dir = temp("v1");
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let net = tiny(&rules);
        let good = dir.join("good.safetensors");
        net.save(&good, &rules).unwrap();
        let old = dir.join("old.safetensors");
        rewrite(&good, &old, false, |m, _| set_version(m, 1));
        let back = Network::load(&old, &rules, Device::Cpu).unwrap();
        assert!(back.named_variables().iter().zip(net.named_variables()).all(|(a, b)| a.1.equal(&b.1)));
        // Their values are still checked; a version 2 file must have its checksum.
        let name = net.named_variables()[0].0.clone();
        rewrite(&good, &old, false, |m, t| {
            set_version(m, 1);
            poison(t, &name);
        });
        assert!(matches!(Network::load(&old, &rules, Device::Cpu), Err(NnError::NonFinite { .. })));
        let stripped = dir.join("stripped.safetensors");
        rewrite(&good, &stripped, false, |_, _| {});
        let msg = Network::load(&stripped, &rules, Device::Cpu).unwrap_err().to_string();
        assert!(msg.contains("no valid `hane_crc32` checksum"), "{msg}");
        rewrite(&good, &stripped, true, |m, _| set_version(m, FORMAT_VERSION + 1));
        let msg = Network::load(&stripped, &rules, Device::Cpu).unwrap_err().to_string();
        assert!(msg.contains("checkpoint format 3 (this build reads 1 to 2)"), "{msg}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
