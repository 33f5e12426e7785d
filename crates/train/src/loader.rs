//! The data loader: a background thread that turns the newest shards of a folder into
//! shuffled, augmented batches.
//!
//! * **Window.** Every `rescan_secs` the folder (and its subfolders) is scanned for `.npz`
//!   shards. A new or changed shard is read once and fully validated; a shard of another
//!   game, board size or encoder version stops training with a clear error (the folder is
//!   wrong), a corrupt one, or one with a NaN, infinite or out-of-range value
//!   ([`hane_data::shard`]), is skipped with a warning that names it. Drawing an unchanged
//!   shard later checks only its shapes ([`hane_data::shard::read_again`]): each shard is
//!   verified once. A packed shard ([`hane_data::shard::pack`]) stands for the games it
//!   names: a one-game shard of the same folder that it names (a pack caught while
//!   self-play wrote it) is left out. A folder without a readable shard stops training
//!   ([`TrainError::NoData`]), or with [`TrainConfig::wait_for_data`] is scanned again every
//!   `rescan_secs` until one comes. The window is the newest shards holding
//!   [`TrainConfig::window_rows`] rows of the total (KataGo's growing window). Newest means
//!   a folder at a time, folders ranked by the modification time of their newest shard and
//!   the shards of a folder by name, newest last (self-play names them by game number): a
//!   shard's own time only says which parallel game happened to finish first. Shards are
//!   drawn from the window in path order, so a seeded run draws the same rows whatever order
//!   parallel games wrote their shards in.
//! * **Shuffle.** A buffer of up to `shuffle_rows` rows is refilled with whole shards drawn
//!   from the window in proportion to their rows; each batch takes rows at random out of
//!   the buffer. So rows of one game are spread over many batches, and memory stays bounded
//!   whatever the window's size.
//! * **Augmentation.** Each row gets a random symmetry ([`hane_data::symmetries`]).
//! * **Several board sizes.** With [`TrainConfig::sizes`], shards of smaller boards of the same
//!   game are accepted; each of their rows is moved by its symmetry at its own size, then laid
//!   into the top-left corner of the net's board (planes, ownership and policy entries,
//!   [`hane_engine::PolicyLayout::embed`]), and its batch is marked [`Batch::padded`].
//!
//! The thread sends ready batches over a bounded channel (a few batches ahead), so reading
//! and augmenting overlap the training step. The trainer only converts them to tensors.

use crate::config::TrainConfig;
use crate::TrainError;
use hane_data::batch::corner;
use hane_data::features::{ENCODER_VERSION, GLOBALS, PLANES};
use hane_data::shard::{self, Shard, ShardError, ShardMeta};
use hane_data::symmetries::Symmetries;
use hane_engine::rng::Rng;
use hane_engine::{PolicyLayout, Rules};
use hane_host::show::list;
use hane_host::Stop;
use hane_nn::NetConfig;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

/// Batches prepared ahead of the trainer.
const PREFETCH: usize = 4;

/// One training batch in host memory, rows already augmented.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Rows in the batch.
    pub rows: usize,
    /// Planes, rows × C × S × S.
    pub planes: Vec<u8>,
    /// Global features, rows × G.
    pub globals: Vec<f32>,
    /// Policy targets, rows × M.
    pub policy: Vec<f32>,
    /// Win/draw/loss targets, rows × 3.
    pub wdl: Vec<f32>,
    /// Score targets in points, rows.
    pub score: Vec<f32>,
    /// Ownership targets (−1, 0, 1), rows × S × S.
    pub ownership: Vec<f32>,
    /// Whether a row is a smaller board than the net's, in its corner (see the module docs).
    pub padded: bool,
}

/// The data window after a scan.
#[derive(Clone, Debug, PartialEq)]
pub struct WindowInfo {
    /// Valid shards found.
    pub shards: usize,
    /// Rows in them.
    pub total_rows: usize,
    /// Shards in the window.
    pub window_shards: usize,
    /// Rows in the window.
    pub window_rows: usize,
}

/// What the loader thread sends.
#[derive(Debug)]
pub enum Message {
    /// A batch.
    Batch(Batch),
    /// The window changed.
    Window(WindowInfo),
    /// A shard was skipped (damaged, unreadable, invalid values).
    Warning(String),
    /// The loader stopped.
    Failed(TrainError),
}

/// The decoded arrays of one shard.
struct Rows {
    n: usize,
    /// The board side of its rows.
    side: usize,
    planes: Vec<u8>,
    globals: Vec<f32>,
    policy: Vec<f32>,
    wdl: Vec<f32>,
    score: Vec<f32>,
    ownership: Vec<f32>,
}

impl Rows {
    fn of(s: Shard) -> Rows {
        let a = &s.arrays;
        Rows {
            n: s.meta.rows,
            side: s.meta.board_size,
            planes: a[0].data.clone(),
            globals: a[1].as_f32(),
            policy: a[2].as_f32(),
            wdl: a[3].as_f32(),
            score: a[4].as_f32(),
            ownership: a[5].data.iter().map(|&b| f32::from(b as i8)).collect(),
        }
    }
}

/// What a scan learned about one file.
#[derive(Clone)]
struct Seen {
    modified: SystemTime,
    len: u64,
    /// Rows, or `None` for a skipped file.
    rows: Option<usize>,
    /// The games a packed shard holds (empty for a one-game shard).
    names: Vec<String>,
}

/// Why a shard's metadata does not fit the run, if it does not: the run trains the net for
/// `rules` on data of the board `sizes`.
pub fn incompatibility(meta: &ShardMeta, rules: &Rules, sizes: &[u8], net: &NetConfig) -> Option<String> {
    let theirs: Rules = match meta.rules.parse() {
        Ok(r) => r,
        Err(e) => return Some(format!("rules \"{}\" do not parse: {e}", meta.rules.escape_debug())),
    };
    if !(Rules { size: rules.size, ..theirs }).same_game(rules) || !sizes.contains(&theirs.size) {
        return Some(format!(
            "it holds {} data, the run trains {rules} on board sizes {}",
            meta.rules,
            list(sizes)
        ));
    }
    if meta.encoder_version != ENCODER_VERSION || meta.planes != PLANES || meta.globals != GLOBALS {
        return Some(format!(
            "feature encoder version {} ({} planes, {} globals); this build encodes version {ENCODER_VERSION} ({PLANES}, {GLOBALS})",
            meta.encoder_version, meta.planes, meta.globals
        ));
    }
    if meta.policy_layout != PolicyLayout::VERSION {
        return Some(format!(
            "policy layout version {}; this build orders policies by version {}",
            meta.policy_layout,
            PolicyLayout::VERSION
        ));
    }
    let layout = PolicyLayout::of(&theirs);
    let fits = PolicyLayout::of(rules).len() == net.action_space && usize::from(rules.size) == net.board_size;
    if meta.board_size != usize::from(theirs.size) || meta.action_space != layout.len() || !fits {
        return Some(format!(
            "board {} with {} actions under {}; the net has {} with {}",
            meta.board_size, meta.action_space, meta.rules, net.board_size, net.action_space
        ));
    }
    None
}

fn npz_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let p = e.path();
        if e.file_type()?.is_dir() {
            npz_files(&p, out)?;
        } else if p.extension().is_some_and(|x| x == "npz") {
            out.push(p);
        }
    }
    Ok(())
}

struct Worker {
    cfg: TrainConfig,
    rules: Rules,
    net: NetConfig,
    dir: PathBuf,
    tx: SyncSender<Message>,
    rng: Rng,
    /// The board sizes of the data.
    sizes: Vec<u8>,
    /// The symmetry maps of each data size, by size.
    syms: Vec<Option<Symmetries>>,
    seen: HashMap<PathBuf, Seen>,
    /// Window shards with their cumulative row counts.
    window: Vec<(PathBuf, usize)>,
    window_rows: usize,
    buffer: Vec<(Arc<Rows>, usize)>,
    /// Set when the loader is dropped: a wait for data ends.
    quit: Stop,
}

/// The trainer went away: the worker ends.
struct Gone;

impl Worker {
    fn send(&self, m: Message) -> Result<(), Gone> {
        self.tx.send(m).map_err(|_| Gone)
    }

    /// Whether a scan validated `p` and the file has not changed since.
    fn unchanged(&self, p: &Path) -> bool {
        std::fs::metadata(p).is_ok_and(|md| {
            let modified = md.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            self.seen.get(p).is_some_and(|s| s.rows.is_some() && s.modified == modified && s.len == md.len())
        })
    }

    /// Reads `p`: its shapes only when `validated` (by an earlier read of the same file), else
    /// everything.
    fn read(&mut self, p: &Path, validated: bool) -> Result<Option<Shard>, Gone> {
        let read = if validated { shard::read_again(p) } else { shard::read(p) };
        match read {
            Ok(s) => Ok(Some(s)),
            Err(e @ (ShardError::Corrupt(..) | ShardError::Io(..))) => {
                self.send(Message::Warning(format!("skipping shard: {e}")))?;
                Ok(None)
            }
        }
    }

    /// Rescans the folder and recomputes the window. `Err(Some(e))` stops the run.
    fn scan(&mut self) -> Result<(), Option<TrainError>> {
        let mut files = Vec::new();
        npz_files(&self.dir, &mut files).map_err(|e| Some(TrainError::Io(self.dir.clone(), e)))?;
        self.seen.retain(|p, _| files.contains(p));
        for p in files {
            // A file can vanish or be replaced between listing and reading: treat it as
            // unreadable this time and look again at the next scan.
            let Ok(md) = std::fs::metadata(&p) else { continue };
            let modified = md.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            if self.seen.get(&p).is_some_and(|s| s.modified == modified && s.len == md.len()) {
                continue;
            }
            let seen = match self.read(&p, false).map_err(|_| None)? {
                Some(s) => {
                    if let Some(why) = incompatibility(&s.meta, &self.rules, &self.sizes, &self.net) {
                        return Err(Some(TrainError::Incompatible(p, why)));
                    }
                    Seen { modified, len: md.len(), rows: Some(s.meta.rows), names: s.meta.game_names }
                }
                None => Seen { modified, len: md.len(), rows: None, names: Vec::new() },
            };
            self.seen.insert(p, seen);
        }
        // One-game shards that a pack of their folder holds too.
        let packed: HashSet<PathBuf> = self
            .seen
            .iter()
            .filter(|(_, s)| s.rows.is_some())
            .flat_map(|(p, s)| s.names.iter().map(|n| p.with_file_name(format!("{n}.npz"))))
            .collect();
        let mut valid: Vec<(&PathBuf, SystemTime, usize)> = self
            .seen
            .iter()
            .filter(|(p, _)| !packed.contains(*p))
            .filter_map(|(p, s)| s.rows.map(|n| (p, s.modified, n)))
            .collect();
        // Newest first, a folder at a time: folders by their newest shard, the shards of one
        // folder by name (a self-play run numbers its games), never by their own times, which
        // follow how parallel games happened to finish.
        let mut folders: HashMap<&Path, SystemTime> = HashMap::new();
        for (p, t, _) in &valid {
            let newest = folders.entry(p.parent().unwrap_or(Path::new(""))).or_insert(*t);
            *newest = (*newest).max(*t);
        }
        let recency = |p: &PathBuf| (folders[p.parent().unwrap_or(Path::new(""))], p.clone());
        valid.sort_by_cached_key(|v| std::cmp::Reverse(recency(v.0)));
        let total: usize = valid.iter().map(|v| v.2).sum();
        let want = self.cfg.window_rows(total);
        let mut chosen = Vec::new();
        let mut acc = 0;
        for (p, _, n) in &valid {
            if acc >= want {
                break;
            }
            acc += n;
            chosen.push((*p, *n));
        }
        // Chosen by recency, drawn from in path order: games played in parallel write their
        // shards in any order, and a seeded run must draw the same rows whatever that was.
        chosen.sort_by(|a, b| a.0.cmp(b.0));
        self.window.clear();
        let mut cum = 0;
        for (p, n) in chosen {
            cum += n;
            self.window.push((p.clone(), cum));
        }
        self.window_rows = acc;
        let info = WindowInfo {
            shards: valid.len(),
            total_rows: total,
            window_shards: self.window.len(),
            window_rows: acc,
        };
        self.send(Message::Window(info)).map_err(|_| None)
    }

    /// Tops the buffer up with random window shards.
    fn refill(&mut self) -> Result<(), Option<TrainError>> {
        let target = self.cfg.shuffle_rows.min(self.window_rows).max(self.cfg.batch_size);
        let mut failures = 0;
        while self.buffer.len() < target {
            if self.window.is_empty() {
                return Err(Some(TrainError::NoData(self.dir.clone())));
            }
            let r = self.rng.below(self.window_rows);
            let k = self.window.partition_point(|(_, cum)| *cum <= r);
            let path = self.window[k].0.clone();
            let validated = self.unchanged(&path);
            let shard = self.read(&path, validated).map_err(|_| None)?;
            if let Some(why) =
                shard.as_ref().and_then(|s| incompatibility(&s.meta, &self.rules, &self.sizes, &self.net))
            {
                return Err(Some(TrainError::Incompatible(path, why)));
            }
            match shard.map(|s| Arc::new(Rows::of(s))) {
                Some(rows) => self.buffer.extend((0..rows.n).map(|i| (rows.clone(), i))),
                None => {
                    // Damaged since the scan: forget it and rebuild the window.
                    if let Some(s) = self.seen.get_mut(&path) {
                        s.rows = None;
                    }
                    failures += 1;
                    if failures > 100 {
                        return Err(Some(TrainError::NoData(self.dir.clone())));
                    }
                    self.scan()?;
                }
            }
        }
        Ok(())
    }

    fn batch(&mut self) -> Batch {
        let bs = self.cfg.batch_size;
        let mut b = Batch { rows: bs, ..Batch::default() };
        let (c, g) = (self.net.planes, self.net.globals);
        let outer = self.net.board_size;
        let net_layout = PolicyLayout::of(&self.rules);
        let mut scratch = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..bs {
            let (rows, i) = self.buffer.swap_remove(self.rng.below(self.buffer.len()));
            let s = if self.cfg.augment { self.rng.below(8) } else { 0 };
            let side = rows.side;
            let layout = net_layout.resized(side as u8);
            let (n2, m) = (side * side, layout.len());
            let sym = self.syms[side].as_ref().expect("maps for every data size");
            let whole = side == outer;
            let (planes, policy, ownership) = if whole {
                (&mut b.planes, &mut b.policy, &mut b.ownership)
            } else {
                scratch.0.clear();
                scratch.1.clear();
                scratch.2.clear();
                (&mut scratch.0, &mut scratch.1, &mut scratch.2)
            };
            sym.planes(s, &rows.planes[i * c * n2..(i + 1) * c * n2], planes);
            sym.policy(s, &rows.policy[i * m..(i + 1) * m], policy);
            sym.planes(s, &rows.ownership[i * n2..(i + 1) * n2], ownership);
            if !whole {
                b.padded = true;
                corner(&scratch.0, side, outer, &mut b.planes);
                corner(&scratch.2, side, outer, &mut b.ownership);
                let start = b.policy.len();
                b.policy.resize(start + net_layout.len(), 0.0);
                for (j, &p) in scratch.1.iter().enumerate() {
                    b.policy[start + layout.embed(net_layout, j)] = p;
                }
            }
            b.globals.extend_from_slice(&rows.globals[i * g..(i + 1) * g]);
            b.wdl.extend_from_slice(&rows.wdl[i * 3..i * 3 + 3]);
            b.score.push(rows.score[i]);
        }
        b
    }

    /// Sleeps `d`, or less when the loader is dropped meanwhile; whether to go on.
    fn pause(&self, d: Duration) -> bool {
        let until = Instant::now() + d;
        while Instant::now() < until {
            if self.quit.requested() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(20).min(until - Instant::now()));
        }
        !self.quit.requested()
    }

    /// Whether the loader goes on after `step`; an error stops it, and one that is not the
    /// trainer going away is sent.
    fn went_on(&self, step: Result<(), Option<TrainError>>) -> bool {
        match step {
            Ok(()) => true,
            Err(e) => {
                if let Some(e) = e {
                    let _ = self.send(Message::Failed(e));
                }
                false
            }
        }
    }

    fn run(mut self) {
        let mut last_scan = Instant::now();
        let scanned = self.scan();
        if !self.went_on(scanned) {
            return;
        }
        if self.window.is_empty() && self.cfg.wait_for_data {
            let every = self.cfg.rescan_secs;
            let note =
                format!("no readable shards in {} yet: looking again every {every} s", self.dir.display());
            if self.send(Message::Warning(note)).is_err() {
                return;
            }
            while self.window.is_empty() {
                if !self.pause(Duration::from_secs_f64(every)) {
                    return;
                }
                let scanned = self.scan();
                if !self.went_on(scanned) {
                    return;
                }
            }
        }
        if self.window.is_empty() {
            let _ = self.send(Message::Failed(TrainError::NoData(self.dir.clone())));
            return;
        }
        loop {
            if last_scan.elapsed() >= Duration::from_secs_f64(self.cfg.rescan_secs) {
                last_scan = Instant::now();
                let scanned = self.scan();
                if !self.went_on(scanned) {
                    return;
                }
            }
            let refilled = self.refill();
            if !self.went_on(refilled) {
                return;
            }
            let b = self.batch();
            if self.send(Message::Batch(b)).is_err() {
                return;
            }
        }
    }
}

/// The loader thread's handle: receive messages with [`Loader::recv`]; dropping it stops
/// the thread.
#[derive(Debug)]
pub struct Loader {
    rx: Option<Receiver<Message>>,
    thread: Option<JoinHandle<()>>,
    quit: Stop,
}

impl Loader {
    /// Starts the thread for `dir`; `seed` seeds shuffling and symmetries.
    pub fn start(cfg: &TrainConfig, rules: Rules, net: NetConfig, dir: &Path, seed: u64) -> Loader {
        let (tx, rx) = sync_channel(PREFETCH);
        let quit = Stop::default();
        let sizes = cfg.data_sizes();
        let mut syms = vec![None; usize::from(rules.size) + 1];
        for &size in &sizes {
            let r = Rules { size, ..rules };
            syms[usize::from(size)] = Some(Symmetries::new(usize::from(size), PolicyLayout::of(&r).len()));
        }
        let worker = Worker {
            cfg: cfg.clone(),
            rules,
            net,
            dir: dir.to_path_buf(),
            tx,
            rng: Rng::new(seed),
            syms,
            sizes,
            seen: HashMap::new(),
            window: Vec::new(),
            window_rows: 0,
            buffer: Vec::new(),
            quit: quit.clone(),
        };
        let thread = std::thread::Builder::new()
            .name("hane-loader".into())
            .spawn(move || worker.run())
            .expect("spawn the loader thread");
        Loader { rx: Some(rx), thread: Some(thread), quit }
    }

    /// The next message; a loader that ended without saying why reports that.
    pub fn recv(&mut self) -> Message {
        match self.rx.as_ref().map(|rx| rx.recv()) {
            Some(Ok(m)) => m,
            _ => Message::Failed(TrainError::Data("the data loader stopped".into())),
        }
    }

    /// [`Loader::recv`], or `None` if no message came within `timeout`.
    pub fn recv_timeout(&mut self, timeout: Duration) -> Option<Message> {
        match self.rx.as_ref().map(|rx| rx.recv_timeout(timeout)) {
            Some(Ok(m)) => Some(m),
            Some(Err(RecvTimeoutError::Timeout)) => None,
            _ => Some(Message::Failed(TrainError::Data("the data loader stopped".into()))),
        }
    }
}

impl Drop for Loader {
    fn drop(&mut self) {
        // Closing the channel makes the thread's next send fail, and it returns; a thread
        // waiting for data sees the flag.
        self.quit.request();
        drop(self.rx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hane_nn::NetShape;

    #[test]
    fn a_shard_of_another_policy_layout_or_encoder_does_not_fit() {
        let rules: Rules = "ttakji,size=5".parse().unwrap();
        let net = NetConfig::new(&rules, NetShape::tiny());
        let meta = ShardMeta {
            format_version: shard::FORMAT_VERSION,
            encoder_version: ENCODER_VERSION,
            rules: rules.to_string(),
            board_size: 5,
            rows: 1,
            planes: PLANES,
            globals: GLOBALS,
            action_space: net.action_space,
            policy_layout: PolicyLayout::VERSION,
            games: 1,
            game_names: Vec::new(),
            source: "test".into(),
            crc32: 0,
        };
        assert_eq!(incompatibility(&meta, &rules, &[5], &net), None);
        let other = ShardMeta { policy_layout: PolicyLayout::VERSION + 1, ..meta.clone() };
        let why = incompatibility(&other, &rules, &[5], &net).unwrap();
        assert!(why.contains("policy layout version 2"), "{why}");
        let other = ShardMeta { encoder_version: ENCODER_VERSION + 1, ..meta.clone() };
        assert!(incompatibility(&other, &rules, &[5], &net).unwrap().contains("encoder version"));
        // A smaller board of the same game fits a bigger net only when its size is listed.
        let seven: Rules = "ttakji,size=7".parse().unwrap();
        let big = NetConfig::new(&seven, NetShape::tiny());
        let why = incompatibility(&meta, &seven, &[7], &big).unwrap();
        assert!(why.contains("on board sizes 7"), "{why}");
        assert_eq!(incompatibility(&meta, &seven, &[5, 7], &big), None);
        let lying = ShardMeta { board_size: 7, ..meta.clone() };
        assert!(
            incompatibility(&lying, &seven, &[5, 7], &big).is_some(),
            "metadata must agree with its rules"
        );
        let loose = ShardMeta { rules: "loose,size=5".into(), ..meta };
        assert!(incompatibility(&loose, &seven, &[5, 7], &big).is_some(), "another game is refused");
    }
}
