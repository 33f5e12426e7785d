//! CPU time as Linux counts it, for GTP's `cputime`, the benchmarks and a run's phases.

/// CPU seconds (user and system) in a Linux `stat` file: `/proc/self/stat` for the process,
/// `/proc/thread-self/stat` for the calling thread (utime + stime, in Linux's fixed clock ticks
/// of 1/100 s).
pub fn cpu_seconds(path: &str) -> Option<f64> {
    ticks(&std::fs::read_to_string(path).ok()?, 2)
}

/// CPU seconds of this process and of its children that have ended and been waited for
/// (a GTP opponent's, for one): utime, stime, cutime and cstime of `/proc/self/stat`.
pub fn process_and_children_seconds() -> Option<f64> {
    ticks(&std::fs::read_to_string("/proc/self/stat").ok()?, 4)
}

/// The sum of the first `fields` of utime, stime, cutime and cstime in a `stat` file's text,
/// in seconds.
fn ticks(stat: &str, fields: usize) -> Option<f64> {
    // Fields after the command name (which ends with ')'): state is field 3, utime 14, stime
    // 15, cutime 16, cstime 17.
    let rest = stat.get(stat.rfind(')')? + 2..)?;
    let f: Vec<&str> = rest.split_whitespace().collect();
    let mut sum = 0.0;
    for i in 11..11 + fields {
        sum += f.get(i)?.parse::<f64>().ok()?;
    }
    Some(sum / 100.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ticks_are_read_after_the_command_name() {
        // A command name with spaces and a parenthesis, as Linux allows.
        let stat = "42 (a (b) c) S 1 2 3 4 5 6 7 8 9 10 150 25 300 75 20 0";
        assert_eq!(ticks(stat, 2), Some(1.75));
        assert_eq!(ticks(stat, 4), Some(5.5));
        assert_eq!(ticks("42 (cut", 2), None);
        assert_eq!(ticks("42 (x) S 1 2", 2), None);
        assert!(process_and_children_seconds().is_some_and(|s| s >= 0.0));
    }
}
