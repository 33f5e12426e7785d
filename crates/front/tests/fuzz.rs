//! The GTP engine's command reader and the JSON analysis engine's query reader under
//! mutation fuzzing ([`hane_engine::fuzz`]): from the sessions of `tests/fuzz-corpus/gtp` and
//! the queries of `tests/fuzz-corpus/analysis`, every mutated input is served to its end
//! without a panic or an I/O error, and every line the analysis engine writes is JSON. The
//! searches use random rollouts of a few visits, so an input costs milliseconds.

use hane_engine::fuzz::{self, budget};
use hane_engine::Rules;
use hane_front::analysis::{self, Analyzer, Perspective};
use hane_front::brain::Brain;
use hane_front::gtp::{self, Engine};
use std::io::Cursor;

fn brain() -> Brain {
    Brain::with_rollouts(4, 1).unwrap()
}

const GTP_TOKENS: [&[u8]; 12] = [
    b"\n",
    b"genmove b\n",
    b"play w ",
    b"boardsize ",
    b"undo\n",
    b"pass",
    b"lz-analyze ",
    b"kata-analyze ",
    b" interval ",
    b"set_free_handicap ",
    b"loadsgf ",
    b"hane-rules sligo,size=",
];

#[test]
fn the_gtp_reader_survives_mutations_of_its_corpus() {
    let corpus = fuzz::corpus("gtp");
    let rules: Rules = "ttakji,size=5".parse().unwrap();
    let report = fuzz::run(&corpus, &GTP_TOKENS, 0x6774_7000, budget(), |input| {
        let mut engine = Engine::new(rules, brain());
        let mut out = Vec::new();
        gtp::serve(&mut engine, Cursor::new(input.to_vec()), &mut out).unwrap();
    });
    println!("gtp: {report}");
}

const JSON_TOKENS: [&[u8]; 12] = [
    b"\n",
    b"{",
    b"}",
    b"[",
    b"]",
    b"\"",
    b",",
    b":",
    b"null",
    b"\"moves\":[[\"B\",\"A1\"]]",
    b"\"boardXSize\":",
    b"\"analyzeTurns\":[",
];

#[test]
fn the_analysis_query_reader_survives_mutations_of_its_corpus() {
    let corpus = fuzz::corpus("analysis");
    let report = fuzz::run(&corpus, &JSON_TOKENS, 0x6a73_6f6e, budget(), |input| {
        let mut an = Analyzer::new(brain(), Perspective::SideToMove);
        let mut out = Vec::new();
        analysis::serve(&mut an, Cursor::new(input.to_vec()), &mut out).unwrap();
        for line in String::from_utf8(out).unwrap().lines() {
            serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        }
    });
    println!("analysis: {report}");
}
