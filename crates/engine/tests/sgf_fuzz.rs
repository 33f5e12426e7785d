//! The SGF reader under mutation fuzzing ([`hane_engine::fuzz`]): from the records of
//! `tests/fuzz-corpus/sgf`, every mutated text is read without a panic, and a record it
//! accepts is written back to an SGF that reads as the same game.

use hane_engine::fuzz::{self, budget};
use hane_engine::sgf::SgfGame;

const TOKENS: [&[u8]; 16] = [
    b"(;", b")", b"(", b";B[", b";W[", b"AB[", b"AW[", b"]", b"[", b"\\", b"SZ[", b"KM[", b"RU[", b"XS[",
    b"tt", b":",
];

#[test]
fn the_sgf_reader_survives_mutations_of_its_corpus() {
    let corpus = fuzz::corpus("sgf");
    let read = |bytes: &[u8]| SgfGame::parse(&String::from_utf8_lossy(bytes));
    assert!(corpus.iter().all(|c| read(c).is_ok()), "every corpus record reads");
    let mut accepted = 0;
    let report = fuzz::run(&corpus, &TOKENS, 0x5367_6600, budget(), |input| {
        let Ok(game) = read(input) else { return };
        accepted += 1;
        if let Ok(text) = game.to_sgf() {
            let again = SgfGame::parse(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(again.to_sgf().unwrap(), text);
        }
    });
    println!("sgf: {report}; {accepted} inputs accepted");
    assert!(accepted > 0);
}
