//! The range check every config and argument of the workspace uses, so that each refusal
//! reads the same: the key, the value and the range allowed; and [`Invalid`], the error of
//! every config table's validation.

use std::fmt::Display;
use std::ops::RangeInclusive;

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

/// `Ok` when `v` is in `range` (never for NaN), else `key = v: allowed start..=end`.
pub fn in_range<T: PartialOrd + Display>(key: &str, v: T, range: RangeInclusive<T>) -> Result<(), Invalid> {
    if range.contains(&v) {
        Ok(())
    } else {
        Err(Invalid(format!("{key} = {v}: allowed {}..={}", range.start(), range.end())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_key_value_and_range_and_nan_is_never_in_range() {
        assert_eq!(in_range("threads", 4, 1..=1024), Ok(()));
        assert_eq!(in_range("threads", 0, 1..=1024).unwrap_err().0, "threads = 0: allowed 1..=1024");
        assert!(in_range("lr", f64::NAN, 0.0..=10.0).is_err());
        assert!(in_range("lr", f64::INFINITY, 0.0..=f64::MAX).is_err());
    }
}
