//! A GTP client: drives an external engine (GNU Go, another `hane gtp`) over its stdin and
//! stdout. Every answer is checked; an engine that dies, answers garbage or refuses a command
//! gives an error, never a hang on a closed pipe or a panic.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

/// A failed exchange with an engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GtpError(pub String);

impl fmt::Display for GtpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GTP: {}", self.0)
    }
}

impl std::error::Error for GtpError {}

/// The GNU Go program: `$HANE_GNUGO` if set, else `gnugo` on `PATH`, else Debian's
/// `/usr/games/gnugo` (Debian installs it outside a non-login `PATH`).
pub fn gnugo_program() -> String {
    if let Ok(p) = std::env::var("HANE_GNUGO") {
        return p;
    }
    let on_path = std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|d| d.join("gnugo").is_file()));
    if on_path || !std::path::Path::new("/usr/games/gnugo").is_file() {
        "gnugo".into()
    } else {
        "/usr/games/gnugo".into()
    }
}

/// A running GTP engine.
#[derive(Debug)]
pub struct GtpEngine {
    name: String,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl GtpEngine {
    /// Starts `command` (split on whitespace: program then arguments).
    pub fn spawn(command: &str) -> Result<GtpEngine, GtpError> {
        let mut words = command.split_whitespace();
        let program = words.next().ok_or_else(|| GtpError("empty engine command".into()))?;
        let mut child = Command::new(program)
            .args(words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| GtpError(format!("cannot start {command:?}: {e}")))?;
        let stdin = child.stdin.take().ok_or_else(|| GtpError("no stdin".into()))?;
        let stdout = BufReader::new(child.stdout.take().ok_or_else(|| GtpError("no stdout".into()))?);
        let base = std::path::Path::new(program).file_name().map_or(program.into(), |b| b.to_string_lossy());
        let name = std::iter::once(base.as_ref())
            .chain(command.split_whitespace().skip(1))
            .collect::<Vec<_>>()
            .join(" ");
        Ok(GtpEngine { name, child, stdin, stdout })
    }

    /// The command line it was started with, the program without its folder.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Sends one command and returns the text of a success response (`= ...`).
    pub fn send(&mut self, command: &str) -> Result<String, GtpError> {
        writeln!(self.stdin, "{command}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| GtpError(format!("{}: cannot send {command:?}: {e}", self.name)))?;
        let mut response = String::new();
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(|e| GtpError(format!("{}: read failed: {e}", self.name)))?;
            if n == 0 {
                return Err(GtpError(format!("{} closed its output after {command:?}", self.name)));
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if response.is_empty() {
                    continue;
                }
                break;
            }
            if !response.is_empty() {
                response.push('\n');
            }
            response.push_str(line);
        }
        let (status, rest) = response.split_at(1);
        let text = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim().to_string();
        match status {
            "=" => Ok(text),
            "?" => Err(GtpError(format!("{} refused {command:?}: {text}", self.name))),
            _ => Err(GtpError(format!("{} answered {response:?} to {command:?}", self.name))),
        }
    }
}

impl Drop for GtpEngine {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let _ = self.child.wait();
    }
}
