//! Axis ticks at "nice" numbers: steps of 1, 2 or 5 times a power of ten, with labels that
//! show just enough decimals.

/// Ticks for one axis: evenly spaced values and how to print them.
#[derive(Clone, Debug, PartialEq)]
pub struct Ticks {
    /// Tick values, increasing, evenly spaced by [`Ticks::step`].
    pub values: Vec<f64>,
    /// The distance between neighbouring ticks.
    pub step: f64,
    /// Decimals needed to tell the ticks apart.
    decimals: usize,
}

impl Ticks {
    /// The label for `value` with the decimals these ticks need (scientific notation for very
    /// large or very small magnitudes).
    pub fn label(&self, value: f64) -> String {
        let value = if value == 0.0 { 0.0 } else { value }; // no "-0"
        let big = self.values.iter().any(|v| v.abs() >= 1e7);
        if big || self.decimals > 6 {
            format!("{value:e}")
        } else {
            format!("{value:.*}", self.decimals)
        }
    }
}

/// Nice ticks covering `lo..=hi` with about `target` ticks: the first tick is at or below `lo`,
/// the last at or above `hi`, and the step is 1, 2 or 5 times a power of ten. An empty or
/// zero-width range is widened around its value; a non-finite one becomes `0..=1`.
pub fn nice_ticks(lo: f64, hi: f64, target: usize) -> Ticks {
    let (mut lo, mut hi) =
        if lo.is_finite() && hi.is_finite() { (lo.min(hi), lo.max(hi)) } else { (0.0, 1.0) };
    if hi - lo <= lo.abs().max(hi.abs()) * 1e-12 {
        let pad = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
        (lo, hi) = (lo - pad, hi + pad);
    }
    let intervals = target.max(2) - 1;
    // Dividing before subtracting keeps the width finite for ranges near f64::MAX.
    let raw = hi / intervals as f64 - lo / intervals as f64;
    let fallback = |decimals| Ticks { values: vec![lo, hi], step: hi - lo, decimals };
    if !(raw.is_finite() && (1e-300..=1e300).contains(&raw)) {
        return fallback(0);
    }
    let mut exp = raw.log10().floor() as i32;
    let f = raw / 10f64.powi(exp);
    let mantissa = match f {
        f if f <= 1.0 => 1,
        f if f <= 2.0 => 2,
        f if f <= 5.0 => 5,
        _ => {
            exp += 1;
            1
        }
    };
    // A value is `k * mantissa * 10^exp`; dividing by an exact power of ten keeps 0.3 as 0.3.
    let value = |k: f64| {
        let m = k * mantissa as f64;
        if exp < 0 {
            m / 10f64.powi(-exp)
        } else {
            m * 10f64.powi(exp)
        }
    };
    let step = value(1.0);
    // The slack keeps an end that is a tick up to rounding from growing a whole extra step.
    let first = (lo / step + 1e-9).floor();
    let last = (hi / step - 1e-9).ceil();
    let decimals = (-exp).max(0) as usize;
    let sane = step.is_finite() && step > 0.0 && (0.0..=1000.0).contains(&(last - first));
    if !sane || !value(first - 1.0).is_finite() || !value(last + 1.0).is_finite() {
        return fallback(decimals);
    }
    let mut values: Vec<f64> = (0..=(last - first) as i64).map(|i| value(first + i as f64)).collect();
    // Guard the ends against rounding in the division above.
    if values[0] > lo {
        values.insert(0, value(first - 1.0));
    }
    if *values.last().unwrap() < hi {
        values.push(value(last + 1.0));
    }
    Ticks { values, step, decimals }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_nice(step: f64) -> bool {
        let exp = step.log10().floor();
        let m = step / 10f64.powf(exp);
        [1.0, 2.0, 5.0, 10.0].iter().any(|n| (m - n).abs() < 1e-9)
    }

    fn check_cover(lo: f64, hi: f64, target: usize) -> Ticks {
        let t = nice_ticks(lo, hi, target);
        assert!(is_nice(t.step), "{lo}..{hi}: step {} is not nice", t.step);
        assert!(t.values.len() >= 2, "{lo}..{hi}: {:?}", t.values);
        assert!(t.values[0] <= lo && *t.values.last().unwrap() >= hi, "{lo}..{hi}: {:?}", t.values);
        for w in t.values.windows(2) {
            assert!(((w[1] - w[0]) - t.step).abs() <= t.step * 1e-9, "{lo}..{hi}: {:?}", t.values);
        }
        // Not wildly more ticks than asked for, and no whole empty step at either end.
        assert!(t.values.len() <= 2 * target + 2, "{lo}..{hi}: {:?}", t.values);
        assert!(t.values[1] > lo && t.values[t.values.len() - 2] < hi, "{lo}..{hi}: {:?}", t.values);
        t
    }

    #[test]
    fn ticks_are_nice_and_cover_the_range() {
        assert_eq!(check_cover(0.0, 37.0, 5).values, vec![0.0, 10.0, 20.0, 30.0, 40.0]);
        assert_eq!(check_cover(0.42, 0.58, 5).values, vec![0.4, 0.45, 0.5, 0.55, 0.6]);
        assert_eq!(
            check_cover(-212.0, 35.0, 6).values,
            vec![-250.0, -200.0, -150.0, -100.0, -50.0, 0.0, 50.0]
        );
        assert_eq!(check_cover(0.0, 1.0, 6).values, vec![0.0, 0.2, 0.4, 0.6, 0.8, 1.0]);
        assert_eq!(check_cover(5.5, 9.5, 9).values, vec![5.5, 6.0, 6.5, 7.0, 7.5, 8.0, 8.5, 9.0, 9.5]);
        for &(lo, hi) in &[(1e-9, 3e-9), (-1e12, 1e12), (3.0, 3.0001), (-0.001, 0.0), (123456.0, 123999.0)] {
            for target in [2, 3, 5, 8, 12] {
                check_cover(lo, hi, target);
            }
        }
    }

    #[test]
    fn tick_values_are_exact_decimals() {
        let t = nice_ticks(0.0, 1.0, 11);
        assert_eq!(t.values[3], 0.3);
        assert_eq!(t.values[7], 0.7);
    }

    #[test]
    fn degenerate_ranges_are_widened() {
        let t = nice_ticks(0.5, 0.5, 5);
        assert!(t.values[0] < 0.5 && *t.values.last().unwrap() > 0.5);
        let t = nice_ticks(0.0, 0.0, 5);
        assert!(t.values[0] <= -1.0 && *t.values.last().unwrap() >= 1.0);
        let t = nice_ticks(f64::NAN, 3.0, 5);
        assert_eq!((t.values[0], *t.values.last().unwrap()), (0.0, 1.0));
        let t = nice_ticks(9.0, 1.0, 5);
        assert!(t.values[0] <= 1.0 && *t.values.last().unwrap() >= 9.0);
        let t = nice_ticks(-f64::MAX, f64::MAX, 5);
        assert!(t.values.iter().all(|v| v.is_finite()) && t.values.len() >= 2);
        let t = nice_ticks(0.0, 1.0, 0);
        assert!(t.values.len() >= 2);
    }

    #[test]
    fn labels_use_the_decimals_the_step_needs() {
        let t = nice_ticks(0.42, 0.58, 5);
        let labels: Vec<String> = t.values.iter().map(|&v| t.label(v)).collect();
        assert_eq!(labels, ["0.40", "0.45", "0.50", "0.55", "0.60"]);
        let t = nice_ticks(-212.0, 35.0, 6);
        assert_eq!(t.label(-0.0), "0");
        assert_eq!(t.label(-150.0), "-150");
        let t = nice_ticks(0.0, 3e8, 4);
        assert_eq!(t.label(1e8), "1e8");
    }
}
