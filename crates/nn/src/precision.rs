//! What the inference copy of a net computes in on this machine: [`Precision`] (named in
//! configs, defined in `hane_mcts`) turned into a tensor type, [`Inference`].
//!
//! `bf16` runs the trunk (the stem and the residual blocks, nearly all of a net's arithmetic)
//! in bfloat16 and the heads in FP32: the trunk's output is cast to FP32 before its final
//! batch norm, so the policy logits, the win/draw/loss softmax and the score come out of FP32
//! layers, and the rounding is the trunk's alone. The weights on disk, and training, stay FP32;
//! the conversion happens once, when an inference net is loaded
//! ([`crate::Network::for_inference`]).
//!
//! `auto` is bf16 on a processor that computes it natively (AVX-512 BF16 or AMX BF16, read
//! from `/proc/cpuinfo`), FP32 on any other processor, and FP32 on CUDA, where libtorch through
//! tch cannot ask a GPU's compute capability (name `bf16` to use it there). The choice and its
//! reason are logged once per process ([`resolve`]). [`Hardware`] is what the choice reads, so
//! a test can describe a processor without bf16.

use crate::device_name;
use hane_mcts::Precision;
use std::io::Write;
use std::sync::OnceLock;
use tch::{Device, Kind};

/// The processor features `auto` asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hardware {
    /// The CPU has bf16 arithmetic (`avx512_bf16` or `amx_bf16`).
    pub cpu_bf16: bool,
}

impl Hardware {
    /// The features listed in `cpuinfo`, the text of Linux's `/proc/cpuinfo`.
    pub fn from_cpuinfo(cpuinfo: &str) -> Hardware {
        let flags = cpuinfo.lines().find(|l| l.starts_with("flags")).unwrap_or("");
        let cpu_bf16 = flags.split_whitespace().any(|f| f == "avx512_bf16" || f == "amx_bf16");
        Hardware { cpu_bf16 }
    }

    /// This machine's features (none where `/proc/cpuinfo` does not read), read once.
    pub fn detect() -> Hardware {
        static DETECTED: OnceLock<Hardware> = OnceLock::new();
        *DETECTED.get_or_init(|| {
            Hardware::from_cpuinfo(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default())
        })
    }
}

/// How an inference net computes: the trunk's tensor type and the reason it was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Inference {
    /// [`Kind::Float`] or [`Kind::BFloat16`].
    pub trunk: Kind,
    /// Why (for `auto`, what it found).
    pub reason: String,
}

/// The trunk's tensor type for `precision` on `device` with `hw`'s features (see the module
/// docs); pure, so tests can try any machine.
pub fn choose(precision: Precision, device: Device, hw: Hardware) -> Inference {
    let (trunk, reason) = match (precision, device) {
        (Precision::Fp32, _) => (Kind::Float, "fp32 asked for".to_string()),
        (Precision::Bf16, _) => (Kind::BFloat16, "bf16 asked for".to_string()),
        (Precision::Auto, Device::Cpu) if hw.cpu_bf16 => {
            (Kind::BFloat16, "auto: the CPU has avx512_bf16 or amx_bf16".to_string())
        }
        (Precision::Auto, Device::Cpu) => {
            (Kind::Float, "auto: the CPU has neither avx512_bf16 nor amx_bf16".to_string())
        }
        (Precision::Auto, d) => {
            (Kind::Float, format!("auto: {}'s bf16 support is not known here", device_name(d)))
        }
    };
    Inference { trunk, reason }
}

/// On CUDA, the fewest trunk channels from which a bf16 trunk runs channels-last (NHWC): the
/// CPU's rule before the FP32 layout was measured, kept where nothing has been measured since.
const CUDA_CHANNELS_LAST_FROM: usize = 96;

/// Whether an inference copy on `device` with a trunk of `channels` channels computing in
/// `trunk` runs channels-last (NHWC). On a CPU always: measured on one core of an AMD EPYC with
/// AVX-512 BF16, `hane bench precision` of this layout against the default one in alternating
/// runs (docs/benchmarks.md), FP32 ran 25%, 12% and 9% faster (medians) for the nets of the 5x5, 7x7 and
/// 9x9 configs (32, 48 and 96 channels), bf16 35% faster at 32 channels and 3% slower at 48
/// (at 96 it was channels-last already). On CUDA only a bf16 trunk of
/// [`CUDA_CHANNELS_LAST_FROM`] channels or more; training keeps the default layout everywhere.
pub fn channels_last(trunk: Kind, channels: usize, device: Device) -> bool {
    device == Device::Cpu || trunk == Kind::BFloat16 && channels >= CUDA_CHANNELS_LAST_FROM
}

/// [`choose`] on this machine; the first `auto` of the process logs its choice on stderr.
pub fn resolve(precision: Precision, device: Device) -> Inference {
    let inference = choose(precision, device, Hardware::detect());
    if precision == Precision::Auto {
        static LOGGED: OnceLock<()> = OnceLock::new();
        LOGGED.get_or_init(|| {
            let name = if inference.trunk == Kind::BFloat16 { "bf16" } else { "fp32" };
            // A closed or full stderr loses the note, not the process (as GTP's notes).
            let _ = writeln!(std::io::stderr(), "precision {name} ({})", inference.reason);
        });
    }
    inference
}

#[cfg(test)]
mod tests {
    use super::*;

    const WITH: &str = "processor\t: 0\nflags\t\t: fpu sse2 avx512f avx512_bf16 avx512_vnni\n";
    const WITHOUT: &str = "processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f avx512_vnni\n";

    #[test]
    fn the_cpu_flags_are_read_from_cpuinfo() {
        assert!(Hardware::from_cpuinfo(WITH).cpu_bf16);
        assert!(Hardware::from_cpuinfo("flags : amx_tile amx_bf16").cpu_bf16);
        assert!(!Hardware::from_cpuinfo(WITHOUT).cpu_bf16);
        assert!(!Hardware::from_cpuinfo("").cpu_bf16);
    }

    #[test]
    fn auto_is_bf16_only_where_the_processor_has_it() {
        let (with, without) = (Hardware::from_cpuinfo(WITH), Hardware::from_cpuinfo(WITHOUT));
        assert_eq!(choose(Precision::Auto, Device::Cpu, with).trunk, Kind::BFloat16);
        let no = choose(Precision::Auto, Device::Cpu, without);
        assert_eq!(no.trunk, Kind::Float);
        assert!(no.reason.contains("neither avx512_bf16 nor amx_bf16"), "{}", no.reason);
        assert_eq!(choose(Precision::Auto, Device::Cuda(0), with).trunk, Kind::Float);
        // Named precisions are what they say, whatever the machine.
        assert_eq!(choose(Precision::Bf16, Device::Cpu, without).trunk, Kind::BFloat16);
        assert_eq!(choose(Precision::Fp32, Device::Cpu, with).trunk, Kind::Float);
    }
}
