//! The one reader of every file hane reads from a path that a user or a run folder gives.
//!
//! Each kind of file declares once what it may hold ([`Kind`]: a name for messages, a limit in
//! bytes, and whether it may come through a pipe). A read refuses past the limit, naming it,
//! so a link to `/dev/zero` or a runaway file costs at most the limit in memory; bytes that
//! are not UTF-8 where text is expected are refused as damaged. What a user names on the
//! command line (a config, an SGF) may be a FIFO, a pipe or a process substitution
//! (`--config <(...)`). Opening a FIFO waits for a writer, so the commands read what a user
//! names before they install their signal handler: until then SIGINT and SIGTERM end the
//! process at once, and a FIFO nobody writes to holds it only until it is stopped (the CLI's
//! input tests send the signal to every command waiting so). What hane reads back from its
//! own folders (run state, reports, checkpoints, books, solver saves) must be a regular file,
//! which never waits; anything else is refused with its path and what it is.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// A kind of file hane reads: what it is called in messages, the most bytes it may hold and
/// whether it may come through a pipe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// What the file is, as a message names it ("a config").
    pub what: &'static str,
    /// The most bytes a file of this kind may hold.
    pub max_bytes: u64,
    /// Whether a FIFO, a pipe or a character device is read too (what a user names on the
    /// command line); otherwise only a regular file is.
    pub streams: bool,
}

/// A config file (TOML, or the analysis engine's JSON settings).
pub const CONFIG: Kind = Kind { what: "a config", max_bytes: 1 << 20, streams: true };
/// An SGF file a user names (`replay --sgf`, GTP's `loadsgf`).
pub const SGF: Kind = Kind { what: "an SGF file", max_bytes: 64 << 20, streams: true };
/// A game record of hane's own (self-play's SGF files and collections).
pub const RECORD: Kind = Kind { what: "a game record", max_bytes: 64 << 20, streams: false };
/// A JSON report or state file of hane's own (a run's state, match and komi reports, the
/// judge's files, start positions).
pub const REPORT: Kind = Kind { what: "a report", max_bytes: 256 << 20, streams: false };
/// A shard of training rows (`.npz`), read as a stream.
pub const SHARD: Kind = Kind { what: "a shard", max_bytes: 16 << 30, streams: false };
/// A net's checkpoint.
pub const CHECKPOINT: Kind = Kind { what: "a checkpoint", max_bytes: 8 << 30, streams: false };
/// An opening book.
pub const BOOK: Kind = Kind { what: "a book", max_bytes: 1 << 30, streams: false };
/// A solver's save (its table included).
pub const SOLVER_SAVE: Kind = Kind { what: "a solver save", max_bytes: 64 << 30, streams: false };

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be opened or read.
    Io(PathBuf, std::io::Error),
    /// It is something this kind of file may not be (a directory, a FIFO, a device, a socket).
    NotAFile(PathBuf, &'static str, Kind),
    /// It holds more than the kind allows.
    TooLarge(PathBuf, Kind),
    /// Text was expected and the bytes are not UTF-8.
    NotText(PathBuf, Kind),
}

impl ReadError {
    /// Whether there is no file at the path (a resumable run's files before their first
    /// write).
    pub fn is_missing(&self) -> bool {
        matches!(self, ReadError::Io(_, e) if e.kind() == std::io::ErrorKind::NotFound)
    }

    /// What went wrong, without the path (for messages that name it already).
    pub fn why(&self) -> String {
        match self {
            ReadError::Io(_, e) => e.to_string(),
            ReadError::NotAFile(_, is, k) => format!("is {is}, and {} must be a regular file", k.what),
            ReadError::TooLarge(_, k) => {
                format!("larger than {} bytes, the most {} may hold", k.max_bytes, k.what)
            }
            ReadError::NotText(_, k) => format!("not UTF-8 text, as {} must be", k.what),
        }
    }

    /// The path that was read.
    pub fn path(&self) -> &Path {
        match self {
            ReadError::Io(p, _)
            | ReadError::NotAFile(p, ..)
            | ReadError::TooLarge(p, _)
            | ReadError::NotText(p, _) => p,
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "{}: {}", self.path().display(), self.why())
    }
}

impl std::error::Error for ReadError {}

/// The bytes of `path`, a file of `kind` (see the module docs).
pub fn read(path: &Path, kind: Kind) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(path).map_err(|e| ReadError::Io(path.into(), e))?;
    let ft = meta.file_type();
    if kind.streams && (ft.is_fifo() || ft.is_char_device()) {
        let file = File::open(path).map_err(|e| ReadError::Io(path.into(), e))?;
        return read_bounded(file, path, kind);
    }
    read_bounded(regular(path, &meta, kind)?, path, kind)
}

/// The text of `path`, a file of `kind` ([`read`]); bytes that are not UTF-8 are
/// [`ReadError::NotText`].
pub fn read_text(path: &Path, kind: Kind) -> Result<String, ReadError> {
    String::from_utf8(read(path, kind)?).map_err(|_| ReadError::NotText(path.into(), kind))
}

/// `path` opened for a reader that streams it (a solver's save, a shard), after checking that
/// it is a regular file within `kind`'s limit.
pub fn open_regular(path: &Path, kind: Kind) -> Result<File, ReadError> {
    let meta = std::fs::metadata(path).map_err(|e| ReadError::Io(path.into(), e))?;
    regular(path, &meta, kind)
}

/// `path`, whose metadata is `meta`, opened if it is a regular file within `kind`'s limit.
fn regular(path: &Path, meta: &std::fs::Metadata, kind: Kind) -> Result<File, ReadError> {
    if !meta.is_file() {
        return Err(ReadError::NotAFile(path.into(), crate::file::kind(meta.file_type()), kind));
    }
    if meta.len() > kind.max_bytes {
        return Err(ReadError::TooLarge(path.into(), kind));
    }
    let file = File::open(path).map_err(|e| ReadError::Io(path.into(), e))?;
    // The path may have been replaced between the two looks: what was opened counts.
    let opened = file.metadata().map_err(|e| ReadError::Io(path.into(), e))?;
    if !opened.is_file() {
        return Err(ReadError::NotAFile(path.into(), crate::file::kind(opened.file_type()), kind));
    }
    Ok(file)
}

/// Reads `file` to its end, or refuses at one byte past `kind`'s limit.
fn read_bounded(file: File, path: &Path, kind: Kind) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    file.take(kind.max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ReadError::Io(path.into(), e))?;
    if bytes.len() as u64 > kind.max_bytes {
        return Err(ReadError::TooLarge(path.into(), kind));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Kind = Kind { what: "a test file", max_bytes: 8, streams: true };

    fn tmp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("hane-read-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn mkfifo(path: &Path) {
        let ok = std::process::Command::new("mkfifo").arg(path).status().unwrap().success();
        assert!(ok, "mkfifo");
    }

    #[test]
    fn a_file_within_its_limit_is_read_and_one_byte_more_is_refused() {
        let dir = tmp("limit");
        let (fits, over) = (dir.join("fits"), dir.join("over"));
        std::fs::write(&fits, b"12345678").unwrap();
        std::fs::write(&over, b"123456789").unwrap();
        assert_eq!(read(&fits, SMALL).unwrap(), b"12345678");
        let e = read(&over, SMALL).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge(..)));
        assert!(e.to_string().contains("larger than 8 bytes, the most a test file may hold"), "{e}");
        // A device that never ends costs the limit, not the machine's memory.
        let e = read(Path::new("/dev/zero"), SMALL).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge(..)), "{e}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn what_must_be_a_regular_file_is_refused_otherwise_with_what_it_is() {
        let dir = tmp("regular");
        let own = Kind { streams: false, ..SMALL };
        let fifo = dir.join("fifo");
        mkfifo(&fifo);
        let link = dir.join("zero");
        std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
        for (path, is) in [(&dir, "a folder"), (&fifo, "a FIFO or pipe"), (&link, "a character device")] {
            let e = read(path, own).unwrap_err();
            assert!(matches!(e, ReadError::NotAFile(..)) && e.to_string().contains(is), "{e}");
            assert!(matches!(open_regular(path, own), Err(ReadError::NotAFile(..))));
        }
        let e = read(&dir.join("missing"), own).unwrap_err();
        assert!(e.is_missing(), "{e}");
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn a_pipe_a_user_names_is_read() {
        let dir = tmp("fifo");
        let fifo = dir.join("fifo");
        mkfifo(&fifo);
        let writer = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::write(fifo, b"komi").unwrap())
        };
        assert_eq!(read_text(&fifo, SMALL).unwrap(), "komi");
        writer.join().unwrap();
        let _ = std::fs::remove_dir_all(dir);
    }

    #[test]
    fn text_that_is_not_utf8_is_refused_as_damaged() {
        let dir = tmp("text");
        let bad = dir.join("bad");
        std::fs::write(&bad, [0xff, 0xfe]).unwrap();
        let e = read_text(&bad, SMALL).unwrap_err();
        assert!(matches!(e, ReadError::NotText(..)), "{e}");
        let _ = std::fs::remove_dir_all(dir);
    }
}
