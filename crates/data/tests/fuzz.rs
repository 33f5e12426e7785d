//! The shard and pack reader under mutation fuzzing ([`hane_engine::fuzz`]): from the shards
//! of `tests/fuzz-corpus/npz` (stored and deflated, one game and a pack, numpy's zip64
//! layout), every mutated file is read to a shard or an error without a panic, and no read
//! holds more than twice [`npz::MAX_RATIO`] times the file's length (and the inflater's
//! state).

mod common;

use common::peak_of;
use hane_data::{npz, shard};
use hane_engine::fuzz::{self, budget};
use std::io::Cursor;

/// Zip signatures and fields, npy headers and types: what a mutation may insert.
const TOKENS: [&[u8]; 10] = [
    b"PK\x03\x04",
    b"PK\x01\x02",
    b"PK\x05\x06",
    b"\x01\x00\x10\x00",
    b"\x93NUMPY\x01\x00",
    b"'shape': (",
    b"'descr': '<f4'",
    b"|u1",
    b"meta.npy",
    b"\xff\xff\xff\xff",
];

#[test]
fn the_shard_reader_survives_mutations_of_its_corpus_within_bounded_memory() {
    let corpus = fuzz::corpus("npz");
    assert!(corpus.iter().all(|c| shard::decode(c).is_ok()), "every corpus file is a shard");
    let (mut accepted, mut most) = (0, 0.0f64);
    let report = fuzz::run(&corpus, &TOKENS, 0x6e70_7a00, budget(), |input| {
        let (ok, peak) = peak_of(|| {
            let _ = npz::read(&mut Cursor::new(input), false);
            let _ = npz::read_one(&mut Cursor::new(input), "meta");
            shard::decode(input).is_ok()
        });
        accepted += usize::from(ok);
        // The arrays unpacked (at most MAX_RATIO bytes per byte of the file), a copy of each as
        // it is checked, and the inflater's state.
        let bound = 2 * npz::MAX_RATIO as usize * input.len() + (256 << 10);
        assert!(peak <= bound, "{peak} bytes held reading {} bytes", input.len());
        most = most.max(peak as f64 / input.len().max(1) as f64);
    });
    println!("npz: {report}; {accepted} read as shards; at most {most:.0} bytes held per byte read");
}
