//! The one writer of every file hane keeps (shards, SGFs, checkpoints, configs, reports,
//! plots, books, the solver's saves), under one policy for what the path already is:
//!
//! * nothing, or a regular file: written atomically, into a temporary file in the same folder
//!   (its extension `tmp` with the process id and a counter, so concurrent writers never share
//!   one), flushed and synced, then renamed over the path, so readers never see half a file. On
//!   failure (a full disk) the temporary file is removed.
//! * a symbolic link (a chain of them, a dangling one too): the same, at the path the link
//!   leads to, so the link stays a link and its target gets the new bytes.
//! * a character device or a FIFO (`/dev/stdout`, `/dev/full`, a named pipe): written through,
//!   opened and written without a rename, so the node stays what it is and a failed write
//!   (`/dev/full`) is an error.
//! * a folder, a block device, a socket: refused with an error.
//!
//! A file that is not regular is thus never replaced.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` to `path` under the module's policy.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_with(path, |out| out.write_all(bytes))
}

/// Writes what `fill` writes to `path` under the module's policy, buffered: for files too large
/// to hold in memory first (the solver's tables).
pub fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    // `metadata` follows links, the kernel's own links of /proc/self/fd included.
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => replace(&link_target(path)?, fill),
        Ok(m) if m.file_type().is_char_device() || m.file_type().is_fifo() => {
            let mut out = BufWriter::new(std::fs::OpenOptions::new().write(true).open(path)?);
            fill(&mut out)?;
            out.flush()
        }
        Ok(m) => Err(io::Error::other(format!("refusing to write to {}", kind(m.file_type())))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => replace(&link_target(path)?, fill),
        Err(e) => Err(e),
    }
}

/// What a file that is not regular is, in words, for messages.
pub(crate) fn kind(t: std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a folder"
    } else if t.is_fifo() {
        "a FIFO or pipe"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "a file that is not regular"
    }
}

/// The path that `path` leads to through any symbolic links (itself if it is not one; the last
/// link's target if that does not exist yet).
fn link_target(path: &Path) -> io::Result<PathBuf> {
    let mut p = path.to_path_buf();
    // Linux's own limit of links on one path (ELOOP beyond).
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.is_symlink() => {
                let to = std::fs::read_link(&p)?;
                p = p.parent().map_or_else(|| to.clone(), |dir| dir.join(&to));
            }
            _ => return Ok(p),
        }
    }
    Err(io::Error::other("too many levels of symbolic links"))
}

/// Writes to a temporary file beside `path` and renames it over `path`.
fn replace(path: &Path, fill: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>) -> io::Result<()> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let tmp = path.with_extension(format!("tmp{}-{n}", std::process::id()));
    let written = (|| {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        fill(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}
