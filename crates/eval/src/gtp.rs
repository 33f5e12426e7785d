//! A GTP client: drives an external engine (GNU Go, another `hane gtp`) over its stdin and
//! stdout. Every answer is checked; an engine that dies, answers garbage or refuses a command
//! gives an error, never a hang on a closed pipe or a panic.
//!
//! Every wait is bounded ([`GtpLimits`]): an engine that does not answer within its time, or
//! whose answer never ends (a line or an answer beyond [`MAX_LINE`] or [`MAX_ANSWER`] bytes, or
//! [`MAX_ANSWER_LINES`] lines),
//! is killed and the exchange fails with [`GtpError::Unresponsive`], which loses it the game
//! (see [`crate::referee`]); a stop request ends a wait within [`POLL`] with
//! [`GtpError::Stopped`], the engine killed too. The engine runs in a process group of its
//! own, and a kill is one of the whole group: a shell command's children (`sh -c ...`) go with
//! it, and no engine outlives the process that started it ([`kill_all`] covers an exit that
//! skips destructors).

use hane_engine::range::Allowed;
use hane_host::Stop;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::fmt;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// A failed exchange with an engine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GtpError {
    /// The engine failed: it did not start, died, refused a command or answered garbage (or
    /// the referee's own player failed).
    Failed(String),
    /// The engine did not answer within its time, or its answer did not end: it was killed,
    /// and loses the game it was playing.
    Unresponsive(String),
    /// A stop was requested during a wait; the engine was killed.
    Stopped,
}

impl fmt::Display for GtpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GtpError::Failed(e) | GtpError::Unresponsive(e) => write!(f, "GTP: {e}"),
            GtpError::Stopped => write!(f, "GTP: stopped"),
        }
    }
}

impl std::error::Error for GtpError {}

/// [`GtpError::Failed`] with `message`.
pub fn failed(message: impl Into<String>) -> GtpError {
    GtpError::Failed(message.into())
}

/// The longest line of an answer read, in bytes.
pub const MAX_LINE: usize = 64 << 10;

/// The longest answer read, in bytes (`list_commands` of a large engine is a few kB).
pub const MAX_ANSWER: usize = 1 << 20;

/// The most lines of an answer read.
pub const MAX_ANSWER_LINES: usize = 10_000;

/// How often a wait looks at its stop request.
pub const POLL: Duration = Duration::from_millis(50);

/// The default time an engine has to answer one command: GNU Go's strongest level takes a
/// few seconds a move on 19x19.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How an engine's waits are bounded.
#[derive(Clone, Debug)]
pub struct GtpLimits {
    /// The longest wait for one answer.
    pub timeout: Duration,
    /// Once set, ends any wait within [`POLL`] (the process's stop request).
    pub stop: Stop,
}

impl Default for GtpLimits {
    fn default() -> GtpLimits {
        GtpLimits { timeout: DEFAULT_TIMEOUT, stop: Stop::default() }
    }
}

/// GNU Go's levels.
pub const GNUGO_LEVELS: Allowed<u8> = Allowed::closed(0, 10);

/// The seconds a GTP engine may be given to answer one command.
pub const TIMEOUT_SECS: Allowed<f64> = Allowed::closed(0.1, 86_400.0);

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

/// The process groups of the engines running now, for [`kill_all`].
static GROUPS: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Kills every engine this process started and has not ended, with its process group: for a
/// process about to exit without running destructors (a second Ctrl-C).
pub fn kill_all() {
    let groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    for &g in groups.iter() {
        kill_group(g);
    }
}

fn kill_group(group: u32) {
    if let Ok(g) = i32::try_from(group) {
        // It may have ended on its own already.
        let _ = killpg(Pid::from_raw(g), Signal::SIGKILL);
    }
}

/// One line of an engine's output as its reader thread passes it on.
type Line = Result<String, String>;

/// A started engine process: its input, and its output's lines from a reader thread (so a
/// wait can time out).
#[derive(Debug)]
struct Process {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
}

impl Process {
    fn start(program: &str, args: &[&str]) -> Result<Process, String> {
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| e.to_string())?;
        GROUPS.lock().unwrap_or_else(|e| e.into_inner()).push(child.id());
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("no pipes".into());
        };
        // A few lines ahead at most: an engine that writes without end blocks on its pipe.
        let (tx, lines) = sync_channel(64);
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            while let Some(line) = read_line(&mut out) {
                let end = line.is_err();
                if tx.send(line).is_err() || end {
                    return;
                }
            }
        });
        Ok(Process { child, stdin, lines })
    }

    /// Kills the process group and reaps the engine.
    fn kill(mut self) {
        kill_group(self.child.id());
        let _ = self.child.wait();
        forget_group(self.child.id());
    }
}

fn forget_group(group: u32) {
    GROUPS.lock().unwrap_or_else(|e| e.into_inner()).retain(|&g| g != group);
}

/// The next line of `out` without its line ending; `None` at the end, an error for a line
/// longer than [`MAX_LINE`] or a failed read.
fn read_line(out: &mut impl BufRead) -> Option<Line> {
    let mut buf = Vec::new();
    match out.take(MAX_LINE as u64 + 1).read_until(b'\n', &mut buf) {
        Ok(0) => None,
        Ok(_) if buf.len() > MAX_LINE => Some(Err(format!("a line longer than {MAX_LINE} bytes"))),
        Ok(_) => {
            let text = String::from_utf8_lossy(&buf);
            Some(Ok(text.trim_end_matches(['\r', '\n']).to_string()))
        }
        Err(e) => Some(Err(format!("read failed: {e}"))),
    }
}

/// A running GTP engine; dropping it ends it.
#[derive(Debug)]
pub struct GtpEngine {
    name: String,
    command: String,
    limits: GtpLimits,
    /// `None` once killed.
    process: Option<Process>,
}

impl GtpEngine {
    /// Starts `command` (split on whitespace: program then arguments), with the default
    /// limits and no stop request.
    pub fn spawn(command: &str) -> Result<GtpEngine, GtpError> {
        GtpEngine::spawn_with(command, GtpLimits::default())
    }

    /// Starts `command` (split on whitespace: program then arguments), its waits bounded by
    /// `limits`.
    pub fn spawn_with(command: &str, limits: GtpLimits) -> Result<GtpEngine, GtpError> {
        let words: Vec<&str> = command.split_whitespace().collect();
        let Some((program, args)) = words.split_first() else { return Err(failed("empty engine command")) };
        let base =
            std::path::Path::new(program).file_name().map_or((*program).into(), |b| b.to_string_lossy());
        let name = std::iter::once(base.as_ref()).chain(args.iter().copied()).collect::<Vec<_>>().join(" ");
        let mut engine = GtpEngine { name, command: command.into(), limits, process: None };
        engine.restart()?;
        Ok(engine)
    }

    /// Starts the engine again if it was killed (after an answer that did not come).
    pub fn restart(&mut self) -> Result<(), GtpError> {
        if self.process.is_none() {
            let words: Vec<&str> = self.command.split_whitespace().collect();
            let p = Process::start(words[0], &words[1..])
                .map_err(|e| failed(format!("cannot start \"{}\": {e}", self.command.escape_debug())))?;
            self.process = Some(p);
        }
        Ok(())
    }

    /// The command line it was started with, the program without its folder.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The process id of the running engine (also its process group's), if it runs.
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(|p| p.child.id())
    }

    /// Sends one command and returns the text of a success response (`= ...`). An engine
    /// that does not answer in time, or without end, is killed (see the module docs).
    pub fn send(&mut self, command: &str) -> Result<String, GtpError> {
        let name = &self.name;
        let Some(p) = self.process.as_mut() else {
            return Err(GtpError::Unresponsive(format!("{name} was killed after an earlier command")));
        };
        writeln!(p.stdin, "{command}")
            .and_then(|()| p.stdin.flush())
            .map_err(|e| failed(format!("{name}: cannot send \"{}\": {e}", command.escape_debug())))?;
        let response = match answer(&p.lines, &self.limits) {
            Ok(r) => r,
            Err(e) => {
                if let Some(p) = self.process.take() {
                    p.kill();
                }
                return Err(e.about(name, command));
            }
        };
        let (status, rest) = response.split_at(1);
        let text = rest.trim_start_matches(|c: char| c.is_ascii_digit()).trim().to_string();
        match status {
            "=" => Ok(text),
            "?" => Err(failed(format!("{name} refused \"{}\": {text}", command.escape_debug()))),
            _ => Err(failed(format!(
                "{name} answered \"{}\" to \"{}\"",
                response.escape_debug(),
                command.escape_debug()
            ))),
        }
    }
}

/// Why no answer came.
enum NoAnswer {
    Closed,
    Garbage(String),
    Late(Duration),
    Endless,
    Stopped,
}

impl NoAnswer {
    /// The error of `engine`'s answer to `command` that did not come.
    fn about(self, engine: &str, command: &str) -> GtpError {
        let command = command.escape_debug();
        match self {
            NoAnswer::Closed => failed(format!("{engine} closed its output after \"{command}\"")),
            NoAnswer::Garbage(e) => GtpError::Unresponsive(format!("{engine}: {e} after \"{command}\"")),
            NoAnswer::Late(t) => GtpError::Unresponsive(format!(
                "{engine} did not answer \"{command}\" within {} s",
                t.as_secs_f64()
            )),
            NoAnswer::Endless => GtpError::Unresponsive(format!(
                "{engine}'s answer to \"{command}\" went on beyond {MAX_ANSWER} bytes or {MAX_ANSWER_LINES} lines"
            )),
            NoAnswer::Stopped => GtpError::Stopped,
        }
    }
}

/// The lines of one answer (those up to the blank line that ends it, leading blank lines
/// skipped), joined by newlines, within `limits`.
fn answer(lines: &Receiver<Line>, limits: &GtpLimits) -> Result<String, NoAnswer> {
    let deadline = Instant::now() + limits.timeout;
    let (mut response, mut count) = (String::new(), 0);
    loop {
        if limits.stop.requested() {
            return Err(NoAnswer::Stopped);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(NoAnswer::Late(limits.timeout));
        }
        let line = match lines.recv_timeout(left.min(POLL)) {
            Ok(Ok(line)) => line,
            Ok(Err(e)) => return Err(NoAnswer::Garbage(e)),
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return Err(NoAnswer::Closed),
        };
        if line.is_empty() {
            if response.is_empty() {
                continue;
            }
            return Ok(response);
        }
        count += 1;
        if response.len() + line.len() >= MAX_ANSWER || count > MAX_ANSWER_LINES {
            return Err(NoAnswer::Endless);
        }
        if !response.is_empty() {
            response.push('\n');
        }
        response.push_str(&line);
    }
}

/// How long an engine has to quit when asked before it is killed.
const QUIT_GRACE: Duration = Duration::from_secs(1);

impl Drop for GtpEngine {
    fn drop(&mut self) {
        let Some(mut p) = self.process.take() else { return };
        let _ = writeln!(p.stdin, "quit");
        let _ = p.stdin.flush();
        let deadline = Instant::now() + QUIT_GRACE;
        while Instant::now() < deadline {
            match p.child.try_wait() {
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                _ => break,
            }
        }
        // Whatever is left of its group (children of a shell command, or an engine that
        // ignored `quit`) goes too.
        p.kill();
    }
}
