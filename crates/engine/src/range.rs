//! The values a config key or argument allows, declared once as an [`Allowed`] constant
//! beside what it limits: the check at load, the doc comment (which links to the constant)
//! and the command line's help (which prints it) all read that one declaration, so each
//! refusal reads the same (the key, the value and what is allowed). And [`Invalid`], the
//! error of every config table's validation.

use std::fmt::{self, Display};

crate::message_error!(
    /// A config value or argument that is not allowed, with a message naming the key, the
    /// value and what is allowed.
    Invalid
);

impl From<Invalid> for String {
    fn from(e: Invalid) -> String {
        e.0
    }
}

/// An interval of allowed values: closed at both ends unless built by [`Allowed::above`]
/// (open at the bottom) or [`Allowed::below`] (open at the top). NaN is never allowed, nor
/// an infinity unless an end is one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Allowed<T> {
    lo: T,
    hi: T,
    lo_open: bool,
    hi_open: bool,
}

impl<T> Allowed<T> {
    /// `lo..=hi`.
    pub const fn closed(lo: T, hi: T) -> Self {
        Allowed { lo, hi, lo_open: false, hi_open: false }
    }

    /// Above `lo`, up to and including `hi`.
    pub const fn above(lo: T, hi: T) -> Self {
        Allowed { lo, hi, lo_open: true, hi_open: false }
    }

    /// From `lo`, up to but not including `hi`.
    pub const fn below(lo: T, hi: T) -> Self {
        Allowed { lo, hi, lo_open: false, hi_open: true }
    }
}

impl<T: Copy> Allowed<T> {
    /// The lowest end.
    pub const fn lo(&self) -> T {
        self.lo
    }

    /// The highest end.
    pub const fn hi(&self) -> T {
        self.hi
    }
}

impl<T: PartialOrd + Display + Copy> Allowed<T> {
    /// Whether `v` is allowed.
    pub fn contains(&self, v: T) -> bool {
        let above_lo = if self.lo_open { v > self.lo } else { v >= self.lo };
        let below_hi = if self.hi_open { v < self.hi } else { v <= self.hi };
        above_lo && below_hi
    }

    /// `Ok` when `v` is allowed, else `key = v: allowed …`.
    pub fn check(&self, key: &str, v: T) -> Result<(), Invalid> {
        if self.contains(v) {
            Ok(())
        } else {
            Err(Invalid(format!("{key} = {v}: allowed {self}")))
        }
    }
}

impl<T: Display> Display for Allowed<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.lo_open, self.hi_open) {
            (false, false) => write!(f, "{}..={}", self.lo, self.hi),
            (true, false) => write!(f, "above {}, up to {}", self.lo, self.hi),
            (false, true) => write!(f, "{} up to (not including) {}", self.lo, self.hi),
            (true, true) => write!(f, "between {} and {} (neither included)", self.lo, self.hi),
        }
    }
}

/// A fraction or probability: 0 to 1.
pub const FRACTION: Allowed<f64> = Allowed::closed(0.0, 1.0);

/// [`FRACTION`] for values held as `f32`.
pub const FRACTION_F32: Allowed<f32> = Allowed::closed(0.0, 1.0);

/// Random opening turns of a match's games, and other counts of a game's turns.
pub const TURNS: Allowed<u32> = Allowed::closed(0, 1000);

/// Threads of any one kind.
pub const THREADS: Allowed<usize> = Allowed::closed(1, 1024);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_key_value_and_range_and_nan_is_never_allowed() {
        assert_eq!(THREADS.check("threads", 4), Ok(()));
        assert_eq!(THREADS.check("threads", 0).unwrap_err().0, "threads = 0: allowed 1..=1024");
        assert!(Allowed::closed(0.0, 10.0).check("lr", f64::NAN).is_err());
        assert!(Allowed::closed(0.0, f64::MAX).check("lr", f64::INFINITY).is_err());
        let lr = Allowed::above(0.0, 10.0);
        assert_eq!(lr.check("lr", 0.0).unwrap_err().0, "lr = 0: allowed above 0, up to 10");
        assert!(lr.contains(10.0) && lr.contains(1e-9));
        let momentum = Allowed::below(0.0, 1.0);
        assert_eq!(
            momentum.check("momentum", 1.0).unwrap_err().0,
            "momentum = 1: allowed 0 up to (not including) 1"
        );
        assert!(momentum.contains(0.0) && !momentum.contains(f64::NAN));
    }
}
