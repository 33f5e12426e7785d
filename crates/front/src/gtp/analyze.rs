//! Live analysis over GTP, in the two formats GUIs parse: Leela Zero's (`lz-analyze`, also
//! answered to `analyze`; Lizzie, Sabaki) and KataGo's (`kata-analyze`; KaTrain, Lizzie with
//! KataGo, Sabaki), each also as a move generator (`lz-genmove_analyze`, `genmove_analyze`,
//! `kata-genmove_analyze`). KataGo's document of its GTP extensions (`GTP_Extensions.md` in
//! KataGo's repository) is the reference for the syntax and the fields.
//!
//! `lz-analyze [COLOR] [INTERVAL] [KEY VALUE]...` answers `=` at once, then searches the
//! position (for COLOR to move, when given: an implied pass of the other) and prints one line
//! every INTERVAL centiseconds (`interval`, default 100; 0 prints nothing) with every visited
//! candidate move, best first. It stops at the next command line (or an empty line): the
//! empty line that ends the response goes out first, then that command is answered. Keys:
//! `interval N`, `minmoves N` (also list unvisited moves by prior, up to N moves), `maxmoves
//! N` (at most N moves; 0 = all), and for the KataGo format `ownership true`,
//! `ownershipStdev true` and `rootInfo true`. The genmove forms search the engine's usual
//! visits, print the same lines (and a last one when the search ends), then `play MOVE`, and
//! play it; they are not interrupted.
//!
//! Values are the side to move's, as [`crate::candidates`] computes them (win rates with a
//! draw as half, the lower bounds, the score's spread). `scoreLead`, `scoreMean` and
//! `scoreSelfplay` are all the search's mean score margin. Ownership (row-major from the
//! top-left, as KataGo prints it) is the net's ownership head, or without a net random light
//! playouts from the root position ([`crate::candidates::ownership`]).
//!
//! Sligo turns have two decisions, which GUIs cannot show: these commands refuse Sligo.

use super::{color, turn_to, Engine};
use crate::candidates::{candidates, ownership, summary, CHUNK_VISITS};
use crate::input::Line;
use hane_engine::playout::Ownership;
use hane_engine::rules::Variant;
use hane_engine::{Action, Color, Game, GameState};
use hane_mcts::{Search, SearchConfig};
use std::fmt::Write as _;
use std::io::{self, Write};
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::{Duration, Instant};

/// Visits after which an analysis stops searching and waits for the next command: the tree
/// holds a node per visit and an edge per legal move of each, about 0.5 GB on 19x19.
pub const MAX_ANALYSIS_VISITS: u32 = 100_000;

/// Which program's output format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Leela Zero's: win rate, prior and LCB as integers in [0, 10000].
    Lz,
    /// KataGo's: floats, with utility and score fields, ownership on request.
    Kata,
}

/// A parsed analysis command.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// Output format.
    pub format: Format,
    /// The side to analyse for (default: the side to move).
    pub player: Option<Color>,
    /// Time between two reports (zero: none while searching).
    pub interval: Duration,
    /// List at least this many moves, unvisited ones by prior.
    pub min_moves: usize,
    /// List at most this many moves (0: all).
    pub max_moves: usize,
    /// KataGo format: print `ownership` after the moves.
    pub ownership: bool,
    /// KataGo format: print `ownershipStdev` after the moves.
    pub ownership_stdev: bool,
    /// KataGo format: print `rootInfo` with the root's values.
    pub root_info: bool,
    /// A genmove form: search the engine's visits, then play.
    pub genmove: bool,
}

fn number(key: &str, v: Option<&&str>) -> Result<usize, String> {
    v.and_then(|v| v.parse().ok()).ok_or_else(|| format!("syntax error: {key} needs a non-negative integer"))
}

fn flag(key: &str, v: Option<&&str>) -> Result<bool, String> {
    match v.map(|v| v.to_ascii_lowercase()) {
        Some(v) if v == "true" => Ok(true),
        Some(v) if v == "false" => Ok(false),
        _ => Err(format!("syntax error: {key} needs true or false")),
    }
}

hane_engine::message_error!(
    /// An analysis command that does not parse: the GTP error message for it.
    AnalyzeError
);

/// Parses `cmd ARGS` (an analysis command of [`super::commands::TABLE`]) as KataGo does: an
/// optional colour, an optional interval in centiseconds, then key-value pairs.
pub fn parse(cmd: &str, args: &[&str]) -> Result<Request, AnalyzeError> {
    parse_args(cmd, args).map_err(AnalyzeError)
}

fn parse_args(cmd: &str, args: &[&str]) -> Result<Request, String> {
    let format = if cmd.starts_with("kata-") { Format::Kata } else { Format::Lz };
    let mut req = Request {
        format,
        player: None,
        interval: Duration::from_millis(1000),
        min_moves: 0,
        max_moves: 0,
        ownership: false,
        ownership_stdev: false,
        root_info: false,
        genmove: cmd.ends_with("genmove_analyze"),
    };
    let mut rest = args;
    if let Some((first, tail)) = rest.split_first() {
        if let Ok(c) = color(first) {
            req.player = Some(c);
            rest = tail;
        }
    }
    let centis = |n: usize| Duration::from_millis(10 * n.min(1_000_000) as u64);
    if let Some((first, tail)) = rest.split_first() {
        if let Ok(n) = first.parse::<usize>() {
            req.interval = centis(n);
            rest = tail;
        }
    }
    for pair in rest.chunks(2) {
        let (key, value) = (pair[0], pair.get(1));
        match (key, format) {
            ("interval", _) => req.interval = centis(number(key, value)?),
            ("minmoves", _) => req.min_moves = number(key, value)?,
            ("maxmoves", _) => req.max_moves = number(key, value)?,
            ("ownership", Format::Kata) => req.ownership = flag(key, value)?,
            ("ownershipStdev", Format::Kata) => req.ownership_stdev = flag(key, value)?,
            ("rootInfo", Format::Kata) => req.root_info = flag(key, value)?,
            _ => {
                return Err(format!(
                    "syntax error: unknown or unsupported key \"{}\" for {cmd}",
                    key.escape_debug()
                ))
            }
        }
    }
    Ok(req)
}

/// How an analysis ended.
#[derive(Debug)]
pub enum Ended {
    /// A line arrived: the command that follows.
    Line(Line),
    /// The input ended.
    Eof,
    /// A genmove form finished; the move is the response's last line.
    Played,
}

/// At most six decimals, without trailing zeros.
fn float(x: f32) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// One report line: every listed move, then the requested ownership and root lines.
fn report(search: &Search<GameState>, req: &Request, own: Option<&Ownership>) -> String {
    let geo = search.root().geo();
    let mut line = String::new();
    for (order, c) in candidates(search, req.min_moves, req.max_moves).iter().enumerate() {
        let (w, low) = (c.winrate, c.lcb());
        let pv: Vec<String> = c.pv.iter().map(|a| a.name(geo)).collect();
        let name = c.action.name(geo);
        if !line.is_empty() {
            line.push(' ');
        }
        match req.format {
            Format::Lz => {
                let per10k = |x: f32| (x.clamp(0.0, 1.0) * 10000.0).round() as u32;
                let _ = write!(
                    line,
                    "info move {name} visits {} winrate {} prior {} lcb {} order {order} pv {}",
                    c.visits,
                    per10k(w),
                    per10k(c.prior),
                    per10k(low),
                    pv.join(" ")
                );
            }
            Format::Kata => {
                let score = float(c.score);
                let _ = write!(
                    line,
                    "info move {name} visits {} utility {} winrate {} scoreMean {score} scoreStdev {} \
                     scoreLead {score} scoreSelfplay {score} prior {} lcb {} utilityLcb {} order {order} pv {}",
                    c.visits,
                    float(c.utility),
                    float(w),
                    float(c.score_stdev),
                    float(c.prior),
                    float(low),
                    float(c.utility_lcb()),
                    pv.join(" ")
                );
            }
        }
    }
    if req.format == Format::Kata {
        let me = search.root().to_move();
        let sign = if me == Color::Black { 1.0 } else { -1.0 };
        if req.root_info {
            let r = summary(search);
            let score = float(r.score);
            let _ = write!(
                line,
                " rootInfo visits {} utility {} winrate {} scoreMean {score} scoreStdev {} scoreLead {score} \
                 scoreSelfplay {score}",
                r.visits,
                float(r.utility),
                float(r.winrate),
                float(r.score_stdev)
            );
        }
        if let Some(own) = own {
            if req.ownership {
                line.push_str(" ownership");
                for x in &own.mean {
                    let _ = write!(line, " {}", float(sign * x));
                }
            }
            if req.ownership_stdev {
                line.push_str(" ownershipStdev");
                for x in &own.stdev {
                    let _ = write!(line, " {}", float(*x));
                }
            }
        }
    }
    line
}

impl Engine {
    /// Checks `req` against the game and returns the position to analyse: the current one,
    /// after an implied pass when another colour is asked for.
    pub(super) fn analysis_root(&self, req: &Request) -> Result<GameState, String> {
        if self.rules.variant == Variant::Sligo {
            return Err("analysis of Sligo's two-decision turns is not supported".into());
        }
        let mut root = self.game.clone();
        if let Some(c) = req.player {
            if !root.is_over() {
                turn_to(&mut root, c)?;
            }
        }
        Ok(root)
    }

    /// Runs the analysis `req` of `root` (from [`Engine::analysis_root`]), writing its report
    /// lines to `out`, until a line arrives on `lines` (an analysis) or the search is done (a
    /// genmove form, which then plays its move on the engine's game and prints it).
    pub(super) fn analyze(
        &mut self,
        req: &Request,
        root: GameState,
        lines: &Receiver<io::Result<Line>>,
        out: &mut impl Write,
    ) -> io::Result<Ended> {
        let seed = self.brain.seed() ^ u64::from(root.turns());
        let want_own = req.format == Format::Kata && (req.ownership || req.ownership_stdev);
        let own = want_own.then(|| ownership(self.brain.evaluator(), &root, seed));
        let cap = if req.genmove { self.brain.visits() } else { MAX_ANALYSIS_VISITS };
        let mut search = Search::new(root.clone(), SearchConfig::for_board(root.geo().size()), seed);
        let mut last = Instant::now();
        loop {
            let searching = !root.is_over() && search.root_visits() < cap;
            if searching {
                let target = (search.root_visits() + CHUNK_VISITS).min(cap);
                search.run(self.brain.evaluator(), target, 8);
            }
            let due = !req.interval.is_zero() && last.elapsed() >= req.interval;
            if due || (req.genmove && !searching) {
                writeln!(out, "{}", report(&search, req, own.as_ref()))?;
                out.flush()?;
                last = Instant::now();
            }
            if req.genmove {
                if !searching {
                    break;
                }
                continue;
            }
            // Done searching: wait for the next command; else only look.
            let next = if searching {
                lines.try_recv()
            } else {
                lines.recv().map_err(|_| TryRecvError::Disconnected)
            };
            match next {
                Ok(line) => return Ok(Ended::Line(line?)),
                Err(TryRecvError::Empty) => {}
                Err(TryRecvError::Disconnected) => return Ok(Ended::Eof),
            }
        }
        let action = if root.is_over() { Action::Pass } else { search.select_action(0.0) };
        let mut next = root.clone();
        if !root.is_over() {
            next.play(action).map_err(io::Error::other)?;
            self.commit_move(next);
        }
        writeln!(out, "play {}", action.name(root.geo()))?;
        Ok(Ended::Played)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_follow_katagos_grammar() {
        let r = parse("kata-analyze", &["B", "10", "ownership", "true", "maxmoves", "5"]).unwrap();
        assert_eq!(r.format, Format::Kata);
        assert_eq!(r.player, Some(Color::Black));
        assert_eq!(r.interval, Duration::from_millis(100));
        assert!(r.ownership && !r.ownership_stdev && !r.genmove);
        assert_eq!(r.max_moves, 5);
        let r = parse("lz-genmove_analyze", &["w", "interval", "50"]).unwrap();
        assert_eq!(
            (r.format, r.player, r.interval, r.genmove),
            (Format::Lz, Some(Color::White), Duration::from_millis(500), true)
        );
        let r = parse("analyze", &["25"]).unwrap();
        assert_eq!((r.player, r.interval), (None, Duration::from_millis(250)));
        for bad in [&["B", "10", "ownership"][..], &["minmoves", "x"], &["bogus", "1"], &["B", "10", "20"]] {
            assert!(parse("kata-analyze", bad).is_err(), "{bad:?}");
        }
        assert!(parse("lz-analyze", &["ownership", "true"]).is_err(), "ownership is KataGo's");
    }

    #[test]
    fn floats_are_short() {
        assert_eq!(float(0.5), "0.5");
        assert_eq!(float(-0.0000001), "0");
        assert_eq!(float(2.0), "2");
    }
}
