//! Loading a checkpoint for games under rules the user names: the net of its own rule set,
//! or a Go net shown positions of other Go rules as its own ([`hane_mcts::net_rules`], which
//! says what a net may answer), on the board sizes it was trained on
//! ([`hane_nn::ModelMeta::board_sizes`]).

use hane_engine::range::Invalid;
use hane_engine::Rules;
use hane_mcts::net_rules::{check, AsTrained};
use hane_nn::{NetEvaluator, NnError, Precision};
use std::fmt;
use std::path::Path;

/// Why [`load`] or [`trained_rules`] gave no net.
#[derive(Debug)]
pub enum LoadError {
    /// The checkpoint did not read or build: the file, its contents or libtorch.
    Net(NnError),
    /// The checkpoint read, but its net cannot play the rules asked for (or names rules that
    /// do not parse).
    Rules(Invalid),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadError::Net(e) => e.fmt(f),
            LoadError::Rules(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LoadError {}

/// The rules the checkpoint at `path` was trained on, and the board sizes it plays.
pub fn trained_rules(path: &Path) -> Result<(Rules, Vec<u8>), LoadError> {
    let meta = hane_nn::Checkpoint::read(path).map_err(LoadError::Net)?.meta;
    Ok((meta.parsed_rules().map_err(LoadError::Rules)?, meta.board_sizes()))
}

/// The net of the checkpoint at `path` for games under `rules`, on the best device with
/// random symmetries, computing in `precision`, shown positions as under the rules it was
/// trained on ([`AsTrained`]), and [`check`]'s note; an error when the checkpoint does not
/// read or cannot answer `rules`.
pub fn load(
    path: &Path,
    rules: &Rules,
    precision: Precision,
) -> Result<(AsTrained<NetEvaluator>, Option<String>), LoadError> {
    let (trained, sizes) = trained_rules(path)?;
    let note = check(&trained, &sizes, rules).map_err(LoadError::Rules)?;
    // The net for the asked size: its own board, or a smaller one in its corner.
    let inner = NetEvaluator::load(path, &Rules { size: rules.size, ..trained }, "auto", 1)
        .map_err(LoadError::Net)?
        .with_precision(precision)
        .with_random_symmetries();
    Ok((AsTrained { inner, trained, sizes }, note))
}
