//! Packing finished games ([`crate::SelfplayConfig::pack_rows`]): the rows of many games in
//! one shard and their records in one SGF collection, so a million 9x9 rows are a few
//! hundred files instead of tens of thousands.
//!
//! Each game is first written alone (`shards/g….npz`, `sgf/g….sgf`, see [`crate::run`]), so
//! a killed run loses only its games in flight. Once the games waiting hold `pack_rows`
//! rows, a pack is written in three steps:
//!
//! 1. `shards/pNNNNNNNN.npz`: their rows, game after game ([`shard::pack`]; none if no game
//!    has rows);
//! 2. `sgf/pNNNNNNNN.sgf`: their records, one game tree each, named by `GN[…]`; this rename
//!    commits the pack;
//! 3. their single files are removed.
//!
//! A run that starts makes every crash point consistent again ([`Packs::open`]): a pack
//! shard without its collection is removed (all its games' single files are still there),
//! and single files of games in a committed pack are removed. A reader of the folder that
//! catches it between steps 1 and 3 sees those games twice; the trainer's loader skips a
//! single shard that a pack of its folder names. A side game is packed only once its game
//! is finished: a rerun replays an unfinished game with its side games, which must not
//! then be in a pack already.

use crate::name::GameName;
use hane_data::shard::{self, write_atomic};
use hane_host::read;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The packs of one run's folders and the finished games waiting to be packed.
#[derive(Debug)]
pub struct Packs {
    shards: PathBuf,
    sgfs: PathBuf,
    /// Rows that make a pack (0: never pack).
    rows: usize,
    source: String,
    state: Mutex<Waiting>,
}

#[derive(Debug, Default)]
struct Waiting {
    /// Number of the next pack.
    next: u64,
    /// Finished games and side games in single files, with their rows.
    games: Vec<(GameName, usize)>,
    /// Games (not side games) known finished.
    finished: HashSet<u64>,
}

/// `p{n:08}` for a pack file's stem, or `None`.
fn pack_number(path: &Path) -> Option<u64> {
    let stem = path.file_stem()?.to_str()?;
    stem.strip_prefix('p').filter(|n| n.len() == 8).and_then(|n| n.parse().ok())
}

/// The files of `dir` with extension `ext`, each a regular file (or a link to one): a folder
/// or another node named like a game's shard or SGF is an error naming it, never a finished
/// game.
fn files(dir: &Path, ext: &str) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).map_err(io(dir))? {
        let p = e.map_err(io(dir))?.path();
        if p.extension().is_some_and(|x| x == ext) {
            if !std::fs::metadata(&p).map_err(io(&p))?.is_file() {
                return Err(format!(
                    "{}: not a regular file, where self-play keeps its games' files",
                    p.display()
                ));
            }
            out.push(p);
        }
    }
    out.sort();
    Ok(out)
}

/// The game names of an SGF collection written by [`Packs`] (its `GN` properties).
pub fn collection_names(text: &str) -> Vec<String> {
    text.split("GN[").skip(1).filter_map(|s| s.split_once(']')).map(|(name, _)| name.to_string()).collect()
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> String + '_ {
    move |e| format!("{}: {e}", path.display())
}

/// The text of a game record of this run's ([`read::RECORD`]: a regular file within its limit).
fn read_record(path: &Path) -> Result<String, String> {
    read::read_text(path, read::RECORD).map_err(|e| e.to_string())
}

/// Removes `path` if it exists.
fn remove(path: &Path) -> Result<(), String> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(path)(e)),
        _ => Ok(()),
    }
}

hane_engine::message_error!(
    /// A pack, or a game's files to pack, that could not be read, written or removed.
    PackError
);

impl Packs {
    /// The packs of the folders `shards` and `sgfs` (which exist), made consistent after a
    /// crash at any point, and the games finished in them (packed or single) by number.
    pub fn open(
        shards: &Path,
        sgfs: &Path,
        rows: usize,
        source: &str,
    ) -> Result<(Packs, HashSet<u64>), PackError> {
        Packs::open_folders(shards, sgfs, rows, source).map_err(PackError)
    }

    /// [`Packs::open`] with a plain message.
    fn open_folders(
        shards: &Path,
        sgfs: &Path,
        rows: usize,
        source: &str,
    ) -> Result<(Packs, HashSet<u64>), String> {
        let mut w = Waiting::default();
        let mut committed = HashSet::new();
        for p in files(sgfs, "sgf")? {
            let Some(n) = pack_number(&p) else { continue };
            committed.insert(n);
            w.next = w.next.max(n + 1);
            let text = read_record(&p)?;
            for name in collection_names(&text) {
                remove(&shards.join(format!("{name}.npz")))?;
                remove(&sgfs.join(format!("{name}.sgf")))?;
                if let Ok(g) = name.parse::<GameName>() {
                    if g.fork_turn.is_none() {
                        w.finished.insert(g.id);
                    }
                }
            }
        }
        for p in files(shards, "npz")? {
            match pack_number(&p) {
                Some(n) if !committed.contains(&n) => remove(&p)?,
                Some(n) => w.next = w.next.max(n + 1),
                None => {}
            }
        }
        for p in files(sgfs, "sgf")? {
            let Some(name) = p.file_stem().and_then(|s| s.to_str()).and_then(|s| s.parse::<GameName>().ok())
            else {
                continue;
            };
            if name.fork_turn.is_none() {
                w.finished.insert(name.id);
            }
            // Without packing nothing waits, and the games' shards need not be read.
            if rows == 0 {
                continue;
            }
            let shard = shards.join(format!("{name}.npz"));
            let rows = match shard.exists() {
                true => shard::read_meta(&shard).map_err(|e| e.to_string())?.rows,
                false => 0,
            };
            w.games.push((name, rows));
        }
        let finished = w.finished.clone();
        let packs = Packs {
            shards: shards.to_path_buf(),
            sgfs: sgfs.to_path_buf(),
            rows,
            source: source.into(),
            state: Mutex::new(w),
        };
        Ok((packs, finished))
    }

    /// Records a finished game or side game, whose single files are written, with its rows;
    /// packs the games waiting once they hold enough rows.
    pub fn add(&self, name: GameName, rows: usize) -> Result<(), PackError> {
        if self.rows == 0 {
            return Ok(());
        }
        let mut w = self.state.lock().expect("pack lock");
        if name.fork_turn.is_none() {
            w.finished.insert(name.id);
        }
        // A side game replayed with its unfinished game replaces its earlier files.
        w.games.retain(|(g, _)| *g != name);
        w.games.push((name, rows));
        let ready: usize = w.games.iter().filter(|(g, _)| w.finished.contains(&g.id)).map(|(_, n)| n).sum();
        if ready >= self.rows {
            self.pack(&mut w).map_err(PackError)?;
        }
        Ok(())
    }

    /// Packs every finished game waiting, however few rows they hold (the end of a run).
    pub fn flush(&self) -> Result<(), PackError> {
        if self.rows == 0 {
            return Ok(());
        }
        self.pack(&mut self.state.lock().expect("pack lock")).map_err(PackError)
    }

    /// Writes one pack of the finished games waiting (see the module docs).
    fn pack(&self, w: &mut Waiting) -> Result<(), String> {
        let (games, rest): (Vec<_>, Vec<_>) =
            w.games.drain(..).partition(|(g, _)| w.finished.contains(&g.id));
        w.games = rest;
        if games.is_empty() {
            return Ok(());
        }
        let stem = format!("p{:08}", w.next);
        let mut parts = Vec::new();
        let mut sgf = String::new();
        for (g, _) in &games {
            let path = self.shards.join(format!("{g}.npz"));
            if path.exists() {
                parts.push((g.to_string(), shard::read(&path).map_err(|e| e.to_string())?));
            }
            let path = self.sgfs.join(format!("{g}.sgf"));
            let text = read_record(&path)?;
            let body =
                text.trim().strip_prefix("(;").ok_or(format!("{}: not an SGF game", path.display()))?;
            sgf.push_str(&format!("(;GN[{g}]{body}\n"));
        }
        if !parts.is_empty() {
            let bytes = shard::pack(&parts, &self.source).map_err(|e| e.to_string())?;
            write_atomic(&self.shards.join(format!("{stem}.npz")), &bytes).map_err(|e| e.to_string())?;
        }
        write_atomic(&self.sgfs.join(format!("{stem}.sgf")), sgf.as_bytes()).map_err(|e| e.to_string())?;
        for (g, _) in &games {
            remove(&self.shards.join(format!("{g}.npz")))?;
            remove(&self.sgfs.join(format!("{g}.sgf")))?;
        }
        w.next += 1;
        Ok(())
    }
}
