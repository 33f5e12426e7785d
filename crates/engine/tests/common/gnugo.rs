//! GNU Go for the differential tests: where it is, what to do when it is missing, and a GTP
//! session with it through hane's one GTP client ([`hane_eval::gtp::GtpEngine`]).

use hane_eval::gtp::GtpEngine;
use std::path::{Path, PathBuf};

/// GNU Go at `program`, started with `args` (panics if it cannot start).
pub fn start(program: &Path, args: &[&str]) -> GtpEngine {
    let command = format!("{} {}", program.display(), args.join(" "));
    GtpEngine::spawn(&command).unwrap_or_else(|e| panic!("start GNU Go: {e}"))
}

/// Where GNU Go is: `$HANE_GNUGO`, else `gnugo` on `PATH`, else `/usr/games/gnugo` (Debian
/// installs it there, outside the default `PATH`).
pub fn find_gnugo() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("HANE_GNUGO") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|paths| std::env::split_paths(&paths).collect::<Vec<_>>())
        .map(|d| d.join("gnugo"));
    on_path.chain([PathBuf::from("/usr/games/gnugo")]).find(|p| p.is_file())
}

/// GNU Go, or `None` after a loud message when it is missing outside CI. In CI (`CI` set to
/// anything but empty, `0` or `false`) a missing GNU Go is a test failure.
pub fn gnugo_or_skip(test: &str) -> Option<PathBuf> {
    if let Some(p) = find_gnugo() {
        return Some(p);
    }
    let ci = std::env::var("CI")
        .map(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
        .unwrap_or(false);
    assert!(
        !ci,
        "{test}: GNU Go not found (looked at $HANE_GNUGO, PATH and /usr/games/gnugo) and CI is set; \
         install it (apt-get install gnugo)"
    );
    eprintln!();
    eprintln!("################################################################");
    eprintln!("## SKIPPED {test}: GNU Go is not installed.");
    eprintln!("## Install it (apt-get install gnugo) or set HANE_GNUGO=/path/to/gnugo.");
    eprintln!("################################################################");
    eprintln!();
    None
}
