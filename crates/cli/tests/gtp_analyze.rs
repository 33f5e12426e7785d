//! `hane gtp`'s analysis commands read live, as a GUI reads them: report lines arrive while
//! the search runs, every line parses in Leela Zero's or KataGo's format, and the next
//! command stops the analysis and gets its own response.

mod common;

use common::{spawn_piped, tiny_model};
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// A running `hane gtp`, its stdin, and its stdout's lines as they arrive.
struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start(args: &[&str]) -> Engine {
        let mut child = spawn_piped(&[&["gtp"], args].concat());
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                if tx.send(line.unwrap()).is_err() {
                    return;
                }
            }
        });
        Engine { child, stdin, lines }
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn line(&self) -> String {
        self.lines.recv_timeout(Duration::from_secs(60)).expect("the engine answers within a minute")
    }

    /// The lines of one whole response (up to its empty line).
    fn response(&self) -> Vec<String> {
        let mut out = Vec::new();
        loop {
            let l = self.line();
            if l.is_empty() {
                return out;
            }
            out.push(l);
        }
    }

    fn quit(mut self) {
        self.send("quit");
        assert_eq!(self.response(), ["="]);
        assert!(self.child.wait().unwrap().success());
    }
}

/// One candidate move of a report line: its fields by key, and its principal variation.
#[derive(Debug)]
struct Info {
    fields: HashMap<String, String>,
    pv: Vec<String>,
}

/// A report line split into its moves and its other sections (`ownership`, `rootInfo`, ...),
/// each section's words by name.
fn parse_report(line: &str) -> (Vec<Info>, HashMap<String, Vec<String>>) {
    const SECTIONS: [&str; 4] = ["info", "ownership", "ownershipStdev", "rootInfo"];
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    for w in line.split(' ') {
        if SECTIONS.contains(&w) {
            sections.push((w.to_string(), Vec::new()));
        } else {
            sections.last_mut().unwrap_or_else(|| panic!("starts with a section: {line}")).1.push(w.into());
        }
    }
    let mut infos = Vec::new();
    let mut rest = HashMap::new();
    for (name, words) in sections {
        if name != "info" {
            assert!(rest.insert(name.clone(), words).is_none(), "one {name} section: {line}");
            continue;
        }
        let pv_at = words.iter().position(|w| w == "pv").unwrap_or_else(|| panic!("a pv: {line}"));
        let (pairs, pv) = words.split_at(pv_at);
        assert!(pairs.len() % 2 == 0, "key-value pairs: {pairs:?}");
        let fields = pairs.chunks(2).map(|kv| (kv[0].clone(), kv[1].clone())).collect();
        infos.push(Info { fields, pv: pv[1..].to_vec() });
    }
    (infos, rest)
}

fn is_vertex(v: &str, size: u8) -> bool {
    let cols: Vec<char> = "ABCDEFGHJKLMNOPQRST".chars().take(size.into()).collect();
    let mut c = v.chars();
    let col = c.next().is_some_and(|x| cols.contains(&x));
    col && c.as_str().parse::<u8>().is_ok_and(|n| (1..=size).contains(&n)) || v == "pass"
}

/// Checks every move of a Leela Zero line: integer win rate, prior and LCB in [0, 10000],
/// orders 0, 1, 2, ..., a PV that starts with the move.
fn check_lz(line: &str, size: u8) -> usize {
    let (infos, rest) = parse_report(line);
    assert!(rest.is_empty(), "{line}");
    assert!(!infos.is_empty(), "{line}");
    for (i, info) in infos.iter().enumerate() {
        let f = &info.fields;
        let int = |k: &str| f[k].parse::<u32>().unwrap_or_else(|_| panic!("{k} is an integer: {line}"));
        for k in ["winrate", "prior", "lcb"] {
            assert!(int(k) <= 10000, "{k} within 0..=10000: {line}");
        }
        assert!(int("lcb") <= int("winrate"), "{line}");
        assert_eq!(int("order") as usize, i, "{line}");
        assert!(is_vertex(&f["move"], size), "{line}");
        assert_eq!(info.pv.first(), Some(&f["move"]), "{line}");
        assert!(info.pv.iter().all(|v| is_vertex(v, size)), "{line}");
        int("visits");
    }
    infos.iter().map(|i| i.fields["visits"].parse::<usize>().unwrap()).sum()
}

/// Checks a KataGo line: every documented field of every move as a number in its range, and
/// the ownership sections with one value per point.
fn check_kata(line: &str, size: u8) -> HashMap<String, Vec<String>> {
    let (infos, rest) = parse_report(line);
    assert!(!infos.is_empty(), "{line}");
    for (i, info) in infos.iter().enumerate() {
        let f = &info.fields;
        let num = |k: &str| {
            f.get(k)
                .unwrap_or_else(|| panic!("{k} in {line}"))
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("{k}: {line}"))
        };
        for k in ["winrate", "prior", "lcb"] {
            assert!((0.0..=1.0).contains(&num(k)) || k == "lcb", "{k} in [0, 1]: {line}");
        }
        for k in ["utility", "utilityLcb", "scoreMean", "scoreStdev", "scoreLead", "scoreSelfplay"] {
            assert!(num(k).is_finite(), "{line}");
        }
        assert!(num("scoreStdev") >= 0.0 && num("lcb") <= num("winrate"), "{line}");
        assert_eq!(num("order") as usize, i, "{line}");
        assert!(num("visits") >= 0.0 && is_vertex(&f["move"], size), "{line}");
        assert_eq!(info.pv.first(), Some(&f["move"]), "{line}");
    }
    for (name, words) in &rest {
        match name.as_str() {
            "ownership" | "ownershipStdev" => {
                assert_eq!(words.len(), usize::from(size) * usize::from(size), "{line}");
                for w in words {
                    let x: f64 = w.parse().unwrap();
                    assert!((-1.0..=1.0).contains(&x), "{name}: {line}");
                }
            }
            "rootInfo" => {
                let keys: Vec<&str> = words.iter().step_by(2).map(String::as_str).collect();
                for k in ["visits", "utility", "winrate", "scoreLead", "scoreStdev"] {
                    assert!(keys.contains(&k), "rootInfo {k}: {line}");
                }
            }
            _ => unreachable!(),
        }
    }
    rest
}

#[test]
fn kata_analyze_streams_until_the_next_command() {
    let (dir, model) = tiny_model("gtp-analyze");
    let mut e =
        Engine::start(&["--rules", "ttakji,size=5", "--model", model.to_str().unwrap(), "--visits", "32"]);
    e.send("play b C3");
    assert_eq!(e.response(), ["="]);
    e.send("7 kata-analyze w 5 ownership true ownershipStdev true rootInfo true minmoves 3");
    assert_eq!(e.line(), "=7");
    let mut own: Vec<f64> = Vec::new();
    for _ in 0..3 {
        let rest = check_kata(&e.line(), 5);
        assert_eq!(rest.len(), 3, "ownership, ownershipStdev and rootInfo");
        let floats = |k: &str| rest[k].iter().map(|w| w.parse::<f64>().unwrap()).collect::<Vec<_>>();
        own = floats("ownership");
        for (m, sd) in own.iter().zip(floats("ownershipStdev")) {
            assert!((sd - (1.0 - m * m).sqrt()).abs() < 1e-4, "the spread of an owner of mean {m}");
        }
    }
    // The next command ends the response (its empty line first), then gets its own answer.
    e.send("8 name");
    loop {
        let l = e.line();
        if l.is_empty() {
            break;
        }
        check_kata(&l, 5);
    }
    assert_eq!(e.response(), ["=8 hane"]);
    // The net's ownership head, White's view there and Black's in hane-ownership.
    e.send("hane-ownership");
    let board: Vec<f64> =
        e.response()[1..].iter().flat_map(|row| row.split(' ').map(|x| x.parse::<f64>().unwrap())).collect();
    assert_eq!(board.len(), 25);
    for (w, b) in own.iter().zip(&board) {
        assert!((w + b).abs() < 0.006, "{own:?} {board:?}");
    }
    e.send("genmove w");
    let mv = e.response();
    assert!(mv.len() == 1 && mv[0].starts_with("= "), "the engine plays normally after: {mv:?}");
    e.quit();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn lz_analyze_without_a_net_and_genmove_analyze_plays() {
    let mut e = Engine::start(&["--rules", "ttakji,size=7", "--visits", "64"]);
    e.send("lz-analyze interval 2 maxmoves 4");
    assert_eq!(e.line(), "=");
    let mut visits = Vec::new();
    for _ in 0..3 {
        let l = e.line();
        assert!(l.matches("info ").count() <= 4, "maxmoves 4: {l}");
        visits.push(check_lz(&l, 7));
    }
    assert!(visits.windows(2).all(|w| w[0] <= w[1]), "the search goes on between reports: {visits:?}");
    // An empty line stops it too; it gets no response of its own.
    e.send("");
    while !e.line().is_empty() {}
    e.send("lz-genmove_analyze b 1");
    let r = e.response();
    assert_eq!(r[0], "=", "{r:?}");
    let last = r.last().unwrap();
    let mv = last.strip_prefix("play ").unwrap_or_else(|| panic!("ends with the move: {r:?}"));
    assert!(is_vertex(mv, 7) && mv != "pass", "{r:?}");
    for l in &r[1..r.len() - 1] {
        check_lz(l, 7);
    }
    // The move was played: the same point is now occupied.
    e.send(&format!("play w {mv}"));
    assert!(e.response()[0].starts_with("? illegal move"));
    // Bad arguments and Sligo are refused with an error response; the engine goes on.
    for bad in ["lz-analyze purple", "kata-analyze 10 ownership maybe", "lz-analyze bogus 1"] {
        e.send(bad);
        let r = e.response();
        assert!(r.len() == 1 && r[0].starts_with("? syntax error"), "{bad}: {r:?}");
    }
    e.send("hane-rules sligo,size=5");
    assert_eq!(e.response(), ["="]);
    e.send("kata-analyze 10");
    assert_eq!(e.response(), ["? analysis of Sligo's two-decision turns is not supported"]);
    e.send("known_command kata-analyze");
    assert_eq!(e.response(), ["= true"]);
    e.quit();
}

#[test]
fn the_end_of_the_input_ends_an_analysis_cleanly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(["gtp", "--rules", "loose,size=5"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"1 analyze b 1\n").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("=1\n") && text.ends_with("\n\n"), "{text:?}");
    for l in text.lines().skip(1).filter(|l| !l.is_empty()) {
        check_lz(l, 5);
    }
}

#[test]
fn katago_rules_and_gogui_analyze_commands() {
    let mut e = Engine::start(&["--rules", "chinese,size=7", "--visits", "16"]);
    e.send("kata-get-rules");
    let r = e.response();
    let rules: HashMap<String, serde_json::Value> =
        serde_json::from_str(r[0].strip_prefix("= ").unwrap()).unwrap_or_else(|_| panic!("{r:?}"));
    assert_eq!((rules["ko"].as_str(), rules["scoring"].as_str()), (Some("SIMPLE"), Some("AREA")), "{r:?}");
    assert_eq!(rules["suicide"], serde_json::json!(false));
    e.send("komi 6");
    e.send("kata-set-rules japanese");
    e.send("kata-get-rules");
    assert_eq!(e.response(), ["="]);
    assert_eq!(e.response(), ["="]);
    let r = e.response();
    assert!(r[0].contains(r#""scoring":"TERRITORY""#) && r[0].contains(r#""tax":"SEKI""#), "{r:?}");
    e.send("hane-score");
    assert!(e.response()[0].starts_with("= black 0 white 6"), "the size and komi stay");
    e.send("kata-set-rules aga");
    assert_eq!(e.response(), ["="], "the nearest rules hane has");
    e.send("kata-set-rules ing");
    assert!(e.response()[0].starts_with("? unknown rules"));
    e.send(r#"kata-set-rules {"ko":"POSITIONAL","scoring":"AREA","tax":"NONE","suicide":true}"#);
    assert_eq!(e.response(), ["="]);
    e.send("kata-get-rules");
    let r = e.response();
    assert!(r[0].contains(r#""ko":"POSITIONAL""#) && r[0].contains(r#""suicide":true"#), "{r:?}");
    e.send(r#"kata-set-rules {"ko":"SITUATIONAL"}"#);
    assert_eq!(e.response(), ["? no hane rule set has ko SITUATIONAL"]);
    e.send("cputime");
    let t: f64 = e.response()[0].strip_prefix("= ").unwrap().parse().unwrap();
    assert!((0.0..600.0).contains(&t), "{t}");
    e.send("gogui-analyze_commands");
    let r = e.response();
    assert!(r.iter().all(|l| l.trim_start_matches("= ").split('/').count() == 3), "{r:?}");
    e.send("play b D4");
    e.send("hane-ownership");
    assert_eq!(e.response(), ["="]);
    let board = e.response();
    assert_eq!(board.len(), 8, "= and seven rows: {board:?}");
    for row in &board[1..] {
        let xs: Vec<f64> = row.split(' ').map(|x| x.parse().unwrap()).collect();
        assert!(xs.len() == 7 && xs.iter().all(|x| (-1.0..=1.0).contains(x)), "{row}");
    }
    let centre: f64 = board[4].split(' ').nth(3).unwrap().parse().unwrap();
    assert!(centre > 0.0, "D4 leans to Black: {board:?}");
    e.quit();
}

/// Lizzie 0.7.4's start-up, as its engine log shows it: `name` (a name starting with KataGo
/// would switch Lizzie to KataGo's commands), `version` (Lizzie parses the second number and
/// shows a "requires version 0.15 or later of Leela Zero" dialog below 15), the board and
/// komi, then `lz-analyze 10`; a later `name` is how it stops pondering.
#[test]
fn lizzie_starts_with_no_version_dialog_and_gets_candidates() {
    let mut e = Engine::start(&["--rules", "ttakji,size=5", "--visits", "64"]);
    e.send("1 name");
    assert_eq!(e.response(), ["=1 hane"]);
    e.send("2 version");
    let r = e.response();
    let v = r[0].strip_prefix("=2 ").unwrap_or_else(|| panic!("{r:?}"));
    let minor: u32 = v.split('.').nth(1).and_then(|m| m.parse().ok()).unwrap_or_else(|| panic!("{v}"));
    assert!(minor >= 15, "Lizzie 0.7.4 shows its version dialog below 0.15: {v}");
    for (i, cmd) in ["boardsize 5", "komi 7.5", "clear_board", "komi 7.5"].iter().enumerate() {
        e.send(&format!("{} {cmd}", i + 3));
        assert_eq!(e.response(), [format!("={}", i + 3)], "{cmd}");
    }
    e.send("7 lz-analyze 10");
    assert_eq!(e.line(), "=7");
    let mut visits = 0;
    while visits < 64 {
        visits = check_lz(&e.line(), 5);
    }
    e.send("8 name");
    while e.line() != "=8 hane" {}
    assert_eq!(e.line(), "");
    e.quit();
}
