//! The arithmetic a net evaluator runs in: [`Precision`], named in configs and on the command
//! line. It lives here, beside the [`Evaluator`](crate::Evaluator) trait, because self-play's
//! config names it and builds without libtorch; `hane_nn` turns it into a tensor type for the
//! machine it runs on.

use hane_engine::range::Invalid;
use std::fmt;
use std::str::FromStr;

/// The precision of a net's inference copy; the weights on disk and in training stay FP32.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// 32-bit floats throughout: exactly what training computes.
    #[default]
    Fp32,
    /// bfloat16 in the trunk (8 bits of mantissa, FP32's range), FP32 in the heads.
    Bf16,
    /// bf16 where the processor or GPU computes it natively, FP32 elsewhere.
    Auto,
}

impl Precision {
    /// Every precision, as written.
    pub const NAMES: [&'static str; 3] = ["fp32", "bf16", "auto"];
}

impl FromStr for Precision {
    type Err = Invalid;

    /// Parses `fp32`, `bf16` or `auto`; anything else is an error naming the key `precision`
    /// and the values allowed.
    fn from_str(s: &str) -> Result<Precision, Invalid> {
        match s {
            "fp32" => Ok(Precision::Fp32),
            "bf16" => Ok(Precision::Bf16),
            "auto" => Ok(Precision::Auto),
            _ => Err(Invalid(format!(
                "precision = \"{}\": allowed {}",
                s.escape_debug(),
                Precision::NAMES.join(", ")
            ))),
        }
    }
}

impl fmt::Display for Precision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = match self {
            Precision::Fp32 => 0,
            Precision::Bf16 => 1,
            Precision::Auto => 2,
        };
        f.write_str(Precision::NAMES[i])
    }
}

/// A precision in a config file is its name.
#[cfg(feature = "serde")]
impl serde::Serialize for Precision {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Precision {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Precision, D::Error> {
        String::deserialize(d)?.parse().map_err(|e: Invalid| serde::de::Error::custom(e.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precisions_parse_and_print_as_written() {
        for name in Precision::NAMES {
            assert_eq!(name.parse::<Precision>().unwrap().to_string(), name);
        }
        assert_eq!(Precision::default(), Precision::Fp32);
    }

    #[test]
    fn an_unknown_precision_is_an_error_naming_the_allowed_ones() {
        for bad in ["fp16", "", "BF16", "bf16 "] {
            let err = bad.parse::<Precision>().unwrap_err().0;
            assert_eq!(err, format!("precision = {bad:?}: allowed fp32, bf16, auto"));
        }
    }
}
