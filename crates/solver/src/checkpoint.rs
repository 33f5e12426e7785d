//! A solve that survives an interrupt: what it has proved (every transposition-table entry,
//! with the scope and dependencies that make it valid, and the root's proven bounds, search
//! depth and best action) saved to a file, which a rerun of the same solve loads and
//! continues from. Every entry is a proven bound, so entries from any earlier run of the same
//! rules from the same position are sound in a later one, whatever its table size.
//!
//! The file is written whole: to a temporary name in the same folder, synced, then renamed
//! over the old one, so a kill at any moment leaves the previous save or the new one. Its
//! layout (little-endian): [`MAGIC`], [`FORMAT_VERSION`], the solved position (rules and
//! moves, as text), the entry size, the root's state (with the move-ordering counts), the entry
//! count, the entries ([`ENTRY_BYTES`] each), the count of proof-number pairs, the pairs (key,
//! proof and disproof number: 16 bytes each; a guide for the proof-number search, which no
//! result rests on) and an FNV-1a checksum of everything before it. A file that is not one, of
//! another version, of another position or damaged is refused before its entries are used.

use super::table::{Entry, Table, ENTRY_BYTES};
use hane_host::read;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The first bytes of a saved solve.
pub const MAGIC: &[u8; 8] = b"hanesolv";

/// The layout's version; a file of another is refused.
pub const FORMAT_VERSION: u32 = 2;

/// Where, and how often, a solve saves what it has proved (also when it is stopped or gives
/// up, and when it finishes, if it saved before).
#[derive(Clone, Debug)]
pub struct SaveTo {
    /// The file; an existing one is loaded first.
    pub path: PathBuf,
    /// Time between two saves.
    pub every: Duration,
}

/// What the root search had proved when saved.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Root {
    /// Proven bounds on the root value.
    pub lower: i32,
    pub upper: i32,
    /// The depth limit of the iteration under way (`u32::MAX`: none).
    pub depth: u32,
    /// Dense index of the best action found, `u16::MAX` if none.
    pub best: u16,
    /// Whether a searched line reached the move cap.
    pub capped: bool,
    /// Nodes and seconds of every run so far.
    pub nodes: u64,
    pub seconds: f64,
    /// The move-ordering counts (the history heuristic), so that a resumed search orders
    /// moves as the stopped one did and finds its stored subtrees again.
    pub history: Vec<u64>,
}

/// FNV-1a over everything written or read.
struct Fnv(u64);

impl Fnv {
    fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The bytes before the entries.
fn header(position: &str, root: &Root, count: u64) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(MAGIC);
    h.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    h.extend_from_slice(&(position.len() as u32).to_le_bytes());
    h.extend_from_slice(position.as_bytes());
    h.extend_from_slice(&(ENTRY_BYTES as u32).to_le_bytes());
    h.extend_from_slice(&root.lower.to_le_bytes());
    h.extend_from_slice(&root.upper.to_le_bytes());
    h.extend_from_slice(&root.depth.to_le_bytes());
    h.extend_from_slice(&root.best.to_le_bytes());
    h.push(u8::from(root.capped));
    h.extend_from_slice(&root.nodes.to_le_bytes());
    h.extend_from_slice(&root.seconds.to_le_bytes());
    h.extend_from_slice(&(root.history.len() as u32).to_le_bytes());
    for c in &root.history {
        h.extend_from_slice(&c.to_le_bytes());
    }
    h.extend_from_slice(&count.to_le_bytes());
    h
}

/// A proof-number search's numbers of one undecided position: its key, its proof number and
/// its disproof number.
pub(super) type Numbers = (u64, u32, u32);

/// Bytes of one [`Numbers`] in a file.
const NUMBERS_BYTES: u64 = 16;

/// The largest proof or disproof number a file may hold.
pub(super) const MAX_NUMBER: u32 = 1 << 24;

/// Saves the root's state, the table's entries and the proof-number search's `numbers` for
/// the solve of `position` (its rules and moves), atomically.
pub(super) fn save(
    path: &Path,
    position: &str,
    root: &Root,
    table: Option<&Table>,
    numbers: &[Numbers],
) -> std::io::Result<()> {
    hane_host::file::write_atomic_with(path, |out| {
        let mut sum = Fnv::new();
        let mut write = |out: &mut BufWriter<File>, bytes: &[u8]| {
            sum.add(bytes);
            out.write_all(bytes)
        };
        let count = table.map_or(0, |t| t.used() as u64);
        write(out, &header(position, root, count))?;
        let mut buf = Vec::with_capacity(1024 * ENTRY_BYTES);
        for e in table.into_iter().flat_map(Table::entries) {
            e.encode(&mut buf);
            if buf.len() >= 1023 * ENTRY_BYTES {
                write(out, &buf)?;
                buf.clear();
            }
        }
        write(out, &buf)?;
        buf.clear();
        buf.extend_from_slice(&(numbers.len() as u64).to_le_bytes());
        for &(key, pn, dn) in numbers {
            buf.extend_from_slice(&key.to_le_bytes());
            buf.extend_from_slice(&pn.min(MAX_NUMBER).to_le_bytes());
            buf.extend_from_slice(&dn.min(MAX_NUMBER).to_le_bytes());
        }
        write(out, &buf)?;
        out.write_all(&sum.0.to_le_bytes())
    })
}

/// Reads fields off a saved file, summing what it reads.
struct Fields {
    input: BufReader<File>,
    sum: Fnv,
}

impl Fields {
    fn bytes(&mut self, n: usize) -> std::io::Result<Vec<u8>> {
        let mut b = vec![0; n];
        self.input.read_exact(&mut b)?;
        self.sum.add(&b);
        Ok(b)
    }
    fn array<const N: usize>(&mut self) -> std::io::Result<[u8; N]> {
        let mut b = [0; N];
        self.input.read_exact(&mut b)?;
        self.sum.add(&b);
        Ok(b)
    }
    fn u32(&mut self) -> std::io::Result<u32> {
        self.array().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> std::io::Result<u64> {
        self.array().map(u64::from_le_bytes)
    }
}

/// Loads a save of the solve of `position` into `table` (if any): the root's state and the
/// proof-number search's numbers, or `Ok(None)` if there is no file. Entries whose best action is not below `actions`, or
/// history counts not of `2 * actions` actions, are refused with the file. On an error the table may hold some of the file's entries and must
/// not be used.
pub(super) fn load(
    path: &Path,
    position: &str,
    actions: usize,
    mut table: Option<&mut Table>,
) -> Result<Option<(Root, Vec<Numbers>)>, String> {
    let file = match read::open_regular(path, read::SOLVER_SAVE) {
        Ok(f) => f,
        Err(e) if e.is_missing() => return Ok(None),
        Err(e) => return Err(format!("cannot read the saved solve: {e}")),
    };
    let len = file.metadata().map_err(|e| format!("cannot read the saved solve: {e}"))?.len();
    let mut f = Fields { input: BufReader::with_capacity(1 << 20, file), sum: Fnv::new() };
    let damaged = |what: &str| format!("not a usable saved solve ({what})");
    let io = |e: std::io::Error| damaged(&format!("cut short: {e}"));
    if &f.array::<8>().map_err(io)? != MAGIC {
        return Err(damaged("it does not start as one"));
    }
    let version = f.u32().map_err(io)?;
    if version != FORMAT_VERSION {
        return Err(damaged(&format!("format version {version}, this build reads {FORMAT_VERSION}")));
    }
    let n = f.u32().map_err(io)? as usize;
    if n > 1 << 16 {
        return Err(damaged("its position is too long"));
    }
    let saved =
        String::from_utf8(f.bytes(n).map_err(io)?).map_err(|_| damaged("its position is not text"))?;
    if saved != position {
        return Err(format!("the saved solve is of {saved}, not of {position}"));
    }
    let entry_bytes = f.u32().map_err(io)? as usize;
    if entry_bytes != ENTRY_BYTES {
        return Err(damaged(&format!("entries of {entry_bytes} bytes, this build's have {ENTRY_BYTES}")));
    }
    let mut root = Root {
        lower: f.u32().map_err(io)? as i32,
        upper: f.u32().map_err(io)? as i32,
        depth: f.u32().map_err(io)?,
        best: u16::from_le_bytes(f.array().map_err(io)?),
        capped: match f.array::<1>().map_err(io)?[0] {
            0 => false,
            1 => true,
            _ => return Err(damaged("a flag that is not one")),
        },
        nodes: f.u64().map_err(io)?,
        seconds: f64::from_le_bytes(f.array().map_err(io)?),
        history: Vec::new(),
    };
    let n = f.u32().map_err(io)? as usize;
    if n != 2 * actions {
        return Err(damaged(&format!("move counts for {n} actions, not {}", 2 * actions)));
    }
    for _ in 0..n {
        root.history.push(f.u64().map_err(io)?);
    }
    let count = f.u64().map_err(io)?;
    let head = header(position, &root, count).len() as u64;
    // The entries, then at least the count of numbers and the checksum.
    let Some(entries_end) = count
        .checked_mul(ENTRY_BYTES as u64)
        .and_then(|b| b.checked_add(head))
        .filter(|&end| end.checked_add(16).is_some_and(|least| least <= len))
    else {
        return Err(damaged(&format!("{len} bytes, fewer than its {count} entries need")));
    };
    let valid_best = |b: u16| b == u16::MAX || usize::from(b) < actions;
    if root.lower > root.upper || !valid_best(root.best) || !root.seconds.is_finite() {
        return Err(damaged("the root's bounds or best action are not possible"));
    }
    if let Some(t) = table.as_deref_mut() {
        t.make_room(count as usize);
    }
    for _ in 0..count {
        let bytes = f.array::<ENTRY_BYTES>().map_err(io)?;
        let e =
            Entry::decode(&bytes).filter(|e| valid_best(e.best)).ok_or_else(|| damaged("a damaged entry"))?;
        if let Some(t) = table.as_deref_mut() {
            t.put(e);
        }
    }
    let pairs = f.u64().map_err(io)?;
    let end = pairs.checked_mul(NUMBERS_BYTES).and_then(|b| b.checked_add(entries_end + 16));
    if end != Some(len) {
        return Err(damaged(&format!(
            "{len} bytes, not the size its {count} entries and {pairs} numbers need"
        )));
    }
    let mut numbers = Vec::with_capacity(pairs as usize);
    for _ in 0..pairs {
        let (key, pn, dn) = (f.u64().map_err(io)?, f.u32().map_err(io)?, f.u32().map_err(io)?);
        if !(1..=MAX_NUMBER).contains(&pn) || !(1..=MAX_NUMBER).contains(&dn) {
            return Err(damaged("a proof or disproof number out of range"));
        }
        numbers.push((key, pn, dn));
    }
    let expected = f.sum.0;
    let mut stored = [0; 8];
    f.input.read_exact(&mut stored).map_err(io)?;
    if u64::from_le_bytes(stored) != expected {
        return Err(damaged("its checksum does not match"));
    }
    Ok(Some((root, numbers)))
}

#[cfg(test)]
mod tests {
    use super::super::deps::Deps;
    use super::super::table::Scope;
    use super::*;

    #[test]
    fn a_saved_table_loads_whole() {
        // 100,000 entries: the table they were saved from grew as they came; loaded (in bucket
        // order), every one must be found again.
        let mut t = Table::new(1 << 20).unwrap();
        let keys: Vec<u64> = (1..=100_000u64).map(hane_engine::rng::mix64).collect();
        for (i, &k) in keys.iter().enumerate() {
            let e = Entry::new(k, (-4, 4), u16::MAX, Scope::default(), i as u64 + 1, &Deps::none()).unwrap();
            t.put(e);
        }
        let dir = std::env::temp_dir().join(format!("hane-checkpoint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.table");
        let root = Root {
            lower: -4,
            upper: 4,
            depth: 5,
            best: 3,
            capped: false,
            nodes: 7,
            seconds: 1.5,
            history: vec![1; 20],
        };
        let numbers = [(5, 1, 2), (9, 3, 1)];
        save(&path, "p", &root, Some(&t), &numbers).unwrap();
        let mut back = Table::new(1 << 20).unwrap();
        assert_eq!(load(&path, "p", 10, Some(&mut back)).unwrap(), Some((root, numbers.to_vec())));
        assert_eq!(back.used(), t.used());
        let lost =
            keys.iter().filter(|&&k| t.get(k).next().is_some() && back.get(k).next().is_none()).count();
        assert_eq!(lost, 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
