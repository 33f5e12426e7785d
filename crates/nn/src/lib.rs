//! hane's policy/value network on libtorch, through the `tch` crate. This is the only crate
//! that depends on `tch`; the trainer reaches libtorch through the re-export [`tch`], and
//! everything below `nn` in the workspace builds and tests without libtorch.
//!
//! * [`config`]: [`NetShape`] (depth, widths) and [`NetConfig`] (plus the game's sizes).
//! * [`model`]: the [`Network`] — a residual trunk with KataGo-style global pooling and
//!   policy, value, score and ownership heads.
//! * [`loss`]: each head's loss and the logged metrics.
//! * [`checkpoint`]: `.safetensors` files with metadata and a checksum, checked (finite
//!   values included) before use.
//! * [`evaluator`]: [`NetEvaluator`], the network as the search's batched `Evaluator`.
//! * [`precision`]: what an inference copy computes in ([`Precision`]: FP32, bf16, or `auto`
//!   by the processor).
//!
//! Settings live here: [`init_threads`] (libtorch's intra-op threads of the calling thread)
//! and [`device`] (CPU, or CUDA when present).

mod boards;
pub mod checkpoint;
pub mod config;
pub mod evaluator;
pub mod loss;
pub mod model;
pub mod precision;

pub use checkpoint::{Checkpoint, ModelMeta};
pub use config::{NetConfig, NetShape};
pub use evaluator::NetEvaluator;
pub use hane_mcts::Precision;
pub use loss::{LossWeights, Losses, Targets};
pub use model::{Boards, Network, Outputs};
pub use tch;

use hane_engine::range::Invalid;
use std::fmt;
use std::path::PathBuf;
use tch::Device;

/// Why a network could not be built, loaded or saved.
#[derive(Debug)]
pub enum NnError {
    /// A file could not be read or written.
    Io(PathBuf, std::io::Error),
    /// A file is not a valid hane checkpoint (damaged, truncated, foreign).
    Corrupt(PathBuf, String),
    /// A checkpoint, read or about to be written, with a NaN or infinite value: the net it
    /// holds diverged in training.
    NonFinite {
        /// The file.
        path: PathBuf,
        /// The first tensor (in name order) with such values.
        tensor: String,
        /// How many of its values are NaN or infinite.
        count: usize,
    },
    /// A valid checkpoint that does not fit: another rule set, board size, encoder version.
    Mismatch(String),
    /// An impossible or out-of-range network configuration.
    Config(String),
    /// libtorch reported an error.
    Torch(tch::TchError),
}

impl fmt::Display for NnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NnError::Io(p, e) => write!(f, "{}: {e}", p.display()),
            NnError::Corrupt(p, m) => write!(f, "{}: not a valid checkpoint: {m}", p.display()),
            NnError::NonFinite { path, tensor, count } => write!(
                f,
                "{}: not a valid checkpoint: tensor {tensor} holds {count} NaN or infinite values (a diverged net)",
                path.display()
            ),
            NnError::Mismatch(m) => f.write_str(m),
            NnError::Config(m) => write!(f, "network configuration: {m}"),
            NnError::Torch(e) => write!(f, "libtorch: {e}"),
        }
    }
}

impl std::error::Error for NnError {}

impl From<tch::TchError> for NnError {
    fn from(e: tch::TchError) -> NnError {
        NnError::Torch(e)
    }
}

/// Sets libtorch's intra-op threads for the operations the calling thread starts, and
/// returns the count (0: one per core). OpenMP keeps the count per thread, so a self-play
/// inference thread can run its small batches on one thread while the trainer's thread uses
/// every core: with two OpenMP threads on two cores beside the search thread, self-play spent
/// most of its time waking threads (400 5x5 games took 135 s instead of 44 s). Call it on the
/// thread that will run the operations, before it runs them.
pub fn init_threads(n: usize) -> usize {
    let n = if n > 0 { n } else { std::thread::available_parallelism().map_or(1, |c| c.get()) };
    tch::set_num_threads(i32::try_from(n).unwrap_or(i32::MAX));
    n
}

/// A device as a config names it, before anyone asks whether it is present.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DeviceName {
    /// CUDA device 0 when available, else the CPU.
    Auto,
    /// The CPU.
    Cpu,
    /// CUDA device N (`cuda` is device 0).
    Cuda(usize),
}

impl std::str::FromStr for DeviceName {
    type Err = Invalid;

    /// Parses `auto`, `cpu`, `cuda` or `cuda:N`; anything else is an error naming the
    /// config's key `device` and the values allowed.
    fn from_str(name: &str) -> Result<DeviceName, Invalid> {
        match name {
            "auto" => Ok(DeviceName::Auto),
            "cpu" => Ok(DeviceName::Cpu),
            "cuda" => Ok(DeviceName::Cuda(0)),
            _ => {
                let bad = || {
                    Invalid(format!("device = \"{}\": allowed auto, cpu, cuda, cuda:N", name.escape_debug()))
                };
                name.strip_prefix("cuda:").and_then(|i| i.parse().ok()).map(DeviceName::Cuda).ok_or_else(bad)
            }
        }
    }
}

/// How a config names `device`: `cpu`, `cuda:0`.
pub fn device_name(device: Device) -> String {
    match device {
        Device::Cpu => "cpu".into(),
        Device::Cuda(i) => format!("cuda:{i}"),
        Device::Mps => "mps".into(),
        Device::Vulkan => "vulkan".into(),
    }
}

/// The device named `name` ([`DeviceName`]): `auto` is CUDA when available, else the CPU.
/// Asking for CUDA without a usable GPU is an error. On CUDA, cuDNN may pick the fastest
/// convolution algorithms for the (fixed) batch shapes.
pub fn device(name: &str) -> Result<Device, NnError> {
    let cuda = |i: usize| {
        if tch::Cuda::is_available() && i < tch::Cuda::device_count() as usize {
            tch::Cuda::cudnn_set_benchmark(true);
            Ok(Device::Cuda(i))
        } else {
            Err(NnError::Config(format!("device {name}: no such CUDA device")))
        }
    };
    match name.parse().map_err(|e: Invalid| NnError::Config(e.0))? {
        DeviceName::Auto if tch::Cuda::is_available() => cuda(0),
        DeviceName::Auto | DeviceName::Cpu => Ok(Device::Cpu),
        DeviceName::Cuda(i) => cuda(i),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_parse() {
        assert_eq!(device("cpu").unwrap(), Device::Cpu);
        assert!(device("auto").is_ok());
        assert_eq!("cuda:3".parse(), Ok(DeviceName::Cuda(3)));
        let err = device("tpu").unwrap_err().to_string();
        assert!(err.ends_with("device = \"tpu\": allowed auto, cpu, cuda, cuda:N"), "{err}");
        if !tch::Cuda::is_available() {
            assert!(device("cuda:0").is_err());
        }
    }

    #[test]
    fn threads_are_set_per_thread() {
        // Each thread keeps its own count: a one-thread inference thread beside a trainer
        // thread on every core.
        let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
        assert_eq!(init_threads(0), cores);
        assert_eq!(tch::get_num_threads() as usize, cores);
        let other = std::thread::spawn(|| {
            init_threads(1);
            tch::get_num_threads()
        });
        assert_eq!(other.join().unwrap(), 1);
        assert_eq!(init_threads(3), 3);
        assert_eq!(tch::get_num_threads(), 3);
    }
}
