//! A tiny GTP (Go Text Protocol v2) client for differential tests: spawns an engine as a
//! child process and exchanges one command at a time over its stdin/stdout.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A running GTP engine.
pub struct Gtp {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// The command line, for messages.
    pub label: String,
}

impl Gtp {
    /// Starts `program` with `args`; stderr is discarded.
    pub fn spawn(program: &PathBuf, args: &[&str]) -> std::io::Result<Gtp> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = BufReader::new(child.stdout.take().expect("piped stdout"));
        Ok(Gtp { child, stdin, stdout, label: format!("{} {}", program.display(), args.join(" ")) })
    }

    /// Sends one command; `Ok(body)` for a `=` answer, `Err(message)` for a `?` answer. The
    /// body has the status character, the blank separator and surrounding whitespace removed;
    /// a multi-line answer keeps its inner newlines. Panics if the engine dies or speaks
    /// something that is not GTP.
    pub fn cmd(&mut self, command: &str) -> Result<String, String> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .unwrap_or_else(|e| panic!("{}: cannot send {command:?}: {e}", self.label));
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .unwrap_or_else(|e| panic!("{}: read error after {command:?}: {e}", self.label));
            assert!(n > 0, "{}: engine closed its output after {command:?}", self.label);
            let line = line.trim_end_matches(['\n', '\r']).to_string();
            if line.is_empty() {
                if lines.is_empty() {
                    continue; // stray blank line before an answer
                }
                break;
            }
            lines.push(line);
        }
        let text = lines.join("\n");
        let (ok, rest) = match text.chars().next() {
            Some('=') => (true, &text[1..]),
            Some('?') => (false, &text[1..]),
            _ => panic!("{}: not a GTP answer to {command:?}: {text:?}", self.label),
        };
        // Skip an optional numeric id after the status character.
        let rest = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim();
        if ok {
            Ok(rest.to_string())
        } else {
            Err(rest.to_string())
        }
    }

    /// Sends a command that must succeed.
    pub fn ok(&mut self, command: &str) -> String {
        match self.cmd(command) {
            Ok(s) => s,
            Err(e) => panic!("{}: {command:?} failed: {e}", self.label),
        }
    }
}

impl Drop for Gtp {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        if !matches!(self.child.try_wait(), Ok(Some(_))) {
            // Give it a moment to quit by itself, then make sure it is gone.
            for _ in 0..50 {
                if matches!(self.child.try_wait(), Ok(Some(_))) {
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
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
