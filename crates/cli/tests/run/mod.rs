//! Runs the `hane` binary for the CLI's integration tests, and checks that what it prints is
//! in words and numbers, never a Rust `Debug` dump.

use std::path::Path;
use std::process::{Command, Output};

/// Makes a FIFO at `path`.
#[allow(dead_code)] // Each test binary uses what it needs.
pub fn mkfifo(path: &Path) {
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success(), "mkfifo {}", path.display());
}

/// Runs `hane` with `args`: its exit code, stdout and stderr ([`output`]).
#[allow(dead_code)] // Each test binary uses what it needs.
pub fn hane(args: &[&str]) -> (i32, String, String) {
    let out = output(args);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr))
}

/// Runs `hane` with `args`; what it printed must hold no `Debug` dump ([`debug_dump`]).
pub fn output(args: &[&str]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_hane")).args(args).output().expect("run hane");
    for bytes in [&out.stdout, &out.stderr] {
        let text = String::from_utf8_lossy(bytes);
        assert_eq!(debug_dump(&text), None, "hane {args:?} printed a Debug dump:\n{text}");
    }
    out
}

/// The first piece of `text` that reads as a Rust `Debug` value rather than words: a struct
/// (`WindowInfo { shards: 3 }`), an `Option` or `Result` (`Some(`, `Ok(`, `Err(`) or nested
/// variants (`Place(Point(12))`).
#[allow(dead_code)] // Each test binary uses what it needs.
pub fn debug_dump(text: &str) -> Option<String> {
    let words: Vec<&str> = text.split(|c: char| c.is_whitespace()).collect();
    for (i, w) in words.iter().enumerate() {
        let name = w.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
        let is_type = name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_ascii_alphanumeric());
        // `Name { field: ...`
        if is_type && words.get(i + 1) == Some(&"{") {
            let field = words.get(i + 2).copied().unwrap_or("");
            if field.len() > 1
                && field.ends_with(':')
                && field[..field.len() - 1].chars().all(|c| c.is_ascii_lowercase() || c == '_')
            {
                return Some(format!("{name} {{ {field}"));
            }
        }
    }
    for wrapper in ["Some(", "Ok(", "Err("] {
        if let Some(at) = text.find(wrapper) {
            let before = text[..at].chars().next_back();
            if !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Some(wrapper.into());
            }
        }
    }
    // `Name(Name(`
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_uppercase() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j].is_ascii_alphanumeric() {
                j += 1;
            }
            if j + 1 < bytes.len() && bytes[j] == b'(' && bytes[j + 1].is_ascii_uppercase() {
                let mut k = j + 2;
                while k < bytes.len() && bytes[k].is_ascii_alphanumeric() {
                    k += 1;
                }
                if k < bytes.len() && bytes[k] == b'(' {
                    return Some(text[i..=k].into());
                }
            }
            i = j;
        } else {
            i += 1;
        }
    }
    None
}

#[test]
fn debug_dumps_are_told_from_words() {
    for dump in ["WindowInfo { shards: 3, rows: 9 }", "got Some(4)", "Err(Io)", "a Place(Point(12))"] {
        assert!(debug_dump(dump).is_some(), "{dump}");
    }
    for words in ["{\"moves\": []}", "Black wins (B+9)", "Ok, done", "D4 (prior 0.2)", "Error (exit 2)"] {
        assert_eq!(debug_dump(words), None, "{words}");
    }
}
