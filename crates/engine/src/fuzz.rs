//! A seeded mutation fuzzer for hane's readers of untrusted input (shards and packs, SGF, GTP
//! command lines, JSON analysis queries), run by their crates' tests as plain `#[test]`s.
//!
//! [`run`] feeds a target the files of a corpus (`tests/fuzz-corpus/<target>/` at the
//! repository root, [`corpus`]) and then mutations of them ([`mutate`]: bits flipped, bytes
//! set, inserted, deleted or repeated, the input truncated or spliced with another, a token of
//! the format inserted) for [`budget`] seconds: two by default, so the tests stay fast in CI,
//! and `HANE_FUZZ_SECS` seconds when set, for a longer hunt (e.g. `HANE_FUZZ_SECS=3600 cargo
//! test --release fuzz -- --nocapture`). The generator is seeded, so a run with the same
//! seed, budget and speed repeats itself; a target that panics fails the test with the input
//! that made it panic, escaped.
//!
//! Why not `cargo fuzz`: it needs a nightly compiler and a run of its own; this runs in every
//! `cargo test`, on the crates' own random number generator.

use crate::rng::Rng;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How long each fuzz test runs: `HANE_FUZZ_SECS` seconds if set (and a number), else 2.
pub fn budget() -> Duration {
    let secs = std::env::var("HANE_FUZZ_SECS").ok().and_then(|s| s.parse::<f64>().ok());
    Duration::from_secs_f64(secs.filter(|s| s.is_finite() && *s >= 0.0).unwrap_or(2.0))
}

/// The corpus folder of `target`: `tests/fuzz-corpus/<target>` at the repository root.
pub fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fuzz-corpus").join(target)
}

/// The files of the corpus of `target`, in name order, read whole; panics without any.
pub fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = corpus_dir(target);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a corpus entry").path())
        .collect();
    paths.sort();
    let files: Vec<Vec<u8>> = paths.iter().map(|p| std::fs::read(p).expect("a corpus file")).collect();
    assert!(!files.is_empty(), "{}: an empty corpus", dir.display());
    files
}

/// Bytes a mutation sets: the edges of signed and unsigned bytes, and ASCII that text formats
/// give meaning to.
const INTERESTING: &[u8] = b"\x00\x01\x7f\x80\xff 09-.;[]()\\\"{}:,\n";

/// `input` changed by one random mutation; `others` (the corpus) supply splices and `tokens`
/// (the format's keywords and delimiters) insertions.
pub fn mutate(rng: &mut Rng, input: &[u8], others: &[Vec<u8>], tokens: &[&[u8]]) -> Vec<u8> {
    let mut out = input.to_vec();
    let at = |rng: &mut Rng, len: usize| rng.below(len + 1);
    match rng.below(9) {
        0 if !out.is_empty() => {
            let i = rng.below(out.len());
            out[i] ^= 1 << rng.below(8);
        }
        1 if !out.is_empty() => {
            let i = rng.below(out.len());
            out[i] = INTERESTING[rng.below(INTERESTING.len())];
        }
        2 => {
            let i = at(rng, out.len());
            let n = 1 + rng.below(8);
            let bytes: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            out.splice(i..i, bytes);
        }
        3 if !out.is_empty() => {
            let i = rng.below(out.len());
            let n = 1 + rng.below((out.len() - i).min(64));
            out.drain(i..i + n);
        }
        4 => out.truncate(at(rng, out.len())),
        5 if !out.is_empty() => {
            // A range repeated elsewhere (a zip entry, an SGF node twice).
            let i = rng.below(out.len());
            let n = 1 + rng.below((out.len() - i).min(256));
            let chunk = out[i..i + n].to_vec();
            let j = at(rng, out.len());
            out.splice(j..j, chunk);
        }
        6 if !others.is_empty() => {
            let other = &others[rng.below(others.len())];
            let (i, j) = (at(rng, out.len()), at(rng, other.len()));
            out.truncate(i);
            out.extend_from_slice(&other[j..]);
        }
        7 if !tokens.is_empty() => {
            let t = tokens[rng.below(tokens.len())];
            let i = at(rng, out.len());
            out.splice(i..i, t.iter().copied());
        }
        _ if out.len() >= 4 => {
            // A 16- or 32-bit little-endian field set to an edge value (a size, a count).
            let i = rng.below(out.len() - 3);
            let v: u32 = [0, 1, 0xFF, 0xFFFF, 0x7FFF_FFFF, 0xFFFF_FFFF, rng.next_u64() as u32][rng.below(7)];
            let n = if rng.below(2) == 0 { 2 } else { 4 };
            out[i..i + n].copy_from_slice(&v.to_le_bytes()[..n]);
        }
        _ => out.push(rng.next_u64() as u8),
    }
    out
}

/// What a fuzz run did.
#[derive(Clone, Copy, Debug)]
pub struct FuzzReport {
    /// Inputs tried, the corpus's included.
    pub executions: u64,
    /// Seconds it ran.
    pub seconds: f64,
    /// Files in the corpus.
    pub corpus: usize,
}

impl std::fmt::Display for FuzzReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rate = self.executions as f64 / self.seconds.max(1e-9);
        write!(
            f,
            "{} executions in {:.1} s ({rate:.0}/s), corpus of {} files",
            self.executions, self.seconds, self.corpus
        )
    }
}

/// Runs `target` on every corpus file, then on random stacks of one to four mutations of
/// them, until `budget` has passed; the generator is seeded with `seed`. A panic in `target`
/// is re-raised after printing the input that caused it.
pub fn run(
    corpus: &[Vec<u8>],
    tokens: &[&[u8]],
    seed: u64,
    budget: Duration,
    mut target: impl FnMut(&[u8]),
) -> FuzzReport {
    let start = Instant::now();
    let mut rng = Rng::new(seed);
    let mut executions = 0;
    let mut attempt = |input: &[u8]| {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| target(input)));
        if let Err(panic) = result {
            eprintln!("fuzz input that panicked ({} bytes): \"{}\"", input.len(), input.escape_ascii());
            std::panic::resume_unwind(panic);
        }
    };
    for input in corpus {
        attempt(input);
        executions += 1;
    }
    while start.elapsed() < budget {
        let mut input = corpus[rng.below(corpus.len())].clone();
        for _ in 0..1 + rng.below(4) {
            input = mutate(&mut rng, &input, corpus, tokens);
        }
        attempt(&input);
        executions += 1;
    }
    FuzzReport { executions, seconds: start.elapsed().as_secs_f64(), corpus: corpus.len() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutations_are_seeded_and_varied() {
        let corpus = vec![b"(;GM[1]SZ[9];B[aa])".to_vec(), b"12345678".to_vec()];
        let run = |seed| {
            let mut rng = Rng::new(seed);
            (0..200).map(|i| mutate(&mut rng, &corpus[i % 2], &corpus, &[b"AB["])).collect::<Vec<_>>()
        };
        let a = run(1);
        assert_eq!(a, run(1));
        let distinct: std::collections::HashSet<_> = a.iter().collect();
        assert!(distinct.len() > 150, "{}", distinct.len());
        assert!(a.iter().any(|m| m.len() < 8) && a.iter().any(|m| m.len() > 19));
    }

    #[test]
    fn a_run_tries_the_corpus_then_mutations_until_its_budget() {
        let corpus = vec![b"abc".to_vec()];
        let mut seen = Vec::new();
        let report = run(&corpus, &[], 7, Duration::from_millis(20), |input| seen.push(input.to_vec()));
        assert_eq!(seen[0], b"abc");
        assert_eq!(report.executions as usize, seen.len());
        assert!(seen.len() > 10 && report.seconds >= 0.02, "{report}");
    }
}
