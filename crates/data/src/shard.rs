//! Shards: `.npz` files of training rows that describe themselves.
//!
//! | array | dtype | shape | meaning | valid values |
//! |---|---|---|---|---|
//! | `input_nchw` | u8 | N × C × S × S | feature planes ([`crate::features`]) | 0 or 1 |
//! | `global_nc` | f32 | N × G | global features | 0..=1; the komi one ([`KOMI_GLOBAL`]) in the komi domain |
//! | `policy_nm` | f32 | N × M | search visit distribution over the action space | ≥ 0, summing to 1 (or all 0: no target) |
//! | `value_nc` | f32 | N × 3 | final win / draw / loss for the side to move | 0..=1, summing to 1 |
//! | `score_n` | f32 | N | final score margin for the side to move (komi included) | see below |
//! | `ownership_nhw` | i8 | N × S × S | final owner of each point: 1 side to move, −1 opponent, 0 none | −1, 0, 1 |
//! | `meta` | u8 | bytes | UTF-8 JSON [`ShardMeta`], with a CRC-32 over all the arrays above | |
//!
//! Floats are finite. A score minus the side to move's komi (the komi feature times
//! [`KOMI_SCALE`]) is, in absolute value, at most 2·S² plus the most turns the engine plays
//! on the board: each point counts at most twice (a dead stone is its captor's territory and
//! its owner's loss), each prisoner once, and there are fewer prisoners than turns. That bound
//! is loose on purpose: it must also hold for a resigned game, whose score is the search's
//! estimate.
//!
//! A shard holds one game's rows (self-play writes one as each game ends) or many games' rows
//! (a pack of such shards, [`pack`]; then [`ShardMeta::game_names`] lists them). Its arrays
//! are deflated (`numpy.savez_compressed`'s layout, so `numpy.load` reads it); version 1
//! shards (one game, stored) still load.
//!
//! Writers put the file under a temporary name in the same directory and rename it when it is
//! complete, so a reader never sees a partial shard. Readers check the metadata, every shape,
//! the checksum and every value (of a shard of this build's encoder; one of another is refused
//! by its metadata) before using anything: a checksum only proves that the bytes are those
//! written, and a writer fed NaN by a broken search checksums NaN. One such row makes the loss
//! NaN from the next training step on, so a shard with an invalid value is refused whole,
//! like a damaged one.

use crate::features::{ENCODER_VERSION, GLOBALS, KOMI_GLOBAL, KOMI_SCALE, PLANES};
use crate::npz::{self, Array, Compression, Crc32, Dtype};
use hane_engine::rules::MoveCap;
use hane_engine::{Komi, PolicyLayout, Rules};
use hane_host::read::{self, ReadError};
use hane_host::show::list;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// Version of the shard layout: 2 adds [`ShardMeta::game_names`] and deflated arrays (one game
/// per file or many); version 1 files (one game, stored) are still read.
pub const FORMAT_VERSION: u32 = 2;

/// The oldest version this build reads.
const OLDEST_VERSION: u32 = 1;

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

/// The version of files that predate a stored version number.
pub fn first_version() -> u32 {
    1
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
    /// [`PolicyLayout::VERSION`] of the policy targets' order (shards written before it was
    /// stored have none: version 1).
    #[serde(default = "first_version")]
    pub policy_layout: u32,
    /// Games whose positions are in this shard.
    pub games: usize,
    /// The names of those games (`g00000012`, a side game `g00000012-f034`) in a packed
    /// shard, in the order of their rows; empty in a one-game shard, whose file is named
    /// after its game.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub game_names: Vec<String>,
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
    /// The file is not a valid shard (corrupt, truncated, inconsistent, or holding a value
    /// out of range).
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
    let mut crc = Crc32::new();
    for a in arrays {
        crc.update(&a.data);
    }
    crc.sum()
}

/// How far a policy or value target may sum from 1: they are normalised in `f32`, whose
/// rounding over a few hundred terms stays below 1e-5.
const SUM_TOLERANCE: f32 = 1e-3;

/// The largest `|score − komi|` a row of an `s` × `s` board (2..=19) can hold, for the side
/// to move with its komi: two points per board point plus one per turn of the longest game
/// the engine plays on that board ([`Rules::max_turns`] without a cap). See the module docs.
fn score_bound(s: usize) -> f64 {
    let any = u8::try_from(s).ok().and_then(|size| Rules::preset_sized("ttakji", size).ok());
    let uncapped = Rules { cap: MoveCap::None, ..any.expect("ttakji is played on every size 2..=19") };
    (2 * s * s) as f64 + f64::from(uncapped.max_turns())
}

/// Checks every value of validated arrays (in [`ARRAYS`] order, of this build's encoder)
/// against the table in the module docs; the error names the array, the row and the value.
fn check_values(meta: &ShardMeta, a: &[Array]) -> Result<(), String> {
    let (n2, g, m) = (meta.board_size * meta.board_size, meta.globals, meta.action_space);
    let bad = |name: &str, i: usize, what: String| Err(format!("{name} row {i}: {what}"));
    let finite = |name: &str, i: usize, v: &[f32]| match v.iter().find(|x| !x.is_finite()) {
        Some(x) => bad(name, i, format!("{x} is not a finite number")),
        None => Ok(()),
    };
    let unit = |name: &str, i: usize, v: &[f32]| match v.iter().find(|x| !(0.0..=1.0).contains(*x)) {
        Some(x) => bad(name, i, format!("{x} is outside 0..=1")),
        None => Ok(()),
    };
    let row_len = meta.planes * n2;
    if let Some(k) = a[0].data.iter().position(|&b| b > 1) {
        return bad("input_nchw", k / row_len, format!("plane value {}, expected 0 or 1", a[0].data[k]));
    }
    let (globals, policy, value, score) = (a[1].as_f32(), a[2].as_f32(), a[3].as_f32(), a[4].as_f32());
    let bound = score_bound(meta.board_size);
    for i in 0..meta.rows {
        let gl = &globals[i * g..(i + 1) * g];
        finite("global_nc", i, gl)?;
        for (j, &x) in gl.iter().enumerate() {
            if j != KOMI_GLOBAL {
                unit("global_nc", i, &[x])?;
            }
        }
        // The komi in half-points, as the rules hold it (dividing by the scale rounded it).
        let komi = (2.0 * f64::from(gl[KOMI_GLOBAL] * KOMI_SCALE)).round() / 2.0;
        if Komi::from_f64(komi).is_none() {
            return bad("global_nc", i, format!("komi {komi} is outside the komi domain"));
        }
        let p = &policy[i * m..(i + 1) * m];
        finite("policy_nm", i, p)?;
        if let Some(x) = p.iter().find(|&&x| x < 0.0) {
            return bad("policy_nm", i, format!("negative probability {x}"));
        }
        let sum: f32 = p.iter().sum();
        if sum != 0.0 && (sum - 1.0).abs() > SUM_TOLERANCE {
            return bad("policy_nm", i, format!("probabilities sum to {sum}"));
        }
        let v = &value[i * 3..(i + 1) * 3];
        finite("value_nc", i, v)?;
        unit("value_nc", i, v)?;
        let sum: f32 = v.iter().sum();
        if (sum - 1.0).abs() > SUM_TOLERANCE {
            return bad("value_nc", i, format!("win, draw and loss sum to {sum}"));
        }
        finite("score_n", i, &score[i..=i])?;
        if (f64::from(score[i]) - komi).abs() > bound {
            let s = meta.board_size;
            let what =
                format!("score {} with komi {komi} is beyond {bound} points on a {s}x{s} board", score[i]);
            return bad("score_n", i, what);
        }
    }
    if let Some(k) = a[5].data.iter().position(|&b| !(-1..=1).contains(&(b as i8))) {
        return bad("ownership_nhw", k / n2, format!("owner {}, expected -1, 0 or 1", a[5].data[k] as i8));
    }
    Ok(())
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
        policy_layout: PolicyLayout::VERSION,
        games,
        game_names: Vec::new(),
        source: source.into(),
        crc32: checksum(&arrays),
    };
    archive(&meta, arrays)
}

/// The `.npz` bytes of a shard: its arrays (in [`ARRAYS`] order) and its metadata, deflated.
fn archive(meta: &ShardMeta, mut arrays: Vec<Array>) -> Vec<u8> {
    let json = serde_json::to_vec(meta).expect("metadata serialises");
    arrays.push(Array::u8("meta", vec![json.len()], json));
    npz::write(&arrays, Compression::Deflated)
}

/// One shard of the rows of `parts` (each a game's name and its shard, all of one game and
/// board and of one encoder and policy layout; their komi may differ, as each row's globals
/// hold it), in that order, with their names in [`ShardMeta::game_names`] and the first
/// part's rules. Errors name the first part that does not fit the first.
pub fn pack(parts: &[(String, Shard)], source: &str) -> Result<Vec<u8>, Corrupt> {
    let Some((_, first)) = parts.first() else { return Err(Corrupt("nothing to pack".into())) };
    let game = |m: &ShardMeta| -> Option<Rules> {
        let rules: Rules = m.rules.parse().ok()?;
        Some(Rules { komi: Komi(0), ..rules })
    };
    let layout = |m: &ShardMeta| {
        (game(m), m.board_size, m.planes, m.globals, m.action_space, m.policy_layout, m.encoder_version)
    };
    let want = layout(&first.meta);
    let fits = |m: &ShardMeta| want.0.is_some() && layout(m) == want;
    if let Some((name, _)) = parts.iter().find(|(_, s)| !fits(&s.meta)) {
        return Err(Corrupt(format!("{name}: another rule set, board size or layout than {}", parts[0].0)));
    }
    let mut arrays = first.arrays.clone();
    for (a, array) in arrays.iter_mut().enumerate() {
        array.data = parts.iter().flat_map(|(_, s)| s.arrays[a].data.iter().copied()).collect();
        array.shape[0] = parts.iter().map(|(_, s)| s.meta.rows).sum();
    }
    let mut game_names = Vec::new();
    for (name, s) in parts {
        match s.meta.game_names.is_empty() {
            true => game_names.push(name.clone()),
            false => game_names.extend(s.meta.game_names.iter().cloned()),
        }
    }
    let meta = ShardMeta {
        format_version: FORMAT_VERSION,
        rows: arrays[0].shape[0],
        games: game_names.len(),
        game_names,
        source: source.into(),
        crc32: checksum(&arrays),
        ..first.meta.clone()
    };
    Ok(archive(&meta, arrays))
}

/// Writes `bytes` to `path` with the one writer of every file hane keeps
/// ([`hane_host::file::write_atomic`], which says what it does with links, devices and FIFOs),
/// its error naming `path`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ShardError> {
    hane_host::file::write_atomic(path, bytes).map_err(|e| ShardError::Io(path.to_path_buf(), e))
}

/// Reads and fully validates a shard.
pub fn read(path: &Path) -> Result<Shard, ShardError> {
    read_checked(path, true)
}

/// Reads a shard that this process read with [`read`] before and whose file has not changed
/// since (same length and modification time): its shapes are checked, not its checksums and
/// values, so each shard is verified once however often it is drawn.
pub fn read_again(path: &Path) -> Result<Shard, ShardError> {
    read_checked(path, false)
}

/// Opens `path` for reading if it is a regular file (or a link to one) within
/// [`read::SHARD`]'s limit ([`read::open_regular`]). Anything else is refused unopened:
/// opening a FIFO blocks until a writer comes, for ever if none does, and a device may never
/// end.
fn open_regular(path: &Path) -> Result<std::fs::File, ShardError> {
    read::open_regular(path, read::SHARD).map_err(|e| match e {
        ReadError::Io(p, e) => ShardError::Io(p, e),
        other => ShardError::Corrupt(path.to_path_buf(), other.why()),
    })
}

fn read_checked(path: &Path, verify: bool) -> Result<Shard, ShardError> {
    let file = open_regular(path)?;
    let arrays = npz::read(&mut std::io::BufReader::new(file), verify)
        .map_err(|e| ShardError::Corrupt(path.to_path_buf(), e.to_string()))?;
    check(arrays, verify).map_err(|e| ShardError::Corrupt(path.to_path_buf(), e))
}

/// The metadata of a shard alone, read without its rows (a packed shard's are megabytes).
pub fn read_meta(path: &Path) -> Result<ShardMeta, ShardError> {
    let corrupt = |e: String| ShardError::Corrupt(path.to_path_buf(), e);
    let file = open_regular(path)?;
    let meta =
        npz::read_one(&mut std::io::BufReader::new(file), "meta").map_err(|e| corrupt(e.to_string()))?;
    parse_meta(&meta.data).map_err(corrupt)
}

fn parse_meta(json: &[u8]) -> Result<ShardMeta, String> {
    let meta: ShardMeta = serde_json::from_slice(json).map_err(|e| format!("meta: {e}"))?;
    if !(OLDEST_VERSION..=FORMAT_VERSION).contains(&meta.format_version) {
        return Err(format!(
            "format version {} (this build reads {OLDEST_VERSION} to {FORMAT_VERSION})",
            meta.format_version
        ));
    }
    if !meta.game_names.is_empty() && meta.game_names.len() != meta.games {
        return Err(format!("{} game names for {} games", meta.game_names.len(), meta.games));
    }
    Ok(meta)
}

hane_engine::message_error!(
    /// Why shard bytes are not a valid shard.
    Corrupt
);

/// Validates and splits shard bytes: the metadata, every shape, the checksum and every value.
pub fn decode(bytes: &[u8]) -> Result<Shard, Corrupt> {
    let arrays = npz::read(&mut std::io::Cursor::new(bytes), true).map_err(|e| Corrupt(e.to_string()))?;
    check(arrays, true).map_err(Corrupt)
}

/// Splits the arrays of a shard after checking its metadata and every shape, and when
/// `verify` its checksum and every value.
fn check(mut arrays: Vec<Array>, verify: bool) -> Result<Shard, String> {
    let meta_at = arrays.iter().position(|a| a.name == "meta").ok_or("no meta entry")?;
    let meta = parse_meta(&arrays.remove(meta_at).data)?;
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
        let k = arrays.iter().position(|a| a.name == name).ok_or(format!("missing {name}"))?;
        let a = arrays.swap_remove(k);
        if a.dtype != dtype || a.shape != shape {
            let (found, wanted) = (a.dtype.name(), dtype.name());
            return Err(format!(
                "{name}: {found} of shape [{}], expected {wanted} of shape [{}]",
                list(&a.shape),
                list(&shape)
            ));
        }
        ordered.push(a);
    }
    if !verify {
        return Ok(Shard { meta, arrays: ordered });
    }
    if checksum(&ordered) != meta.crc32 {
        return Err("checksum mismatch".into());
    }
    // Values follow the table only under this build's encoder; a reader refuses a shard of
    // another one by its metadata, whatever its values.
    if (meta.encoder_version, meta.planes, meta.globals) == (ENCODER_VERSION, PLANES, GLOBALS) {
        check_values(&meta, &ordered)?;
    }
    Ok(Shard { meta, arrays: ordered })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::FileTypeExt;

    #[test]
    fn an_atomic_write_replaces_the_file_whole_or_leaves_nothing_behind() {
        let dir = std::env::temp_dir().join(format!("hane-atomic-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.json");
        std::fs::write(&file, b"old").unwrap();
        write_atomic(&file, b"new").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
        // A folder is refused, and no temporary file is left.
        let folder = dir.join("taken");
        std::fs::create_dir_all(&folder).unwrap();
        let err = write_atomic(&folder, b"x").unwrap_err().to_string();
        assert!(err.ends_with("taken: refusing to write to a folder"), "{err}");
        assert!(folder.is_dir());
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A fresh folder `hane-NAME-PID` under the temporary directory.
    fn fresh(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hane-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_link_stays_a_link_and_its_target_gets_the_bytes() {
        let dir = fresh("atomic-link");
        let target = dir.join("target.json");
        std::fs::write(&target, b"old").unwrap();
        let link = dir.join("link.json");
        std::os::unix::fs::symlink("target.json", &link).unwrap();
        let chain = dir.join("chain.json");
        std::os::unix::fs::symlink(&link, &chain).unwrap();
        write_atomic(&chain, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert!(std::fs::symlink_metadata(&chain).unwrap().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A dangling link gets its target created.
        let dangling = dir.join("dangling.json");
        std::os::unix::fs::symlink("later.json", &dangling).unwrap();
        write_atomic(&dangling, b"late").unwrap();
        assert!(std::fs::symlink_metadata(&dangling).unwrap().is_symlink());
        assert_eq!(std::fs::read(dir.join("later.json")).unwrap(), b"late");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fifo_is_written_through_and_stays_a_fifo() {
        let dir = fresh("atomic-fifo");
        let fifo = dir.join("pipe");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(fifo).unwrap())
        };
        write_atomic(&fifo, b"through").unwrap();
        assert_eq!(reader.join().unwrap(), b"through");
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_full_device_is_a_write_error_and_stays_a_device() {
        let dir = fresh("atomic-device");
        // A node of the device /dev/full is (1, 7) of our own, so a failure spares the system's.
        let full = dir.join("full");
        let made = std::process::Command::new("mknod").arg(&full).args(["c", "1", "7"]).status();
        if !made.is_ok_and(|s| s.success()) {
            eprintln!("skipped: mknod needs root");
            return;
        }
        let err = write_atomic(&full, b"x").unwrap_err();
        assert!(err.to_string().contains("No space left on device"), "{err}");
        assert!(std::fs::symlink_metadata(&full).unwrap().file_type().is_char_device());
        // Through a link, too.
        let link = dir.join("link");
        std::os::unix::fs::symlink(&full, &link).unwrap();
        assert!(write_atomic(&link, b"x").is_err());
        assert!(std::fs::symlink_metadata(&full).unwrap().file_type().is_char_device());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2, "no temporary file");
        std::fs::remove_dir_all(&dir).unwrap();
    }

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
        assert!(decode(&npz::write(&arrays, Compression::Stored)).unwrap_err().0.contains("checksum"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn values_out_of_range_are_refused_despite_a_valid_checksum() {
        type Damage = fn(&mut Row);
        let cases: [(Damage, &str); 14] = [
            (|r| r.planes[3] = 2, "input_nchw row 1: plane value 2"),
            (|r| r.globals[0] = f32::NAN, "global_nc row 1: NaN is not a finite number"),
            (|r| r.globals[0] = 2.0, "global_nc row 1: 2 is outside 0..=1"),
            (|r| r.globals[KOMI_GLOBAL] = 1e6, "outside the komi domain"),
            (|r| r.policy[2] = f32::NAN, "policy_nm row 1: NaN is not a finite number"),
            (|r| r.policy[2] = f32::INFINITY, "policy_nm row 1: inf is not a finite number"),
            (|r| r.policy = vec![0.6, 0.6, -0.2, 0.0, 0.0], "policy_nm row 1: negative probability -0.2"),
            (|r| r.policy[0] = 0.5, "policy_nm row 1: probabilities sum to 1.3"),
            (|r| r.value = [0.5, f32::NEG_INFINITY, 0.5], "value_nc row 1: -inf is not a finite number"),
            (|r| r.value = [1.5, -0.5, 0.0], "value_nc row 1: 1.5 is outside 0..=1"),
            (|r| r.value = [0.5, 0.5, 0.5], "value_nc row 1: win, draw and loss sum to 1.5"),
            (|r| r.score = f32::NAN, "score_n row 1: NaN is not a finite number"),
            (
                |r| r.score = 1e9,
                "score_n row 1: score 1000000000 with komi 7.5 is beyond 72 points on a 2x2 board",
            ),
            (|r| r.ownership[2] = 2, "ownership_nhw row 1: owner 2, expected -1, 0 or 1"),
        ];
        for (damage, expect) in cases {
            let mut rows = vec![row(0), row(1), row(2)];
            damage(&mut rows[1]);
            let msg = decode(&encode(&rows, "ttakji,size=2", 2, 1, "test")).unwrap_err().0;
            assert!(msg.contains(expect), "{msg:?} should say {expect:?}");
        }
        // A row without a policy target (a search without visits) and the largest possible
        // score are valid: 2x2 is 4 points, played at most 16 turns each.
        let mut rows = vec![row(0), row(1)];
        rows[0].policy = vec![0.0; 5];
        rows[0].score = 7.5 + 2.0 * 4.0 + 64.0;
        rows[1].globals[KOMI_GLOBAL] = -1000.0 / KOMI_SCALE;
        rows[1].score = -1000.0 - 72.0;
        decode(&encode(&rows, "ttakji,size=2", 2, 1, "test")).unwrap();
    }

    #[test]
    fn a_pack_holds_its_games_rows_in_order_and_names_them() {
        let dir = std::env::temp_dir().join(format!("hane-pack-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let games = [vec![row(0), row(1)], vec![row(2)], vec![row(3), row(4), row(5)]];
        let rules = ["ttakji,size=2", "ttakji,size=2,komi=3", "ttakji,size=2,komi=-2"];
        let parts: Vec<(String, Shard)> = games
            .iter()
            .zip(rules)
            .enumerate()
            .map(|(i, (rows, r))| (format!("g{i:08}"), decode(&encode(rows, r, 2, 1, "net")).unwrap()))
            .collect();
        let path = dir.join("p00000000.npz");
        write_atomic(&path, &pack(&parts, "net").unwrap()).unwrap();
        let meta = read_meta(&path).unwrap();
        assert_eq!((meta.rows, meta.games, meta.format_version), (6, 3, FORMAT_VERSION));
        assert_eq!(meta.game_names, ["g00000000", "g00000001", "g00000002"]);
        let packed = read(&path).unwrap();
        assert_eq!(packed.meta, meta);
        let all: Vec<Row> = games.concat();
        assert_eq!((0..6).map(|i| packed.row(i)).collect::<Vec<_>>(), all);
        assert_eq!(read_again(&path).unwrap().arrays, packed.arrays);
        // A pack of packs keeps every game's name; another board does not fit.
        let twice = decode(&pack(&[("p0".into(), packed)], "net").unwrap()).unwrap();
        assert_eq!(twice.meta.game_names, meta.game_names);
        let other = decode(&encode(&[row(0)], "ttakji,size=3", 2, 1, "net")).unwrap();
        let mut parts = parts;
        parts.push(("g00000009".into(), other));
        assert!(pack(&parts, "net").unwrap_err().0.starts_with("g00000009: another rule set"));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_fifo_or_a_folder_named_like_a_shard_is_refused_unopened() {
        let dir = std::env::temp_dir().join(format!("hane-fifo-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("d.npz")).unwrap();
        let fifo = dir.join("x.npz");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(made.success());
        // Opening the FIFO would block: no writer ever comes.
        for e in [read(&fifo).unwrap_err(), read_again(&fifo).unwrap_err(), read_meta(&fifo).unwrap_err()] {
            let msg = e.to_string();
            assert!(
                msg.ends_with(
                    "x.npz: not a valid shard: is a FIFO or pipe, and a shard must be a regular file"
                ),
                "{msg}"
            );
        }
        let e = read(&dir.join("d.npz")).unwrap_err().to_string();
        assert!(
            e.ends_with("d.npz: not a valid shard: is a folder, and a shard must be a regular file"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_version_1_shard_of_an_earlier_build_still_loads() {
        // Written by `hane selfplay` at a1cc2a7 (one 4x4 game, stored, format version 1).
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/v1-ttakji-4x4.npz");
        let s = read(&path).unwrap();
        assert_eq!((s.meta.format_version, s.meta.rows, s.meta.games), (1, 10, 1));
        assert!(s.meta.game_names.is_empty());
        assert_eq!(read_meta(&path).unwrap(), s.meta);
        let mut newer = s.meta.clone();
        newer.format_version = FORMAT_VERSION + 1;
        let json = serde_json::to_vec(&newer).unwrap();
        let mut arrays = s.arrays;
        arrays.push(Array::u8("meta", vec![json.len()], json));
        let e = decode(&npz::write(&arrays, Compression::Stored)).unwrap_err();
        assert!(e.0.contains("format version 3 (this build reads 1 to 2)"), "{e}");
        // The same arrays as numpy 2.4's `savez_compressed` writes them (zip64 fields).
        let numpy = read(&path.with_file_name("numpy-savez-compressed.npz")).unwrap();
        assert_eq!((numpy.meta, numpy.arrays), (s.meta, read(&path).unwrap().arrays));
    }
}
