//! The input matrix: every command and every file it reads, each given as each thing a path
//! can be (missing, a folder, a FIFO nobody writes to, `/dev/zero`, a link to it, empty, one
//! byte over its kind's limit, not UTF-8, and, where a user names it, a process substitution
//! of a valid file). Every case must end within 5 seconds, itself or after a stop (SIGINT at
//! 3 seconds), with exit 0, 1, 2 or 130 (or killed by the SIGINT before a handler is
//! installed, which a shell reports as 130), a message on stderr where it fails, no panic, and
//! at most 1 GiB resident. A FIFO where hane keeps a file of its own is refused at once; one a
//! user names waits for its writer until the stop.

mod run;

use nix::sys::resource::{getrusage, UsageWho};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// What the path of a case is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Missing,
    Folder,
    Fifo,
    DevZero,
    LinkToDevZero,
    Empty,
    OverLimit,
    NotUtf8,
    /// `<(cat VALID)`, for what a user names.
    Substituted,
}

const SHAPES: [Shape; 9] = [
    Shape::Missing,
    Shape::Folder,
    Shape::Fifo,
    Shape::DevZero,
    Shape::LinkToDevZero,
    Shape::Empty,
    Shape::OverLimit,
    Shape::NotUtf8,
    Shape::Substituted,
];

/// One file one command reads.
struct Input {
    /// The command and the file, as a failure names them.
    name: &'static str,
    /// Whether a user names it (a pipe is read) or hane keeps it in a folder of its own
    /// (a regular file only).
    named: bool,
    /// The most bytes its kind may hold.
    limit: u64,
    /// Whether its kind is text.
    text: bool,
    /// Whether a missing file is a normal state (a run not yet started); then the missing
    /// case starts real work and is left out.
    absent_ok: bool,
    /// Valid contents, for the substituted case.
    valid: &'static str,
    /// Lays out the case's folder (`dir`) and says where the file goes and the command line,
    /// with `@` where the path goes.
    layout: fn(&Path) -> (PathBuf, Vec<String>),
    /// Lines for the command's stdin.
    stdin: &'static str,
}

const CONFIG_LIMIT: u64 = 1 << 20;
const SGF_LIMIT: u64 = 64 << 20;
const REPORT_LIMIT: u64 = 256 << 20;
const CHECKPOINT_LIMIT: u64 = 8 << 30;
const BOOK_LIMIT: u64 = 1 << 30;
const SOLVER_SAVE_LIMIT: u64 = 64 << 30;

/// A small valid self-play config (3x3, 8 visits).
const CONFIG: &str = "rules = \"ttakji,size=3\"\n[selfplay]\nfull_visits = 8\nfast_visits = 8\n";
const SGF: &str = "(;GM[1]SZ[5]KM[0];B[cc];W[bb])";

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// [`CONFIG`] written to `dir/c.toml`: its path, for a command line.
fn config_in(dir: &Path) -> String {
    let path = dir.join("c.toml");
    std::fs::write(&path, CONFIG).unwrap();
    path.display().to_string()
}

/// A run folder holding a valid copy of [`CONFIG`], so the loop gets as far as the file
/// under test.
fn run_folder(dir: &Path) -> PathBuf {
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    std::fs::write(run.join("config.toml"), CONFIG).unwrap();
    run
}

fn inputs() -> Vec<Input> {
    let named_config = |name, layout| Input {
        name,
        named: true,
        limit: CONFIG_LIMIT,
        text: true,
        absent_ok: false,
        valid: CONFIG,
        layout,
        stdin: "",
    };
    let checkpoint = |name, layout| Input {
        name,
        named: false,
        limit: CHECKPOINT_LIMIT,
        text: false,
        absent_ok: false,
        valid: "",
        layout,
        stdin: "",
    };
    vec![
        named_config("selfplay --config", |d| {
            let out = d.join("sp").display().to_string();
            (d.join("c.toml"), args(&["selfplay", "--config", "@", "--games", "1", "--out", &out]))
        }),
        named_config("train --config", |d| {
            let data = d.join("data");
            std::fs::create_dir_all(&data).unwrap();
            let (data, out) = (data.display().to_string(), d.join("tr").display().to_string());
            (d.join("c.toml"), args(&["train", "--config", "@", "--data", &data, "--out", &out]))
        }),
        named_config("loop --config", |d| {
            let out = d.join("run").display().to_string();
            (d.join("c.toml"), args(&["loop", "--config", "@", "--out", &out]))
        }),
        Input {
            valid: "{}",
            ..named_config("analysis --config", |d| (d.join("a.json"), args(&["analysis", "--config", "@"])))
        },
        Input {
            limit: SGF_LIMIT,
            valid: SGF,
            ..named_config("replay --sgf", |d| (d.join("g.sgf"), args(&["replay", "--sgf", "@"])))
        },
        Input {
            named: false,
            limit: SGF_LIMIT,
            text: true,
            stdin: "1 loadsgf @\n2 name\n3 quit\n",
            ..checkpoint("gtp loadsgf", |d| (d.join("g.sgf"), args(&["gtp", "--visits", "4"])))
        },
        named_config("bench train --config", |d| {
            (d.join("c.toml"), args(&["bench", "train", "--config", "@", "--steps", "1"]))
        }),
        checkpoint("analysis --model", |d| (d.join("m.safetensors"), args(&["analysis", "--model", "@"]))),
        Input {
            limit: BOOK_LIMIT,
            ..checkpoint("match --a-book", |d| {
                let line = ["match", "--size", "3", "--komi", "9", "--a", "rollout", "--a-book", "@"];
                (d.join("b.book"), args(&[&line[..], &["--b", "uniform", "--games", "1"]].concat()))
            })
        },
        Input {
            limit: REPORT_LIMIT,
            text: true,
            ..checkpoint("selfplay's [selfplay] start_positions", |d| {
                let starts = d.join("starts.json");
                let config =
                    format!("{CONFIG}start_positions = \"{}\"\nstart_prob = 0.5\n", starts.display());
                std::fs::write(d.join("c.toml"), config).unwrap();
                let (config, out) =
                    (d.join("c.toml").display().to_string(), d.join("sp").display().to_string());
                (starts, args(&["selfplay", "--config", &config, "--games", "1", "--out", &out]))
            })
        },
        checkpoint("gtp --model", |d| (d.join("m.safetensors"), args(&["gtp", "--model", "@"]))),
        checkpoint("selfplay --model", |d| {
            let (config, out) = (config_in(d), d.join("sp").display().to_string());
            let line = ["selfplay", "--config", &config, "--model", "@", "--games", "1", "--out", &out];
            (d.join("m.safetensors"), args(&line))
        }),
        checkpoint("selfplay --model FOLDER (its newest checkpoint)", |d| {
            let models = d.join("tr");
            std::fs::create_dir_all(models.join("checkpoints")).unwrap();
            let (config, out) = (config_in(d), d.join("sp").display().to_string());
            let models = models.display().to_string();
            let line = ["selfplay", "--config", &config, "--model", &models, "--games", "1", "--out", &out];
            (d.join("tr/checkpoints/step-000000001.safetensors"), args(&line))
        }),
        Input {
            absent_ok: true,
            ..checkpoint("train's newest checkpoint on resume", |d| {
                let config = config_in(d);
                let data = d.join("data");
                std::fs::create_dir_all(&data).unwrap();
                std::fs::create_dir_all(d.join("tr/checkpoints")).unwrap();
                let (data, out) = (data.display().to_string(), d.join("tr").display().to_string());
                let line = ["train", "--config", &config, "--data", &data, "--out", &out];
                (d.join("tr/checkpoints/step-000000001.safetensors"), args(&line))
            })
        },
        checkpoint("match --a model:", |d| {
            let line = ["match", "--size", "3", "--a", "model:@", "--b", "uniform", "--games", "1"];
            (d.join("m.safetensors"), args(&line))
        }),
        checkpoint("book --model", |d| {
            let out = d.join("b.book").display().to_string();
            let line =
                ["book", "--size", "3", "--komi", "9", "--model", "@", "--out", &out, "--expansions", "4"];
            (d.join("m.safetensors"), args(&line))
        }),
        Input {
            limit: BOOK_LIMIT,
            absent_ok: true,
            ..checkpoint("book --out (resumed)", |d| {
                let line = ["book", "--size", "3", "--komi", "9", "--evaluator", "rollout", "--out", "@"];
                (d.join("b.book"), args(&[&line[..], &["--expansions", "4", "--visits", "8"]].concat()))
            })
        },
        Input {
            limit: REPORT_LIMIT,
            text: true,
            absent_ok: true,
            ..checkpoint("komi --out's komi.json", |d| {
                let out = d.display().to_string();
                let line = ["komi", "--size", "3", "--evaluator", "rollout", "--visits", "8", "--out", &out];
                (d.join("komi.json"), args(&line))
            })
        },
        Input {
            limit: SOLVER_SAVE_LIMIT,
            absent_ok: true,
            ..checkpoint("solve --save", |d| {
                (d.join("table"), args(&["solve", "--rules", "ttakji", "--size", "2", "--save", "@"]))
            })
        },
        Input {
            limit: CONFIG_LIMIT,
            text: true,
            absent_ok: true,
            ..checkpoint("loop's config.toml", |d| {
                let run = d.join("run");
                std::fs::create_dir_all(&run).unwrap();
                (run.join("config.toml"), args(&["loop", "--out", &run.display().to_string()]))
            })
        },
        Input {
            limit: REPORT_LIMIT,
            text: true,
            absent_ok: true,
            ..checkpoint("loop's state.json", |d| {
                let run = run_folder(d);
                (run.join("state.json"), args(&["loop", "--out", &run.display().to_string()]))
            })
        },
    ]
}

/// How a case ended.
#[derive(Debug)]
struct Ended {
    code: Option<i32>,
    signal: Option<i32>,
    stopped: bool,
    stderr: String,
    stdout: String,
}

/// Lays out `shape` at `path` (its folder made); the substituted shape is made by the shell.
fn make(path: &Path, shape: Shape, input: &Input) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(path);
    match shape {
        Shape::Missing | Shape::Substituted => {}
        Shape::Folder => std::fs::create_dir_all(path).unwrap(),
        Shape::Fifo => run::mkfifo(path),
        Shape::DevZero | Shape::LinkToDevZero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        Shape::Empty => std::fs::write(path, b"").unwrap(),
        Shape::OverLimit => {
            // Sparse: one byte over the limit costs no disk.
            let f = std::fs::File::create(path).unwrap();
            f.set_len(input.limit + 1).unwrap();
        }
        Shape::NotUtf8 => std::fs::write(path, [0xff, 0xfe, 0x00, 0x80, 0xc3]).unwrap(),
    }
}

/// Runs one case: `hane LINE` with `@` replaced by `path` (or by a process substitution of
/// the input's valid contents), stopped with SIGINT at 3 seconds, killed at 8.
fn run(line: &[String], path: &Path, shape: Shape, input: &Input) -> (Ended, Duration) {
    let exe = env!("CARGO_BIN_EXE_hane");
    let at = match shape {
        Shape::DevZero => "/dev/zero".to_string(),
        Shape::Substituted => "<(cat \"$1\")".to_string(),
        _ => format!("'{}'", path.display()),
    };
    let quoted: Vec<String> =
        line.iter().map(|a| if a.contains('@') { a.replace('@', &at) } else { format!("'{a}'") }).collect();
    let valid = path.with_extension("valid");
    std::fs::write(&valid, input.valid).unwrap();
    let stdin_file = path.with_extension("stdin");
    std::fs::write(&stdin_file, input.stdin.replace('@', &path.display().to_string())).unwrap();
    let script = format!("exec '{exe}' {}", quoted.join(" "));
    let (out, err) = (path.with_extension("out"), path.with_extension("err"));
    // SIGINT must act on the case as it does at a terminal, also where this test was started
    // with SIGINT ignored (a background job of a script), which a child would inherit.
    let mut child = Command::new("env")
        .args(["--default-signal=INT", "bash", "-c", &script, "case"])
        .arg(&valid)
        .stdin(std::fs::File::open(&stdin_file).unwrap())
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut stopped = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        let t = start.elapsed();
        if t > Duration::from_secs(3) && !stopped {
            kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
            stopped = true;
        }
        if t > Duration::from_secs(8) {
            child.kill().unwrap();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let elapsed = start.elapsed();
    let read = |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap()).into_owned();
    let ended = Ended {
        code: status.code(),
        signal: status.signal(),
        stopped,
        stderr: read(&err),
        stdout: read(&out),
    };
    (ended, elapsed)
}

/// Runs every shape of `input` and checks each against the matrix's promise: the number of
/// cases run and what each failed case did.
fn check(input: &Input) -> (usize, Vec<String>) {
    let (mut cases, mut failed) = (0, Vec::new());
    for shape in SHAPES {
        if (shape == Shape::Missing && input.absent_ok) || (shape == Shape::Substituted && !input.named) {
            continue;
        }
        let dir = std::env::temp_dir().join(format!(
            "hane-matrix-{}-{}-{shape:?}",
            std::process::id(),
            input.name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (path, line) = (input.layout)(&dir);
        make(&path, shape, input);
        let (e, took) = run(&line, &path, shape, input);
        let case = format!("{} as {shape:?}: {e:?} after {took:?}", input.name);
        cases += 1;
        let by_stop = e.stopped && (e.code == Some(130) || e.signal == Some(2));
        let mut promise = took < Duration::from_secs(5)
            && !e.stderr.contains("panicked")
            && run::debug_dump(&e.stderr).is_none()
            && run::debug_dump(&e.stdout).is_none()
            && (matches!(e.code, Some(0..=2)) || by_stop)
            && (e.code == Some(0) || by_stop || !e.stderr.trim().is_empty());
        let refused = |what: &str| e.code == Some(2) && e.stderr.contains(what);
        // The GTP engine answers an error and goes on.
        let gtp_refused =
            |what: &str| e.code == Some(0) && e.stdout.starts_with("?1 ") && e.stdout.contains(what);
        let refused = |what: &str| refused(what) || (!input.stdin.is_empty() && gtp_refused(what));
        promise &= match shape {
            // `--model FOLDER` with no checkpoint in it says so.
            Shape::Missing => refused("No such file") || refused("no checkpoint in"),
            // `--model FOLDER` means a trainer's folder, and an empty one has no checkpoint.
            Shape::Folder => refused("is a folder") || refused("no checkpoint in"),
            Shape::Fifo if input.named => by_stop,
            Shape::Fifo => refused("is a FIFO or pipe") && !e.stopped,
            Shape::DevZero | Shape::LinkToDevZero if input.named => refused("larger than"),
            Shape::DevZero | Shape::LinkToDevZero => refused("is a character device"),
            Shape::OverLimit => refused("larger than"),
            Shape::NotUtf8 if input.text => refused("not UTF-8"),
            Shape::NotUtf8 => e.code == Some(2) || gtp_refused(""),
            Shape::Empty => true,
            Shape::Substituted => !e.stderr.contains("cannot read"),
        };
        if !promise {
            failed.push(case);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
    // The largest child this process has waited for, in KiB on Linux.
    let peak = getrusage(UsageWho::RUSAGE_CHILDREN).unwrap().max_rss();
    if peak >= 1 << 20 {
        failed.push(format!("{}: a case peaked at {peak} KiB", input.name));
    }
    (cases, failed)
}

#[test]
fn every_input_of_every_command_ends_in_time_with_a_clear_message() {
    let inputs = inputs();
    let (first, second) = inputs.split_at(inputs.len() / 2);
    let all = |part: &[Input]| part.iter().map(check).collect::<Vec<_>>();
    let results = std::thread::scope(|s| {
        let a = s.spawn(|| all(first));
        [all(second), a.join().unwrap()].concat()
    });
    let cases: usize = results.iter().map(|r| r.0).sum();
    let failed: Vec<String> = results.into_iter().flat_map(|r| r.1).collect();
    eprintln!("input matrix: {cases} cases over {} inputs, {} broke the promise", inputs.len(), failed.len());
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
