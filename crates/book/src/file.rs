//! The book on disk: one file, written whole and atomically (`hane_host`'s writer: a
//! temporary name, synced, renamed), so a kill at any moment leaves the last save.
//!
//! Layout: a first line `hane-book VERSION CRC32 LENGTH` (the CRC-32 and the byte length of
//! the rest, in hex and decimal), then the book as JSON: its [`Header`] (rule set, komi, net),
//! its totals and its nodes, each as the index of the parent whose line reached it first, the
//! action from there, its key, its estimate, exact value and book moves. Loading replays every
//! node's line and checks its key and every book move against the rules, so a file that was
//! damaged in a way the checksum misses, or written by another version of the keys, is
//! refused too. A file of another rule set, komi or net is refused with the field named.

use crate::key::{self, ply};
use crate::{Backed, Book, Edge, Estimate, Node};
use hane_engine::symmetry::Symmetry;
use hane_engine::{Action, Rules};
use hane_host::read::{self, ReadError};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// The layout's version; files of another are refused.
pub const FORMAT_VERSION: u32 = 1;

/// What a book is of: a file whose header differs is another book.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The rule set (as `hane_engine::Rules` prints it, komi included).
    pub rules: String,
    /// The komi the book is built at.
    pub komi: f64,
    /// The board size.
    pub size: u8,
    /// The net that built it (a name and a digest of its file, or the stand-in evaluator).
    pub net: String,
}

impl Header {
    /// The header of a book of `rules` built with `net`.
    pub fn of(rules: &Rules, net: &str) -> Header {
        Header { rules: rules.to_string(), komi: rules.komi.as_f64(), size: rules.size, net: net.to_string() }
    }
}

/// Why a book could not be read or written.
#[derive(Debug)]
pub enum BookError {
    /// Reading or writing failed.
    Io(PathBuf, std::io::Error),
    /// There is no book at the path (where one is to be played from).
    Missing(PathBuf),
    /// The file is not a book of this version, or is damaged.
    Damaged(PathBuf, String),
    /// The file is another book: the field, its value in the file and the one wanted.
    Mismatch {
        /// The file.
        path: PathBuf,
        /// The header field that differs.
        field: &'static str,
        /// Its value in the file.
        file: String,
        /// The value this run wants.
        wanted: String,
    },
}

impl fmt::Display for BookError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            BookError::Missing(p) => write!(f, "{}: No such file or directory (no book there)", p.display()),
            BookError::Damaged(p, why) => write!(f, "{}: not a usable book: {why}", p.display()),
            BookError::Mismatch { path, field, file, wanted } => write!(
                f,
                "{}: the book's {field} is {file}, this run's is {wanted} (another book: use another file)",
                path.display()
            ),
        }
    }
}

impl std::error::Error for BookError {}

#[derive(Serialize, Deserialize)]
struct Stored {
    header: Header,
    expansions: u64,
    evaluations: u64,
    seconds: f64,
    nodes: Vec<StoredNode>,
}

#[derive(Serialize, Deserialize)]
struct StoredNode {
    /// The parent whose line reached it first and the action from there (none: the root).
    from: Option<(u32, u16)>,
    key: u64,
    own: Option<Estimate>,
    searched: bool,
    exact: Option<f32>,
    solve_tried: bool,
    raw_best: Option<u16>,
    /// Book moves: action, child, symmetry, prior.
    children: Vec<(u16, u32, u8, f32)>,
}

/// Saves `book` to `path`, atomically.
pub fn save(book: &Book, path: &Path) -> Result<(), BookError> {
    let geo = book.nodes[0].state.geo();
    let idx = |a: Action| a.index(geo) as u16;
    let nodes = book
        .nodes
        .iter()
        .map(|n| StoredNode {
            from: n.from.map(|(p, a)| (p, idx(a))),
            key: n.key,
            own: n.own,
            searched: n.searched,
            exact: n.exact,
            solve_tried: n.solve_tried,
            raw_best: n.raw_best.map(idx),
            children: n
                .children
                .iter()
                .map(|e| (idx(e.action), e.child, e.sym.index() as u8, e.prior))
                .collect(),
        })
        .collect();
    let stored = Stored {
        header: book.header.clone(),
        expansions: book.expansions,
        evaluations: book.evaluations,
        seconds: book.seconds,
        nodes,
    };
    let body = serde_json::to_vec(&stored).map_err(|e| BookError::Damaged(path.into(), e.to_string()))?;
    let mut crc = flate2::Crc::new();
    crc.update(&body);
    let mut bytes = format!("hane-book {FORMAT_VERSION} {:08x} {}\n", crc.sum(), body.len()).into_bytes();
    bytes.extend_from_slice(&body);
    hane_host::file::write_atomic(path, &bytes).map_err(|e| BookError::Io(path.into(), e))
}

/// Loads the book at `path`, which must be of `header`'s rule set, komi, size and net (any, when
/// `None`); `Ok(None)` when there is no file.
pub fn load(path: &Path, header: Option<&Header>) -> Result<Option<Book>, BookError> {
    let damaged = |why: String| BookError::Damaged(path.into(), why);
    let bytes = match read::read(path, read::BOOK) {
        Ok(b) => b,
        Err(e) if e.is_missing() => return Ok(None),
        Err(ReadError::Io(p, e)) => return Err(BookError::Io(p, e)),
        Err(e) => return Err(damaged(e.why())),
    };
    let nl = bytes.iter().position(|&b| b == b'\n').ok_or_else(|| damaged("no header line".into()))?;
    let head =
        std::str::from_utf8(&bytes[..nl]).map_err(|_| damaged("the header line is not text".into()))?;
    let body = &bytes[nl + 1..];
    let parts: Vec<&str> = head.split(' ').collect();
    let [magic, version, crc, len] = parts[..] else {
        return Err(damaged(format!("header line \"{}\"", head.escape_debug())));
    };
    if magic != "hane-book" {
        return Err(damaged("not a hane book".into()));
    }
    if version != FORMAT_VERSION.to_string() {
        return Err(BookError::Mismatch {
            path: path.into(),
            field: "format version",
            file: version.into(),
            wanted: FORMAT_VERSION.to_string(),
        });
    }
    if len.parse::<usize>().ok() != Some(body.len()) {
        return Err(damaged(format!("length {} where the header says {len} (cut short?)", body.len())));
    }
    let mut sum = flate2::Crc::new();
    sum.update(body);
    if u32::from_str_radix(crc, 16).ok() != Some(sum.sum()) {
        return Err(damaged("checksum mismatch".into()));
    }
    let stored: Stored = serde_json::from_slice(body).map_err(|e| damaged(e.to_string()))?;
    let mismatch =
        |field, file: String, wanted: String| BookError::Mismatch { path: path.into(), field, file, wanted };
    let h = &stored.header;
    let header = header.unwrap_or(h);
    if h.komi != header.komi {
        return Err(mismatch("komi", h.komi.to_string(), header.komi.to_string()));
    }
    if h.size != header.size {
        return Err(mismatch("size", h.size.to_string(), header.size.to_string()));
    }
    if h.net != header.net {
        return Err(mismatch("net", h.net.clone(), header.net.clone()));
    }
    if h.rules != header.rules {
        return Err(mismatch("rules", h.rules.clone(), header.rules.clone()));
    }
    let rules: Rules = header.rules.parse().map_err(|e| damaged(format!("rules: {e}")))?;
    let header = header.clone();
    rebuild(rules, &header, stored).map(Some).map_err(damaged)
}

/// The book from its stored nodes, every line replayed and checked.
fn rebuild(rules: Rules, header: &Header, stored: Stored) -> Result<Book, String> {
    let mut book = Book::new(&rules, &header.net);
    let geo = book.nodes[0].state.geo();
    let action = |i: u16| Action::from_index(geo, i.into()).ok_or_else(|| format!("action index {i}"));
    let count = stored.nodes.len();
    if count == 0 {
        return Err("no nodes".into());
    }
    let mut nodes: Vec<Node> = Vec::with_capacity(count);
    for (i, s) in stored.nodes.iter().enumerate() {
        let mut node = match s.from {
            None if i == 0 => book.nodes[0].clone(),
            None => return Err(format!("node {i} has no line")),
            Some((p, a)) => {
                let p = p as usize;
                if p >= i {
                    return Err(format!("node {i}: parent {p} comes after it"));
                }
                let a = action(a)?;
                let parent: &Node = &nodes[p];
                let reached = key::step(&parent.state, &parent.history, a)
                    .ok_or_else(|| format!("node {i}: {} is illegal there", a.name(geo)))?;
                let mut moves = parent.moves.clone();
                moves.push(a);
                Node::new(moves, Some((p as u32, a)), reached)
            }
        };
        if node.key != s.key {
            return Err(format!("node {i}: its line does not give its key"));
        }
        node.own = s.own;
        node.searched = s.searched;
        node.exact = s.exact;
        node.solve_tried = s.solve_tried;
        node.raw_best = s.raw_best.map(action).transpose()?;
        node.value = Backed::default();
        nodes.push(node);
    }
    book.index = nodes.iter().enumerate().map(|(i, n)| (n.key, i as u32)).collect();
    if book.index.len() != nodes.len() {
        return Err("two nodes share a key".into());
    }
    book.nodes = nodes;
    for (i, s) in stored.nodes.iter().enumerate() {
        let mut children = Vec::with_capacity(s.children.len());
        for &(a, c, sym, prior) in &s.children {
            let a = action(a)?;
            let sym = Symmetry::from_index(sym.into()).ok_or_else(|| format!("node {i}: symmetry {sym}"))?;
            if c as usize >= count || !(0.0..=1.0).contains(&prior) {
                return Err(format!("node {i}: a book move out of range"));
            }
            if book.key_after(i as u32, a) != Some(book.nodes[c as usize].key) {
                return Err(format!("node {i}: book move {} does not lead to node {c}", a.name(geo)));
            }
            if ply(&book.nodes[c as usize].state) <= ply(&book.nodes[i].state) {
                return Err(format!("node {i}: a book move goes back"));
            }
            children.push(Edge { action: a, child: c, sym, prior });
        }
        book.nodes[i].children = children;
    }
    book.expansions = stored.expansions;
    book.evaluations = stored.evaluations;
    book.seconds = stored.seconds;
    book.recompute();
    Ok(book)
}

/// The name a book keeps of the net in the checkpoint at `path`: the file's name and the
/// CRC-32 of its bytes, so a retrained net under the same name is another net.
pub fn net_id(path: &Path) -> Result<String, BookError> {
    let bytes = read::read(path, read::CHECKPOINT).map_err(|e| match e {
        ReadError::Io(p, e) => BookError::Io(p, e),
        other => BookError::Damaged(path.into(), other.why()),
    })?;
    let mut crc = flate2::Crc::new();
    crc.update(&bytes);
    let name =
        path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    Ok(format!("{name} (crc32 {:08x}, {} bytes)", crc.sum(), bytes.len()))
}
