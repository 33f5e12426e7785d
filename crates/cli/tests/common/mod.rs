//! Helpers shared by the CLI's integration tests.

// Each test file compiles this module and uses some of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// A fresh folder `hane-NAME-PID` under the temporary directory holding `tiny.safetensors`,
/// an untrained checkpoint of a tiny 5x5 ttakji net (no training: the tests only need a net
/// that loads and evaluates); returns the folder and the checkpoint.
pub fn tiny_model(name: &str) -> (PathBuf, PathBuf) {
    use hane_nn::{tch::Device, NetConfig, NetShape, Network};
    let dir = std::env::temp_dir().join(format!("hane-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("tiny.safetensors");
    let rules: hane_engine::Rules = "ttakji,size=5".parse().unwrap();
    Network::new(NetConfig::new(&rules, NetShape::tiny()), Device::Cpu)
        .unwrap()
        .save(&model, &rules)
        .unwrap();
    (dir, model)
}

/// `hane ARGS...` started with its stdin and stdout piped.
pub fn spawn_piped(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap()
}

/// A tool folder that scripts/setup-tests.sh installs: `$VAR` when set, else `NAME` under
/// `$XDG_CACHE_HOME/hane` (default `~/.cache/hane`). Panics, naming the set-up step, when it
/// does not exist.
pub fn setup_dir(var: &str, name: &str) -> PathBuf {
    let dir = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| {
        let cache = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").expect("HOME is set")).join(".cache"));
        cache.join("hane").join(name)
    });
    assert!(dir.exists(), "{} does not exist: run scripts/setup-tests.sh (or set {var})", dir.display());
    dir
}

/// The `[selfplay]` table of the tiny loops the tests run: few games in flight and visits, no
/// resignation. A macro, so that a test's config stays one literal: `concat!(tiny_selfplay!(),
/// "...")`.
#[allow(unused_macros)] // as the module's functions: not every test file uses it
macro_rules! tiny_selfplay {
    () => {
        "[selfplay]\ngames_in_flight = 8\nbatch_size = 16\nfull_visits = 16\nfast_visits = 4\nresign_threshold = 0.0\n"
    };
}
#[allow(unused_imports)]
pub(crate) use tiny_selfplay;

/// A tiny 3x3 `ttakji` loop config of `generations` generations (a one-block, 8-channel net,
/// 16 games, no gate, 8-visit komi estimates) followed by `extra` lines of `[loop]` keys.
pub fn tiny_loop(generations: u32, extra: &str) -> String {
    format!(
        r#"rules = "ttakji,size=3"
{}[train]
steps = 10
batch_size = 32
warmup_steps = 2
checkpoint_every = 10
[train.net]
blocks = 1
channels = 8
[loop]
generations = {generations}
games = 16
gate_games = 0
komi_visits = 8
{extra}"#,
        tiny_selfplay!()
    )
}
