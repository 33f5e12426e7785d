//! The engine of `hane gtp`: GTP version 2 for GUIs (Sabaki, GoGui) and match runners.
//!
//! Standard commands for the Go rule sets, plus private `hane-*` commands: `hane-rules RULES`
//! chooses any rule set (Loose and Sligo included), `hane-play COLOR TURN` plays a turn in
//! hane's notation (Sligo `E5>F6+D4`), `hane-genmove COLOR` answers in that notation, and
//! `hane-score` prints the "if the game ended now" score, `hane-help` every command with its
//! arguments. One table ([`commands::TABLE`]) holds the commands, their help and handlers.
//! The analysis commands of Leela Zero and KataGo (`lz-analyze`, `kata-analyze`, ...) stream
//! the search's candidate moves until the next command ([`analyze`]).
//!
//! Every command line gets exactly one response, whatever bytes arrive: input is preprocessed
//! as the spec says (control characters dropped, comments and empty lines ignored), a line
//! that is not UTF-8 gets a `?` response with its id, a wrong number of arguments is a syntax
//! error, and the engine exits only on `quit` or at the end of its input. A command that
//! fails leaves the engine's state exactly as it was. Playing one colour twice implies a pass
//! of the other that does not end the game; after the game has ended `genmove` answers
//! `pass` for both colours. Handicaps follow the spec's limits: `fixed_handicap` 2 to 9 stones
//! where the board has the standard points, free handicaps 2 stones up to all points but one.
//! `komi` during a game keeps its moves.
//!
//! The search ([`Brain`]) evaluates positions with random rollouts, or with a net from
//! `--model CHECKPOINT` (a `.safetensors` file from `hane train`). A net plays the rule set it was
//! trained on and, for a Go net, any Go rules of its board sizes (`--rules japanese,size=5`
//! or `kata-set-rules japanese` with a 5x5 ttakji net: the search plays under those rules
//! with the net's evaluations, and stderr says which rules the net was trained on; see
//! [`hane_mcts::net_rules`]). `--rules` is checked when the net is loaded: a bad or foreign
//! checkpoint is bad input naming the file. A `boardsize`, `hane-rules` or
//! `loadsgf` that would change the board size or the game (Go, Loose, Sligo) gets an error
//! response saying which rules the net plays, and the engine keeps its state. Komi (an input
//! of the net) and the turn cap may change freely.
//!
//! `final_score` and `final_status_list` judge dead stones as a player would, not by the
//! rules' automatic method (which self-play and the referee keep): under Go rules with random
//! playouts (Benson's pass-alive chains always live), with or without a net; Loose and Sligo
//! count by their own rules.

use crate::brain::Brain;
use crate::input::Line;
use hane_engine::board::PointSet;
use hane_engine::rules::Variant;
use hane_engine::score::{dead_by_playouts, dead_stones, score_judged};
use hane_engine::{Color, Game, GameState, Geometry, Point, Rules, Turn};
use std::borrow::Cow;
use std::io::{self, BufRead, Write};

pub mod analyze;
pub mod commands;

/// GoGui's analyze menu: `type/label/command` (GoGui's docs: `dboard` is a board of numbers,
/// `plist` a list of points).
const GOGUI_ANALYZE: &[&str] = &[
    "dboard/Ownership (Black +1)/hane-ownership",
    "plist/Dead stones/final_status_list dead",
    "string/Final score/final_score",
    "string/Score as the board stands (the rules' own count)/hane-score",
    "string/Rules (KataGo's terms)/kata-get-rules",
    "string/CPU seconds/cputime",
];

/// Tells stderr (a GUI's log) `text`. A GUI may close the engine's stderr or leave it full:
/// the note is then lost, and the engine goes on answering.
fn note(text: &str) {
    let _ = writeln!(io::stderr(), "hane: {text}");
}

/// The engine state between commands. Every command either succeeds or fails leaving this
/// exactly as it was: a command works out the new state first and stores it last.
#[derive(Debug)]
pub struct Engine {
    rules: Rules,
    game: GameState,
    /// The game before each move made by `play` or `genmove`, for `undo`.
    history: Vec<GameState>,
    brain: Brain,
}

/// Outcome of one command: a response, or a request to quit after responding.
#[derive(Debug)]
pub enum Reply {
    /// `= ...`
    Ok(String),
    /// `? ...`
    Err(String),
    /// `=` and exit.
    Quit,
    /// An analysis of this position: `=`, then report lines until the next command.
    Analyze(analyze::Request, Box<GameState>),
}

/// `args` as an array when there are exactly `N` of them, else a syntax error.
fn exactly<'a, const N: usize>(args: &[&'a str]) -> Result<[&'a str; N], String> {
    args.try_into().map_err(|_| format!("syntax error: expected {N} argument(s), got {}", args.len()))
}

/// A GTP colour: `b`, `w`, `black` or `white`, in any case.
fn color(s: &str) -> Result<Color, String> {
    match s.to_ascii_lowercase().as_str() {
        "b" | "black" => Ok(Color::Black),
        "w" | "white" => Ok(Color::White),
        _ => Err("syntax error: expected a color".into()),
    }
}

/// A time in seconds for `time_settings`/`time_left`: a non-negative number (GTP sends
/// integers; fractions are accepted too).
fn seconds(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|t| t.is_finite() && *t >= 0.0)
        .ok_or_else(|| format!("syntax error: \"{}\" is not a time in seconds", s.escape_debug()))
}

/// A stone count for `time_settings`/`time_left`: a non-negative integer.
fn stone_count(s: &str) -> Result<u32, String> {
    s.parse().map_err(|_| format!("syntax error: \"{}\" is not a number of stones", s.escape_debug()))
}

/// Makes `c` the side to move in `game`: a controller may play one colour twice, implying a
/// pass of the other in between, which does not count towards the end of the game (see
/// [`GameState::pass_implied`]).
fn turn_to(game: &mut GameState, c: Color) -> Result<(), String> {
    if game.to_move() == c {
        return Ok(());
    }
    game.pass_implied().map_err(|e| e.to_string())
}

/// The largest fixed handicap GTP defines on a `size` board (spec section 4.1.1): none
/// below 7x7, 4 stones on 7x7 and on even sizes, 9 on odd sizes from 9x9.
fn max_fixed_handicap(size: usize) -> usize {
    match size {
        0..=6 => 0,
        7 => 4,
        s if s % 2 == 0 => 4,
        _ => 9,
    }
}

/// The vertices of GTP's fixed handicap of `n` stones (on the third line below 13x13, on the
/// fourth from 13x13), if the spec defines one for this board.
fn fixed_handicap(geo: Geometry, n: usize) -> Option<Vec<Point>> {
    let size = geo.size();
    if !(2..=max_fixed_handicap(size)).contains(&n) {
        return None;
    }
    let e = if size >= 13 { 3 } else { 2 };
    let (lo, mid, hi) = (e, size / 2, size - 1 - e);
    let at = |x: usize, y: usize| geo.point(x, y);
    let corners = [at(hi, lo), at(lo, hi), at(hi, hi), at(lo, lo)];
    let mut pts: Vec<Point> = corners[..n.min(4)].to_vec();
    let sides = [at(lo, mid), at(hi, mid), at(mid, lo), at(mid, hi)];
    match n {
        5 | 7 | 9 => {
            pts.extend(&sides[..n - 5]);
            pts.push(at(mid, mid));
        }
        6 | 8 => pts.extend(&sides[..n - 4]),
        _ => {}
    }
    Some(pts)
}

/// The vertices hane chooses for a free handicap of `n` stones, if `n` is within GTP's limits
/// (at least 2, and at least one point left empty): the fixed handicap points as far as the
/// board has them, then the points nearest the centre.
fn free_handicap(geo: Geometry, n: usize) -> Option<Vec<Point>> {
    if !(2..geo.area()).contains(&n) {
        return None;
    }
    let mut pts = fixed_handicap(geo, n.min(max_fixed_handicap(geo.size()))).unwrap_or_default();
    // Twice the distance to the centre, squared: integers on every board size.
    let off_centre = |p: Point| {
        let (x, y) = geo.xy(p);
        let (dx, dy) = ((2 * x).abs_diff(geo.size() - 1), (2 * y).abs_diff(geo.size() - 1));
        dx * dx + dy * dy
    };
    let mut rest: Vec<Point> = geo.points().filter(|p| !pts.contains(p)).collect();
    rest.sort_by_key(|&p| off_centre(p));
    pts.extend(rest.into_iter().take(n - pts.len()));
    Some(pts)
}

impl Engine {
    /// A new engine playing `rules` with `brain`.
    pub fn new(rules: Rules, brain: Brain) -> Engine {
        Engine { rules, game: GameState::new(rules), history: Vec::new(), brain }
    }

    /// Switches to `rules` (valid ones; a new game) unless the brain's net cannot play them.
    fn set_rules(&mut self, rules: Rules) -> Result<(), String> {
        self.note_rules(&rules)?;
        self.rules = rules;
        self.reset();
        Ok(())
    }

    /// Checks that the brain can play `rules`, telling stderr (a GUI's log) when its net was
    /// trained on other Go rules.
    fn note_rules(&self, rules: &Rules) -> Result<(), String> {
        if let Some(text) = self.brain.check_rules(rules)? {
            note(&text);
        }
        Ok(())
    }

    fn reset(&mut self) {
        self.game = GameState::new(self.rules);
        self.history.clear();
    }

    /// Makes `next` the game, keeping the current one for `undo`.
    fn commit_move(&mut self, next: GameState) {
        self.history.push(std::mem::replace(&mut self.game, next));
    }

    fn genmove(&mut self, c: Color, cleanup: bool) -> Result<String, String> {
        // After the end of the game both colours pass, as GNU Go and KataGo answer, and the
        // game stays as it is.
        if self.game.is_over() {
            return Ok("pass".into());
        }
        let mut next = self.game.clone();
        turn_to(&mut next, c)?;
        let start = next.clone();
        // Empty when the implied pass reached the turn cap: the game ended, `c` passes.
        let actions = self.brain.play_turn(&mut next, cleanup).map_err(|e| e.to_string())?;
        self.commit_move(next);
        Ok(Turn::name_of(&start, &actions))
    }

    /// The dead stones as a player judges them at the end of a game: under Go rules by random
    /// playouts ([`dead_by_playouts`]), with or without a net; Loose and Sligo by their own
    /// rules. A net's ownership head is not asked: trained on games played out to the end, it
    /// misjudged positions that still hold dead stones (measured in docs/analysis.md).
    fn judged_dead(&self) -> PointSet {
        let b = self.game.board();
        match self.rules.variant {
            Variant::Go => dead_by_playouts(b),
            _ => dead_stones(&self.game, b),
        }
    }

    /// The score with the judged dead stones removed (the rules' own scoring otherwise).
    fn final_score(&self) -> String {
        let s = match self.rules.variant {
            Variant::Go => {
                let dead = self.judged_dead();
                score_judged(&self.game, &dead)
            }
            _ => self.game.score(),
        };
        let m = s.margin_black();
        if m > 0.0 {
            format!("B+{m}")
        } else if m < 0.0 {
            format!("W+{}", -m)
        } else {
            "0".into()
        }
    }

    /// Places handicap stones (vertices known to be distinct and on the board) on the empty
    /// board of a Go game.
    fn set_handicap(&mut self, pts: &[Point]) -> Result<(), String> {
        if self.game.turns() != 0 {
            return Err("board not empty".into());
        }
        let mut next = self.game.clone();
        next.set_handicap(pts).map_err(|e| e.to_string())?;
        self.game = next;
        Ok(())
    }

    /// Executes one command (without id), as the command table ([`commands::TABLE`]) says.
    pub fn execute(&mut self, cmd: &str, args: &[&str]) -> Reply {
        let Some(command) = commands::find(cmd) else { return Reply::Err("unknown command".into()) };
        match command.run {
            commands::Run::Analysis => {
                let job = analyze::parse(cmd, args)
                    .map_err(|e| e.0)
                    .and_then(|req| Ok((self.analysis_root(&req)?, req)));
                match job {
                    Ok((root, req)) => Reply::Analyze(req, Box::new(root)),
                    Err(e) => Reply::Err(e),
                }
            }
            commands::Run::Plain(handler) => match handler(self, cmd, args) {
                Ok(Some(s)) => Reply::Ok(s),
                Ok(None) => Reply::Quit,
                Err(e) => Reply::Err(e),
            },
        }
    }
}

/// A command line after the GTP spec's preprocessing, or `None` for a line it
/// leaves empty, which gets no response: control characters other than HT are removed (CR
/// and the newline among them), HT becomes a space, and a comment from `#` on is dropped.
fn preprocess(raw: &[u8]) -> Option<Vec<u8>> {
    let mut line: Vec<u8> = raw
        .iter()
        .filter_map(|&b| match b {
            b'\t' => Some(b' '),
            0..=31 | 127 => None,
            _ => Some(b),
        })
        .collect();
    if let Some(i) = line.iter().position(|&b| b == b'#') {
        line.truncate(i);
    }
    line.iter().any(|&b| b != b' ').then_some(line)
}

/// `MARKID text` and the empty line that ends a response (`MARKID` alone without a text).
/// Empty lines inside `text` would end the response early: they are dropped.
fn frame(mark: char, id: &str, text: &str) -> String {
    let mut body = text.trim_end_matches('\n').to_string();
    while body.contains("\n\n") {
        body = body.replace("\n\n", "\n");
    }
    let sep = if body.is_empty() { "" } else { " " };
    format!("{mark}{id}{sep}{body}\n\n")
}

/// The id and the reply to one preprocessed command line. A line that is not UTF-8, or was
/// `too_long` to be read whole ([`Line::too_long`]), is refused whole, with the id if it
/// starts with one.
fn respond(engine: &mut Engine, line: &[u8], too_long: bool) -> (String, Reply) {
    // Valid UTF-8 borrows; the lossy copy of other bytes still shows an id of ASCII digits.
    let text = String::from_utf8_lossy(line);
    let mut words: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
    let id = match words.first() {
        Some(w) if w.bytes().all(|b| b.is_ascii_digit()) => words.remove(0),
        _ => "",
    };
    let reply = match (&text, words.split_first()) {
        _ if too_long => Reply::Err(Line::too_long_message()),
        (Cow::Owned(_), _) => Reply::Err("syntax error: the command is not UTF-8".into()),
        (_, Some((cmd, args))) => engine.execute(cmd, args),
        (_, None) => Reply::Err("syntax error: no command after the id".into()),
    };
    (id.to_string(), reply)
}

/// Answers the GTP commands of `input` on `output` until `quit` or the end of the input:
/// one response per command line, whatever its bytes. An analysis command's response stays
/// open, with its report lines, until the next line arrives (see [`analyze`]).
pub fn serve(
    engine: &mut Engine,
    input: impl BufRead + Send + 'static,
    mut output: impl Write,
) -> io::Result<()> {
    let lines = crate::input::read_lines(input);
    let mut pending: Option<Line> = None;
    loop {
        let raw = match pending.take() {
            Some(raw) => raw,
            None => match lines.recv() {
                Ok(raw) => raw?,
                Err(_) => return Ok(()),
            },
        };
        let Some(line) = preprocess(&raw.bytes) else { continue };
        let (id, reply) = respond(engine, &line, raw.too_long);
        let response = match reply {
            Reply::Ok(s) => frame('=', &id, &s),
            Reply::Err(s) => frame('?', &id, &s),
            Reply::Quit => {
                output.write_all(frame('=', &id, "").as_bytes())?;
                output.flush()?;
                return Ok(());
            }
            Reply::Analyze(req, root) => {
                writeln!(output, "={id}")?;
                output.flush()?;
                let ended = engine.analyze(&req, *root, &lines, &mut output)?;
                output.write_all(b"\n")?;
                output.flush()?;
                match ended {
                    analyze::Ended::Line(raw) => pending = Some(raw),
                    analyze::Ended::Eof => return Ok(()),
                    analyze::Ended::Played => {}
                }
                continue;
            }
        };
        output.write_all(response.as_bytes())?;
        output.flush()?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::MAX_LINE_BYTES;

    #[test]
    fn a_line_past_the_limit_gets_one_error_with_its_id_and_the_next_is_answered() {
        let mut engine = Engine::new("ttakji,size=5".parse().unwrap(), Brain::with_rollouts(4, 1).unwrap());
        let input = [b"7 play b ".to_vec(), vec![b'x'; MAX_LINE_BYTES], b"\n8 name\n".to_vec()].concat();
        let mut out = Vec::new();
        serve(&mut engine, io::Cursor::new(input), &mut out).unwrap();
        let expected = format!("?7 {}\n\n=8 hane\n\n", Line::too_long_message());
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }
}
