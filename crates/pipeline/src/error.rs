//! The errors of the pipeline's work, each saying what kind of failure it is, so the binary can
//! choose its exit code and print the whole chain of causes.

use crate::net_rules::LoadError;
use hane_data::shard::ShardError;
use hane_engine::range::Invalid;
use hane_eval::gtp::GtpError;
use hane_host::read::{self, ReadError};
use hane_nn::NnError;
use hane_selfplay::SelfplayError;
use hane_train::TrainError;
use serde::Serialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// Why a run, an estimate or a match stopped.
#[derive(Debug)]
pub enum Error {
    /// Bad input, to be fixed by the user: a config, a rule string, an argument, a checkpoint
    /// that does not load, a run folder of another config.
    Input(String),
    /// A file or folder could not be read or written.
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// Stopped on request at a safe point; nothing partial was written.
    Interrupted,
    /// Self-play failed.
    Selfplay(SelfplayError),
    /// Training failed.
    Train(TrainError),
    /// A game of a match failed: an engine died or answered nonsense.
    Game(GtpError),
    /// The komi estimate found no answer, for example because a weak net's win rate never
    /// crossed 50%.
    Komi(String),
    /// libtorch failed to build or place a net that read well.
    Net {
        /// The checkpoint.
        path: PathBuf,
        /// What failed.
        source: NnError,
    },
}

impl Error {
    /// An [`Error::Io`] for `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Error {
        Error::Io { path: path.to_path_buf(), source }
    }

    /// The error of a net at `path` that did not load, by its kind: a file that could not be
    /// read is [`Error::Io`] and a libtorch failure [`Error::Net`], each with its cause; a
    /// file that is not there (a mistyped path, like a missing config), a damaged, diverged
    /// or foreign checkpoint, or one that cannot play the rules asked for, is bad input
    /// naming the file.
    pub fn net_load(path: &Path, e: LoadError) -> Error {
        match e {
            LoadError::Net(NnError::Io(path, source)) if source.kind() != std::io::ErrorKind::NotFound => {
                Error::Io { path, source }
            }
            LoadError::Net(source @ NnError::Torch(_)) => Error::Net { path: path.to_path_buf(), source },
            other => Error::Input(format!("model {}: {other}", path.display())),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input(m) | Error::Komi(m) => f.write_str(m),
            Error::Selfplay(_) => f.write_str("self-play failed"),
            Error::Io { path, .. } => write!(f, "{}", path.display()),
            Error::Interrupted => f.write_str("interrupted"),
            Error::Train(_) => f.write_str("training failed"),
            Error::Game(_) => f.write_str("a game failed"),
            Error::Net { path, .. } => write!(f, "the net {} did not load", path.display()),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            Error::Train(e) => Some(e),
            Error::Game(e) => Some(e),
            Error::Selfplay(e) => Some(e),
            Error::Net { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<Invalid> for Error {
    fn from(e: Invalid) -> Error {
        Error::Input(e.0)
    }
}

impl From<ReadError> for Error {
    /// A file that is there but may not be read (too large, not text, not a regular file)
    /// is bad input.
    fn from(e: ReadError) -> Error {
        match e {
            ReadError::Io(path, source) => Error::Io { path, source },
            other => Error::Input(other.to_string()),
        }
    }
}

/// The text of `path`, one of hane's own JSON reports or state files ([`read::REPORT`]: a
/// regular file within its limit), or `None` when there is no such file.
pub fn read_report(path: &Path) -> Result<Option<String>, Error> {
    match read::read_text(path, read::REPORT) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.is_missing() => Ok(None),
        Err(e) => Err(e.into()),
    }
}

impl From<TrainError> for Error {
    fn from(e: TrainError) -> Error {
        Error::Train(e)
    }
}

/// Writes `bytes` to `path` by hane's one policy for output files
/// ([`hane_data::shard::write_atomic`]): nothing there or a regular file is replaced atomically
/// (a temporary file beside it, then a rename); a symbolic link stays a link and the file it
/// leads to is replaced so; a character device or a FIFO (`/dev/stdout`) is opened and written
/// through, so `/dev/full` is a write error; a folder, a socket or anything else that is not a
/// regular file is refused. A file that is not regular is never replaced.
pub fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    hane_data::shard::write_atomic(path, bytes).map_err(|e| match e {
        ShardError::Io(path, source) => Error::Io { path, source },
        other => Error::io(path, std::io::Error::other(other.to_string())),
    })
}

/// Writes `value` as pretty JSON to `path`, by the policy of [`write_file`].
pub fn write_json(path: &Path, value: &impl Serialize) -> Result<(), Error> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Error::io(path, std::io::Error::other(e)))?;
    write_file(path, text.as_bytes())
}
