//! CPU time as Linux counts it, for GTP's `cputime` and the benchmarks.

/// CPU seconds (user and system) in a Linux `stat` file: `/proc/self/stat` for the process,
/// `/proc/thread-self/stat` for the calling thread (utime + stime, in Linux's fixed clock ticks
/// of 1/100 s).
pub fn cpu_seconds(path: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(path).ok()?;
    // Fields after the command name (which ends with ')'): state is field 3, utime 14, stime 15.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}
