//! Shards: `.npz` files of training rows that describe themselves.
//!
//! | array | dtype | shape | meaning |
//! |---|---|---|---|
//! | `input_nchw` | u8 | N × C × S × S | feature planes ([`crate::features`]) |
//! | `global_nc` | f32 | N × G | global features |
//! | `policy_nm` | f32 | N × M | search visit distribution over the action space (sums to 1) |
//! | `value_nc` | f32 | N × 3 | final win / draw / loss for the side to move |
//! | `score_n` | f32 | N | final score margin for the side to move (komi included) |
//! | `ownership_nhw` | i8 | N × S × S | final owner of each point: 1 side to move, −1 opponent, 0 none |
//! | `meta` | u8 | bytes | UTF-8 JSON [`ShardMeta`], with a CRC-32 over all the arrays above |
//!
//! Writers put the file under a temporary name in the same directory and rename it when it is
//! complete, so a reader never sees a partial shard. Readers check the metadata, every shape and
//! the checksum before using anything.

use crate::features::{ENCODER_VERSION, GLOBALS, PLANES};
use crate::npz::{self, Array, Dtype};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Version of the shard layout.
pub const FORMAT_VERSION: u32 = 1;

/// Names of the data arrays, in checksum order.
pub const ARRAYS: [&str; 6] =
    ["input_nchw", "global_nc", "policy_nm", "value_nc", "score_n", "ownership_nhw"];

/// One training example.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// `PLANES * S * S` plane values.
    pub planes: Vec<u8>,
    /// `GLOBALS` floats.
    pub globals: Vec<f32>,
    /// Policy target over the action space.
    pub policy: Vec<f32>,
    /// Win, draw, loss for the side to move.
    pub value: [f32; 3],
    /// Final score margin for the side to move.
    pub score: f32,
    /// `S * S` owners from the side to move's view.
    pub ownership: Vec<i8>,
}

/// The `meta` entry of a shard.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShardMeta {
    /// [`FORMAT_VERSION`] of the writer.
    pub format_version: u32,
    /// [`ENCODER_VERSION`] of the feature encoder.
    pub encoder_version: u32,
    /// Rule set string (e.g. `ttakji`), size included when it is not 9.
    pub rules: String,
    /// Board side.
    pub board_size: usize,
    /// Number of rows.
    pub rows: usize,
    /// Feature planes per row.
    pub planes: usize,
    /// Global features per row.
    pub globals: usize,
    /// Size of the action space (policy length).
    pub action_space: usize,
    /// Games whose positions are in this shard.
    pub games: usize,
    /// What produced the data (model name or evaluator).
    pub source: String,
    /// CRC-32 of the concatenated raw data of the arrays in [`ARRAYS`] order.
    pub crc32: u32,
}

/// Why a shard was refused.
#[derive(Debug)]
pub enum ShardError {
    /// The file could not be read or written.
    Io(PathBuf, std::io::Error),
    /// The file is not a valid shard (corrupt, truncated, inconsistent).
    Corrupt(PathBuf, String),
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            ShardError::Corrupt(p, e) => write!(f, "{}: not a valid shard: {e}", p.display()),
        }
    }
}

impl std::error::Error for ShardError {}

/// A shard read back into memory.
#[derive(Debug)]
pub struct Shard {
    /// Its metadata.
    pub meta: ShardMeta,
    /// The arrays, in [`ARRAYS`] order.
    pub arrays: Vec<Array>,
}

impl Shard {
    /// Row `i` (for tests and tools; the trainer reads the arrays directly).
    pub fn row(&self, i: usize) -> Row {
        let m = &self.meta;
        let n2 = m.board_size * m.board_size;
        let f = |k: usize| self.arrays[k].as_f32();
        let slice = |v: Vec<f32>, w: usize| v[i * w..(i + 1) * w].to_vec();
        let value = slice(f(3), 3);
        Row {
            planes: self.arrays[0].data[i * m.planes * n2..(i + 1) * m.planes * n2].to_vec(),
            globals: slice(f(1), m.globals),
            policy: slice(f(2), m.action_space),
            value: [value[0], value[1], value[2]],
            score: f(4)[i],
            ownership: self.arrays[5].data[i * n2..(i + 1) * n2].iter().map(|&b| b as i8).collect(),
        }
    }
}

fn checksum(arrays: &[Array]) -> u32 {
    let mut all = Vec::new();
    for a in arrays {
        all.extend_from_slice(&a.data);
    }
    npz::crc32(&all)
}

/// Builds the arrays and metadata of a shard from rows (all of one board size and action space).
pub fn encode(rows: &[Row], rules: &str, board_size: usize, games: usize, source: &str) -> Vec<u8> {
    let n = rows.len();
    let s = board_size;
    let m = rows.first().map_or(0, |r| r.policy.len());
    let arrays = vec![
        Array::u8(
            "input_nchw",
            vec![n, PLANES, s, s],
            rows.iter().flat_map(|r| r.planes.iter().copied()).collect(),
        ),
        Array::f32(
            "global_nc",
            vec![n, GLOBALS],
            &rows.iter().flat_map(|r| r.globals.iter().copied()).collect::<Vec<_>>(),
        ),
        Array::f32(
            "policy_nm",
            vec![n, m],
            &rows.iter().flat_map(|r| r.policy.iter().copied()).collect::<Vec<_>>(),
        ),
        Array::f32("value_nc", vec![n, 3], &rows.iter().flat_map(|r| r.value).collect::<Vec<_>>()),
        Array::f32("score_n", vec![n], &rows.iter().map(|r| r.score).collect::<Vec<_>>()),
        Array::i8(
            "ownership_nhw",
            vec![n, s, s],
            &rows.iter().flat_map(|r| r.ownership.iter().copied()).collect::<Vec<_>>(),
        ),
    ];
    let meta = ShardMeta {
        format_version: FORMAT_VERSION,
        encoder_version: ENCODER_VERSION,
        rules: rules.into(),
        board_size,
        rows: n,
        planes: PLANES,
        globals: GLOBALS,
        action_space: m,
        games,
        source: source.into(),
        crc32: checksum(&arrays),
    };
    let json = serde_json::to_vec(&meta).expect("metadata serialises");
    let mut all = arrays;
    all.push(Array::u8("meta", vec![json.len()], json));
    npz::write(&all)
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed and
/// synced, then renamed.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ShardError> {
    let io = |e| ShardError::Io(path.to_path_buf(), e);
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    let mut f = std::fs::File::create(&tmp).map_err(io)?;
    f.write_all(bytes).map_err(io)?;
    f.sync_all().map_err(io)?;
    drop(f);
    std::fs::rename(&tmp, path).map_err(io)
}

/// Reads and fully validates a shard.
pub fn read(path: &Path) -> Result<Shard, ShardError> {
    let bytes = std::fs::read(path).map_err(|e| ShardError::Io(path.to_path_buf(), e))?;
    decode(&bytes).map_err(|e| ShardError::Corrupt(path.to_path_buf(), e))
}

/// Validates and splits shard bytes.
pub fn decode(bytes: &[u8]) -> Result<Shard, String> {
    let mut arrays = npz::read(bytes).map_err(|e| e.to_string())?;
    let meta_at = arrays.iter().position(|a| a.name == "meta").ok_or("no meta entry")?;
    let meta_arr = arrays.remove(meta_at);
    let meta: ShardMeta = serde_json::from_slice(&meta_arr.data).map_err(|e| format!("meta: {e}"))?;
    if meta.format_version != FORMAT_VERSION {
        return Err(format!("format version {} (this build reads {FORMAT_VERSION})", meta.format_version));
    }
    let (n, c, s, g, m) = (meta.rows, meta.planes, meta.board_size, meta.globals, meta.action_space);
    if !(2..=19).contains(&s) || n == 0 || c == 0 || m == 0 {
        return Err(format!("implausible sizes in meta: rows {n}, planes {c}, size {s}, actions {m}"));
    }
    let expect: [(&str, Dtype, Vec<usize>); 6] = [
        ("input_nchw", Dtype::U8, vec![n, c, s, s]),
        ("global_nc", Dtype::F32, vec![n, g]),
        ("policy_nm", Dtype::F32, vec![n, m]),
        ("value_nc", Dtype::F32, vec![n, 3]),
        ("score_n", Dtype::F32, vec![n]),
        ("ownership_nhw", Dtype::I8, vec![n, s, s]),
    ];
    let mut ordered = Vec::with_capacity(6);
    for (name, dtype, shape) in expect {
        let a = arrays.iter().find(|a| a.name == name).ok_or(format!("missing {name}"))?;
        if a.dtype != dtype || a.shape != shape {
            return Err(format!("{name}: {:?} {:?}, expected {dtype:?} {shape:?}", a.dtype, a.shape));
        }
        ordered.push(a.clone());
    }
    if checksum(&ordered) != meta.crc32 {
        return Err("checksum mismatch".into());
    }
    Ok(Shard { meta, arrays: ordered })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(k: u8) -> Row {
        Row {
            planes: vec![k % 2; PLANES * 4],
            globals: vec![0.5; GLOBALS],
            policy: vec![0.2; 5],
            value: [1.0, 0.0, 0.0],
            score: 3.5,
            ownership: vec![1, -1, 0, 1],
        }
    }

    #[test]
    fn shards_round_trip_and_reject_damage() {
        let rows = vec![row(0), row(1), row(2)];
        let bytes = encode(&rows, "ttakji,size=2", 2, 1, "test");
        let shard = decode(&bytes).unwrap();
        assert_eq!(shard.meta.rows, 3);
        assert_eq!(shard.row(1), rows[1]);
        // Flip one data byte and fix the zip CRC: only the shard checksum can notice.
        let dir = std::env::temp_dir().join(format!("hane-shard-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.npz");
        write_atomic(&path, &bytes).unwrap();
        assert_eq!(read(&path).unwrap().meta, shard.meta);
        std::fs::write(&path, &bytes[..bytes.len() - 7]).unwrap();
        assert!(matches!(read(&path), Err(ShardError::Corrupt(..))));
        let mut arrays = shard.arrays.clone();
        arrays[4].data[0] ^= 1;
        let json = serde_json::to_vec(&shard.meta).unwrap();
        arrays.push(Array::u8("meta", vec![json.len()], json));
        assert!(decode(&npz::write(&arrays)).unwrap_err().contains("checksum"));
        std::fs::remove_dir_all(&dir).ok();
    }
}
