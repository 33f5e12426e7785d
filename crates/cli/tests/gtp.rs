//! `hane gtp` driven through scripted sessions: bad input, the protocol's framing, failed
//! commands that must change nothing, and random byte streams.

mod common;

use common::{spawn_piped, tiny_model};
use std::io::Write;
use std::process::{Command, Stdio};

/// The exit status and stdout of `hane gtp ARGS...` fed `input`.
fn gtp(args: &[&str], input: &[u8]) -> (std::process::ExitStatus, Vec<u8>) {
    let mut child = spawn_piped(&[&["gtp"], args].concat());
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    // A writer of its own: the engine answers while it reads, and may quit before the end.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (out.status, out.stdout)
}

/// The whole stdout of `hane gtp --visits 16` fed `input`, after a successful exit.
fn transcript(input: &[u8]) -> String {
    let (status, out) = gtp(&["--visits", "16"], input);
    assert!(status.success(), "{status}");
    String::from_utf8(out).unwrap()
}

fn session(script: &str) -> Vec<String> {
    session_with(&[], script)
}

/// The replies of `hane gtp --visits 16 EXTRA...` to `script`.
fn session_with(extra: &[&str], script: &str) -> Vec<String> {
    let (status, out) = gtp(&[&["--visits", "16"][..], extra].concat(), script.as_bytes());
    assert!(status.success(), "{status}");
    String::from_utf8(out).unwrap().split("\n\n").map(str::to_string).filter(|s| !s.is_empty()).collect()
}

#[test]
fn scripted_game_with_bad_input() {
    let script = "protocol_version\n\
        2 name\n\
        boardsize 7\n\
        komi 6.5\n\
        play b D4\n\
        genmove w\n\
        play b D4\n\
        play purple D5\n\
        bogus_command\n\
        boardsize 99\n\
        komi abc\n\
        \u{1}\u{7}garbage \u{ff}\n\
        undo\n\
        undo\n\
        undo\n\
        undo\n\
        fixed_handicap 2\n\
        play w C5\n\
        genmove b\n\
        final_score\n\
        final_status_list dead\n\
        hane-rules loose,size=5\n\
        hane-play b C3\n\
        hane-rules sligo,size=5\n\
        hane-play b C3\n\
        hane-play w B4\n\
        hane-play b C3>C4+C5\n\
        time_settings 60 5 1\n\
        known_command genmove\n\
        quit\n\
        name\n";
    let r = session(script);
    let expect_ok = |i: usize| assert!(r[i].starts_with('='), "reply {i}: {:?}\nall: {r:?}", r[i]);
    let expect_err = |i: usize| assert!(r[i].starts_with('?'), "reply {i}: {:?}\nall: {r:?}", r[i]);
    assert_eq!(r[0], "= 2");
    assert_eq!(r[1], "=2 hane");
    expect_ok(2);
    expect_ok(3);
    expect_ok(4);
    assert!(r[5].len() > 2, "genmove answers a vertex: {:?}", r[5]);
    expect_err(6); // occupied
    expect_err(7); // bad colour
    expect_err(8); // unknown command
    expect_err(9); // bad size
    expect_err(10); // bad komi
    expect_err(11); // garbage
    expect_ok(12);
    expect_ok(13);
    expect_err(14); // nothing left to undo
    expect_err(15);
    assert_eq!(r[16], "= E5 C3", "7x7 handicap 2: the 3-3 points");
    expect_ok(17);
    expect_ok(18);
    assert!(r[19].starts_with("= B+") || r[19].starts_with("= W+") || r[19] == "= 0", "{:?}", r[19]);
    expect_ok(20);
    expect_ok(21);
    expect_ok(22);
    expect_ok(23);
    expect_ok(24);
    expect_ok(25);
    expect_ok(26); // slide C3 to C4, then place C5
    expect_ok(27);
    assert_eq!(r[28], "= true");
    assert_eq!(r[29], "=");
    assert_eq!(r.len(), 30, "nothing after quit");
}

#[test]
fn a_net_plays_its_own_rules_only() {
    let (dir, model) = tiny_model("gtp-model");
    let m = model.to_str().unwrap();
    let r = session_with(
        &["--rules", "ttakji,size=5", "--model", m],
        "komi 3.5\n\
        genmove b\n\
        boardsize 7\n\
        hane-rules sligo,size=5\n\
        showboard\n\
        hane-rules ttakji,size=5,komi=0.5\n\
        genmove b\n\
        boardsize 5\n\
        quit\n",
    );
    assert_eq!(r.len(), 9, "{r:?}");
    assert_eq!(r[0], "=", "komi is an input of the net: {r:?}");
    for i in [1, 6] {
        let v = r[i].strip_prefix("= ").unwrap_or_else(|| panic!("genmove: {r:?}"));
        let on_board = v.len() == 2 && ("A"..="E").contains(&&v[..1]) && ("1"..="5").contains(&&v[1..]);
        assert!(on_board || v == "pass", "a move on the empty 5x5 board: {v:?}");
    }
    for i in [2, 3] {
        assert!(r[i].starts_with("? the loaded net plays only ttakji,size=5"), "reply {i}: {r:?}");
    }
    assert!(r[4].contains("turn 1") && r[4].contains("    A B C D E\n"), "state kept: {:?}", r[4]);
    assert!(r[4].contains(" 5 ") && !r[4].contains(" 7 "), "still 5x5: {:?}", r[4]);
    assert_eq!(r[5], "=", "other komi, same game: {r:?}");
    assert_eq!(r[7], "=", "the net's own size: {r:?}");

    // A checkpoint for other rules, and a damaged one, stop the engine before it starts.
    let run = |rules: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_hane"))
            .args(["gtp", "--rules", rules, "--model", m])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = run("ttakji,size=7");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(m) && err.contains("the loaded net plays only ttakji,size=5"), "{err}");
    let (code, err) = run("japanese,size=5");
    assert_eq!(code, Some(0), "a Go net plays other Go rules of its size: {err}");
    assert!(err.contains("the net was trained on ttakji,size=5"), "{err}");
    std::fs::write(&model, b"\x08\0\0\0\0\0\0\0{garbage}").unwrap();
    let (code, err) = run("ttakji,size=5");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(m) && err.contains("not a valid checkpoint"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    // A folder where a checkpoint is named is bad input, and the message says what it is.
    std::fs::remove_file(&model).unwrap();
    std::fs::create_dir(&model).unwrap();
    let (code, err) = run("ttakji,size=5");
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(m) && err.contains("is a folder, and a checkpoint must be a regular file"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

const VERSION: &str = env!("CARGO_PKG_VERSION");

#[test]
fn a_line_that_is_not_utf8_gets_one_error_response() {
    assert_eq!(
        transcript(b"name\n\xe9t\xe9\nversion\n"),
        format!("= hane\n\n? syntax error: the command is not UTF-8\n\n= {VERSION}\n\n")
    );
    // Ids, CR LF, control characters, comments (whatever their bytes), empty and blank lines
    // (no response), an id alone, and nothing after `quit`.
    let input =
        b"1 name\r\n2 caf\xe9 au lait\n\n \t \r\n# \xff\xfe\nname # \xff\n3\n\x00\x01qu\x7fit\nname\n";
    assert_eq!(
        transcript(input),
        "=1 hane\n\n?2 syntax error: the command is not UTF-8\n\n= hane\n\n\
         ?3 syntax error: no command after the id\n\n=\n\n"
    );
}

#[test]
fn one_colour_played_twice_implies_a_pass_that_does_not_end_the_game() {
    let r = session(
        "boardsize 5\n\
        play b pass\n\
        play b D4\n\
        play w C3\n\
        play b pass\n\
        play b pass\n\
        play w B2\n\
        undo\n\
        play w B2\n\
        undo\n\
        undo\n\
        showboard\n\
        genmove w\n\
        undo\n\
        showboard\n",
    );
    assert_eq!(r.len(), 15, "{r:?}");
    for i in [0, 1, 2, 3, 4] {
        assert_eq!(r[i], "=", "reply {i}: {r:?}");
    }
    // The implied White pass leaves Black's run of passes as it was: two Black passes end it.
    assert_eq!(r[5], "=", "{r:?}");
    assert_eq!(r[6], "? illegal move: the game is over", "{r:?}");
    // Undo takes back the Black pass together with the pass it implied.
    for i in [7, 8, 9, 10] {
        assert_eq!(r[i], "=", "reply {i}: {r:?}");
    }
    assert!(r[11].contains("Black to move, turn 4,"), "{:?}", r[11]);
    assert!(r[11].contains(" 4  . . . X .") && r[11].contains(" 3  . . O . ."), "{:?}", r[11]);
    assert!(r[12].starts_with("= "), "genmove w answers a move: {r:?}");
    assert_eq!(r[13], "=");
    assert_eq!(r[14], r[11], "undo takes back genmove's turn and the pass it implied");
}

/// Runs `setup` (every command must succeed), then each of `bad` between `showboard`s, then
/// `after`: every bad command must fail and leave the board, the side to move, the turn and
/// the rules as they were. Returns the replies to `after`.
fn failures_change_nothing(setup: &[&str], bad: &[String], after: &[&str]) -> Vec<String> {
    let mut script: String = setup.iter().map(|c| format!("{c}\n")).collect();
    script.push_str("showboard\n");
    for b in bad {
        script.push_str(&format!("{b}\nshowboard\n"));
    }
    script.extend(after.iter().map(|c| format!("{c}\n")));
    let r = session(&script);
    assert_eq!(r.len(), setup.len() + 1 + 2 * bad.len() + after.len(), "{r:?}");
    assert!(r[..setup.len()].iter().all(|s| s.starts_with('=')), "{r:?}");
    let board = &r[setup.len()];
    for (i, b) in bad.iter().enumerate() {
        let (reply, now) = (&r[setup.len() + 1 + 2 * i], &r[setup.len() + 2 + 2 * i]);
        assert!(reply.starts_with('?'), "{b:?} must fail: {reply:?}");
        assert_eq!(now, board, "{b:?} ({reply:?}) changed the state");
    }
    r[r.len() - after.len()..].to_vec()
}

/// Every vertex of a 5x5 board.
fn all_5x5() -> Vec<String> {
    "ABCDE".chars().flat_map(|c| (1..=5).map(move |row| format!("{c}{row}"))).collect()
}

#[test]
fn a_failed_command_leaves_the_state_as_it_was() {
    let bad: Vec<String> = [
        "set_free_handicap C3 C3",
        "set_free_handicap C3 D4 C3",
        "set_free_handicap C3 Z9",
        "set_free_handicap C3 pass",
        "set_free_handicap C3",
        "fixed_handicap 2",
        "place_free_handicap 25",
        "place_free_handicap 1",
        "place_free_handicap -3",
        "boardsize 5 6",
        "boardsize 1",
        "boardsize 300",
        "komi 0.3",
        "komi 6.5 1",
        "hane-rules loose,size=4",
        "time_settings -1 -1 -1",
        "undo",
        "genmove purple",
        "play b",
        "loadsgf /nonexistent/game.sgf",
        "final_status_list maybe",
    ]
    .map(String::from)
    .into_iter()
    .chain([format!("set_free_handicap {}", all_5x5().join(" "))])
    .collect();
    let after = failures_change_nothing(&["boardsize 5"], &bad, &["set_free_handicap C3 D4"]);
    assert_eq!(after, ["="], "the board stayed empty");

    // In a game, with Black's pass pending: a White pass still ends it afterwards.
    let bad = [
        "play b C3",
        "play w C3",
        "play w Z9",
        "play w C3>C4+C5",
        "fixed_handicap 2",
        "place_free_handicap 2",
        "set_free_handicap A1 A2",
        "komi abc",
        "hane-rules nonsense",
        "boardsize 5 6",
        "loadsgf /nonexistent/game.sgf",
        "clear_board now",
        "undo 1",
    ]
    .map(String::from);
    let after = failures_change_nothing(
        &["boardsize 5", "play b C3", "play w D4", "play b pass"],
        &bad,
        &["play w pass", "play b A1", "undo", "undo", "undo", "undo", "undo"],
    );
    assert_eq!(after, ["=", "? illegal move: the game is over", "=", "=", "=", "=", "? cannot undo"]);
}

#[test]
fn handicaps_follow_the_gtp_limits() {
    let all = all_5x5();
    let script = format!(
        "boardsize 5\n\
        place_free_handicap 2\n\
        clear_board\n\
        place_free_handicap 24\n\
        final_score\n\
        clear_board\n\
        place_free_handicap 25\n\
        place_free_handicap 1\n\
        fixed_handicap 2\n\
        set_free_handicap {}\n\
        set_free_handicap {}\n\
        boardsize 7\n\
        fixed_handicap 4\n\
        clear_board\n\
        fixed_handicap 5\n\
        place_free_handicap 5\n\
        boardsize 8\n\
        fixed_handicap 5\n\
        fixed_handicap 4\n\
        boardsize 9\n\
        fixed_handicap 10\n\
        fixed_handicap 9\n\
        boardsize 19\n\
        play b C3\n\
        fixed_handicap 2\n\
        clear_board\n\
        fixed_handicap 9\n",
        all.join(" "),
        all[..24].join(" ")
    );
    let r = session(&script);
    assert_eq!(r.len(), 27, "{r:?}");
    let vertices = |s: &str| {
        let v: Vec<String> =
            s.strip_prefix("= ").unwrap_or_else(|| panic!("{s:?}")).split(' ').map(String::from).collect();
        let mut distinct = v.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), v.len(), "repeated vertex: {s:?}");
        v
    };
    assert_eq!(vertices(&r[1]).len(), 2, "a free handicap on 5x5");
    assert_eq!(vertices(&r[3]).len(), 24, "all points but one");
    assert!(r[4].starts_with("= B+"), "{:?}", r[4]);
    for i in [6, 7, 8] {
        assert_eq!(r[i], "? invalid number of stones", "reply {i}: {r:?}");
    }
    assert_eq!(r[9], "? bad vertex list: a handicap has 2 to 24 stones");
    assert_eq!(r[10], "=", "24 stones leave one point empty");
    assert_eq!(r[12], "= E5 C3 E3 C5", "7x7: the 3-3 points");
    assert_eq!(r[14], "? invalid number of stones", "7x7 has no fixed handicap of 5");
    assert_eq!(vertices(&r[15]), ["E5", "C3", "E3", "C5", "D4"], "a free handicap goes further");
    assert_eq!(r[17], "? invalid number of stones", "even sizes: at most 4");
    assert_eq!(r[18], "= F6 C3 F3 C6");
    assert_eq!(r[20], "? invalid number of stones");
    assert_eq!(r[21], "= G7 C3 G3 C7 C5 G5 E7 E3 E5");
    assert_eq!(r[24], "? board not empty");
    assert_eq!(r[26], "= Q16 D4 Q4 D16 D10 Q10 K16 K4 K10");
}

#[test]
fn genmove_after_the_end_of_the_game_passes_for_both_colours() {
    let r = session(
        "boardsize 5\n\
        play b C3\n\
        play w pass\n\
        play b pass\n\
        showboard\n\
        genmove b\n\
        genmove w\n\
        kgs-genmove_cleanup w\n\
        hane-genmove b\n\
        showboard\n\
        undo\n\
        genmove w\n",
    );
    assert_eq!(r.len(), 12, "{r:?}");
    assert_eq!(&r[5..9], ["= pass"; 4], "{r:?}");
    assert_eq!(r[9], r[4], "the finished game stays as it was");
    assert_eq!(r[10], "=", "undo takes back Black's pass");
    assert!(r[11].starts_with("= "), "White plays on: {r:?}");
}

#[test]
fn extra_arguments_and_negative_times_are_syntax_errors() {
    let bad = [
        "boardsize 5 6",
        "boardsize",
        "time_settings -1 -1 -1",
        "time_settings 60 -5 1",
        "time_settings 60 5 -1",
        "time_settings 60 5",
        "time_settings 60 5 1 1",
        "time_settings inf 5 1",
        "time_left b -1 0",
        "time_left b 30",
        "time_left purple 30 0",
        "name extra",
        "quit now",
        "komi 6.5 1",
        "play b C3 C4",
        "genmove b w",
        "known_command",
        "fixed_handicap 2 3",
        "hane-rules ttakji extra",
    ];
    let script: String = bad.iter().map(|c| format!("{c}\n")).collect();
    let r = session(&format!("{script}time_settings 60 5 1\ntime_left w 30 2\nboardsize 7\nquit\n"));
    assert_eq!(r.len(), bad.len() + 4, "{r:?}");
    for (c, reply) in bad.iter().zip(&r) {
        assert!(reply.starts_with("? syntax error"), "{c:?}: {reply:?}");
    }
    assert_eq!(&r[bad.len()..], ["=", "=", "=", "="]);
}

#[test]
fn komi_during_a_game_keeps_the_moves() {
    let r = session(
        "boardsize 5\n\
        play b C3\n\
        komi 0.5\n\
        showboard\n\
        hane-score\n\
        undo\n\
        hane-score\n",
    );
    assert_eq!(r.len(), 7, "{r:?}");
    assert_eq!(r[2], "=");
    assert!(r[3].contains(" 3  . . X . .") && r[3].contains("White to move, turn 1,"), "{:?}", r[3]);
    assert_eq!(r[4], "= black 25 white 0.5 winner b");
    assert_eq!(r[6], "= black 0 white 0.5 winner w", "undo keeps the new komi");
}

/// xorshift64*: a small seeded generator, so that a failing stream can be replayed by seed.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }

    fn bytes(&mut self, max: usize) -> Vec<u8> {
        (0..self.below(max + 1)).map(|_| self.next() as u8).collect()
    }
}

/// A command, mostly well-formed: the commands hane knows, with plausible arguments.
fn random_command(rng: &mut Rng) -> String {
    const COLORS: &[&str] = &["b", "w", "black", "White", "purple"];
    const VERTICES: &[&str] = &["A1", "B2", "C3", "D4", "E5", "C4", "J9", "pass", "Z99", "C3>C4+C5", "0"];
    const OTHERS: &[&str] = &[
        "protocol_version",
        "name",
        "version",
        "list_commands",
        "clear_board",
        "undo",
        "showboard",
        "final_score",
        "hane-score",
        "known_command play",
        "final_status_list dead",
        "final_status_list alive",
        "time_settings 60 5 1",
        "time_settings -1 -1 -1",
        "time_left b 30 0",
        "loadsgf /nonexistent/game.sgf",
        "hane-rules loose,size=5",
        "hane-rules sligo,size=5",
        "hane-rules ttakji,size=5",
        "hane-rules brainking,size=7",
        "hane-rules bogus",
        "bogus_command",
    ];
    let (c, v) = (rng.pick(COLORS), rng.pick(VERTICES));
    match rng.below(10) {
        0 => format!("boardsize {}", rng.pick(&["2", "3", "5", "7", "9", "0", "99", "-1", "x", "5 6"])),
        1 => format!("komi {}", rng.pick(&["0", "0.5", "6.5", "-3", "0.3", "nan", "1e9", "abc"])),
        2 | 3 => format!("{} {c} {v}", rng.pick(&["play", "hane-play"])),
        4 => format!("{} {c}", rng.pick(&["genmove", "hane-genmove", "kgs-genmove_cleanup"])),
        5 => format!("{} {}", rng.pick(&["fixed_handicap", "place_free_handicap"]), rng.below(30)),
        6 => {
            let vs: Vec<&str> = (0..rng.below(5)).map(|_| rng.pick(VERTICES)).collect();
            format!("set_free_handicap {}", vs.join(" "))
        }
        _ => rng.pick(OTHERS).to_string(),
    }
}

/// One line of a random stream with its line ending: a command (sometimes with an id, tabs,
/// a comment, a stray byte), an empty or blank line, a comment, or raw bytes (newlines too).
fn random_line(rng: &mut Rng) -> Vec<u8> {
    let mut line = Vec::new();
    match rng.below(14) {
        0 => {}
        1 => line.extend(rng.pick(&[" ", "\t", " \t \r", "\r"]).bytes()),
        2 => line.extend(rng.bytes(24)),
        3 => {
            line.push(b'#');
            line.extend(rng.bytes(16).into_iter().filter(|&b| b != b'\n'));
        }
        4 if rng.below(40) == 0 => line.extend(b"quit"),
        _ => {
            if rng.below(3) == 0 {
                line.extend(format!("{} ", rng.below(1000)).bytes());
            }
            let mut cmd = random_command(rng).into_bytes();
            if rng.below(4) == 0 {
                cmd = cmd.into_iter().map(|b| if b == b' ' { b'\t' } else { b }).collect();
            }
            if rng.below(6) == 0 {
                let at = rng.below(cmd.len() + 1);
                cmd.insert(at, rng.next() as u8);
            }
            line.extend(cmd);
            if rng.below(6) == 0 {
                line.extend(b" # comment \xff");
            }
        }
    }
    line.extend(rng.pick(&["\n", "\n", "\n", "\r\n"]).bytes());
    line
}

/// A stream of up to 100 random lines, the last one sometimes without its line ending.
fn random_stream(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut input: Vec<u8> = (0..1 + rng.below(100)).flat_map(|_| random_line(&mut rng)).collect();
    if rng.below(4) == 0 {
        while input.last().is_some_and(|&b| b == b'\n' || b == b'\r') {
            input.pop();
        }
    }
    input
}

/// The ids of the command lines of `input` that `hane gtp` must answer, up to `quit`: GTP's
/// preprocessing, as the spec describes it, written out again, as the test's oracle.
fn expected_ids(input: &[u8]) -> Vec<String> {
    let mut ids = Vec::new();
    for raw in input.split(|&b| b == b'\n') {
        let kept: Vec<u8> = raw
            .iter()
            .filter(|&&b| b == b'\t' || (b >= 32 && b != 127))
            .map(|&b| if b == b'\t' { b' ' } else { b })
            .collect();
        let line = kept.split(|&b| b == b'#').next().unwrap_or_default();
        let mut words: Vec<&[u8]> = line.split(|&b| b == b' ').filter(|w| !w.is_empty()).collect();
        if words.is_empty() {
            continue;
        }
        let id: &[u8] = if words[0].iter().all(u8::is_ascii_digit) { words.remove(0) } else { &[] };
        ids.push(String::from_utf8(id.to_vec()).unwrap());
        if words.len() == 1 && words[0] == b"quit" {
            break;
        }
    }
    ids
}

/// Whether `hane gtp` answers `input` with one framed response per command line, each with
/// its command's id, and exits with success.
fn check_stream(input: &[u8]) -> Result<(), String> {
    let (status, out) = gtp(&["--visits", "2"], input);
    if !status.success() {
        return Err(format!("exit status {status}"));
    }
    let out = String::from_utf8(out).map_err(|_| "stdout is not UTF-8".to_string())?;
    let responses: Vec<&str> = match out.strip_suffix("\n\n") {
        Some(body) => body.split("\n\n").collect(),
        None if out.is_empty() => Vec::new(),
        None => return Err(format!("stdout does not end with an empty line: {out:?}")),
    };
    let ids = expected_ids(input);
    if responses.len() != ids.len() {
        return Err(format!("{} responses to {} command lines: {responses:?}", responses.len(), ids.len()));
    }
    for (r, id) in responses.iter().zip(&ids) {
        let framed = r
            .strip_prefix(['=', '?'])
            .and_then(|rest| rest.strip_prefix(id.as_str()))
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([' ', '\n']));
        if !framed {
            return Err(format!("response {r:?} to the command with id {id:?}"));
        }
    }
    Ok(())
}

#[test]
fn random_byte_streams_get_one_response_per_command_line() {
    // Each stream starts a process, which loads libtorch: HANE_GTP_STREAMS=300 runs more.
    let streams: u64 = std::env::var("HANE_GTP_STREAMS").ok().and_then(|s| s.parse().ok()).unwrap_or(16);
    let failures: Vec<String> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
            .map(|w| {
                s.spawn(move || {
                    (w..streams)
                        .step_by(2)
                        .filter_map(|seed| {
                            let input = random_stream(seed);
                            let e = check_stream(&input).err()?;
                            Some(format!("seed {seed}: {e}\ninput: {}", input.escape_ascii()))
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn final_score_judges_dead_stones_as_a_player_would() {
    // Black walls off columns A-B, White D-E; White's A3 sits inside Black's area. The
    // rules' own method (pass-alive areas) keeps it; final_score removes it, as GNU Go does
    // (its final_status_list dead is A3 too).
    let moves = "komi 0\nplay b B1\nplay w D1\nplay b B2\nplay w D2\nplay b B3\nplay w D3\n\
        play b B4\nplay w D4\nplay b B5\nplay w D5\nplay b pass\nplay w A3\n";
    let r = session_with(
        &["--rules", "chinese,size=5"],
        &format!("{moves}final_score\nfinal_status_list dead\nfinal_status_list alive\nhane-score\nquit\n"),
    );
    let n = r.len();
    assert_eq!(r[n - 5], "= 0", "Black 10 (A-B), White 10 (D-E), column C neutral: {r:?}");
    assert_eq!(r[n - 4], "= A3", "{r:?}");
    assert!(!r[n - 3].contains("A3") && r[n - 3].contains("B3") && r[n - 3].contains("D3"), "{r:?}");
    assert_eq!(r[n - 2], "= black 5 white 11 winner w", "the rules' own count keeps A3: {r:?}");
}

#[test]
fn a_go_net_plays_every_go_rule_set_and_says_what_it_was_trained_on() {
    let (dir, model) = tiny_model("gtp-other-rules");
    let mut child = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(["gtp", "--rules", "ttakji,size=5", "--model", model.to_str().unwrap(), "--visits", "8"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let script = "kata-set-rules japanese\ngenmove b\nkata-set-rules tromp-taylor\ngenmove w\n\
                  hane-rules loose,size=5\nquit\n";
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let r: Vec<&str> = stdout.split("\n\n").filter(|s| !s.is_empty()).collect();
    assert_eq!(r.len(), 6, "{stdout}");
    assert!(r[0] == "=" && r[1].starts_with("= ") && r[2] == "=" && r[3].starts_with("= "), "{stdout}");
    assert!(
        r[4].starts_with("? the loaded net plays only ttakji,size=5"),
        "a Go net plays no Loose: {stdout}"
    );
    assert_eq!(stderr.matches("the net was trained on ttakji,size=5").count(), 2, "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The one SGF game `hane selfplay` writes into `dir` with the 5x5 ttakji config.
fn selfplay_sgf(dir: &std::path::Path) -> std::path::PathBuf {
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/../../configs/ttakji-5x5.toml");
    let out = dir.join("selfplay");
    let status = Command::new(env!("CARGO_BIN_EXE_hane"))
        .args(["selfplay", "--config", config, "--games", "1", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{status}");
    out.join("sgf/g00000000.sgf")
}

#[test]
fn loadsgf_reads_games_with_and_without_a_handicap() {
    let dir = std::env::temp_dir().join(format!("hane-loadsgf-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let own = selfplay_sgf(&dir);
    let plain = dir.join("plain.sgf");
    std::fs::write(&plain, "(;SZ[5];B[cc];W[dd])").unwrap();
    let handicap = dir.join("handicap.sgf");
    std::fs::write(&handicap, "(;SZ[5]HA[2]AB[aa][bb];W[cc])").unwrap();
    let [own, plain, handicap] = [&own, &plain, &handicap].map(|p| p.to_str().unwrap().to_string());
    let r = session(&format!(
        "loadsgf {plain}\nplay b C3\nplay b B2\nloadsgf {plain} 2\n\
         loadsgf {handicap}\nplay b A5\nloadsgf {own}\nhane-score\n"
    ));
    assert_eq!(r[0], "= black", "no handicap: Black moves after W[dd]; all: {r:?}");
    assert!(r[1].starts_with('?'), "C3 holds B[cc]: {r:?}");
    assert_eq!(r[2], "=");
    assert_eq!(r[3], "= white", "up to move 2: B[cc] only");
    assert_eq!(r[4], "= black", "HA[2]AB, then W[cc]");
    assert!(r[5].starts_with('?'), "A5 holds a handicap stone: {r:?}");
    assert!(r[6].starts_with('='), "hane's own self-play game: {r:?}");
    let text = std::fs::read_to_string(&own).unwrap();
    let winner = text.split("RE[").nth(1).unwrap().chars().next().unwrap().to_ascii_lowercase();
    assert!(r[7].ends_with(&format!("winner {winner}")), "the SGF says RE[{winner}..]: {r:?}");
    let replayed = Command::new(env!("CARGO_BIN_EXE_hane")).args(["replay", "--sgf", &own]).output().unwrap();
    assert!(replayed.status.success(), "{}", String::from_utf8_lossy(&replayed.stderr));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_full_or_closed_stderr_does_not_stop_the_engine() {
    // A GUI may close the engine's stderr or leave it full: the notes that go there (the
    // nearest rules for a KataGo name, a net's own rules) are lost, the replies are not.
    let script = b"kata-set-rules aga\nname\nquit\n";
    for closed in [false, true] {
        // A pipe whose reading end is closed at once, or the device that is always full.
        let stderr =
            if closed { Stdio::piped() } else { Stdio::from(std::fs::File::create("/dev/full").unwrap()) };
        let mut child = Command::new(env!("CARGO_BIN_EXE_hane"))
            .args(["gtp", "--visits", "16"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .unwrap();
        drop(child.stderr.take());
        child.stdin.take().unwrap().write_all(script).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", out.status);
        assert_eq!(String::from_utf8(out.stdout).unwrap(), "=\n\n= hane\n\n=\n\n");
    }
}
