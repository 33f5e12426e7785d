//! Files hane is given go through its one bounded reader: a device that never ends costs the
//! kind's limit, not the machine's memory; what a run folder holds must be a regular file,
//! so a FIFO there is refused at once instead of holding the command; what a user names may
//! be a pipe, which is read.

mod run;

use run::{hane, mkfifo};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A fresh folder `hane-NAME-PID` under the temporary directory.
fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hane-inputs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `hane ARGS`, which must end within 5 seconds: its exit code and stderr.
fn quick(args: &[&str]) -> (i32, String) {
    let t = Instant::now();
    let (code, _, err) = hane(args);
    assert!(t.elapsed() < Duration::from_secs(5), "{args:?} took {:?}", t.elapsed());
    (code, err)
}

#[test]
fn a_device_that_never_ends_is_refused_at_the_kinds_limit() {
    let (code, err) = quick(&["replay", "--sgf", "/dev/zero"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("/dev/zero: larger than 67108864 bytes, the most an SGF file may hold"), "{err}");
    let (code, err) = quick(&["selfplay", "--config", "/dev/zero", "--games", "1", "--out", "/nonexistent"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("larger than 1048576 bytes, the most a config may hold"), "{err}");
}

#[test]
fn a_pipe_a_user_names_is_read() {
    let dir = fresh("pipe");
    let fifo = dir.join("game.sgf");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, "(;GM[1]SZ[5]KM[0];B[cc];W[bb])").unwrap())
    };
    let (code, err) = quick(&["replay", "--sgf", fifo.to_str().unwrap()]);
    writer.join().unwrap();
    assert_eq!(code, 0, "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_fifo_where_a_run_folder_keeps_a_file_is_refused_at_once() {
    // The komi estimate's own progress file.
    let dir = fresh("komi");
    mkfifo(&dir.join("komi.json"));
    let out = dir.to_str().unwrap();
    let (code, err) =
        quick(&["komi", "--size", "5", "--evaluator", "rollout", "--visits", "10", "--out", out]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("komi.json: is a FIFO or pipe, and a report must be a regular file"), "{err}");
    // The solver's save.
    let save = dir.join("table");
    mkfifo(&save);
    let (code, err) = quick(&["solve", "--rules", "ttakji", "--size", "2", "--save", save.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a FIFO or pipe, and a solver save must be a regular file"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn gtp_loadsgf_of_a_fifo_is_an_error_and_the_engine_goes_on() {
    let dir = fresh("loadsgf");
    let fifo = dir.join("game.sgf");
    mkfifo(&fifo);
    let mut child = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(["gtp", "--visits", "4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let input = format!("1 loadsgf {}\n2 name\n3 quit\n", fifo.display());
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let t = Instant::now();
    let out = child.wait_with_output().unwrap();
    assert!(t.elapsed() < Duration::from_secs(5));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("?1 cannot load file: "), "{text}");
    assert!(text.contains("is a FIFO or pipe") && text.contains("=2 hane"), "{text}");
    let _ = std::fs::remove_dir_all(dir);
}
