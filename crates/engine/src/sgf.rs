//! SGF (FF\[4\]) reading and writing for hane games.
//!
//! A game is an [`SgfGame`]: rules, handicap stones and the list of [`Turn`]s. Colours are not
//! stored: Black moves first (White after a handicap) and the players alternate, as in the
//! engine.
//!
//! # Writing
//!
//! [`SgfGame::to_sgf`] replays the game (so only legal games are written) and produces one
//! main line:
//!
//! ```text
//! (;GM[1]FF[4]CA[UTF-8]AP[hane]SZ[9]KM[7]RU[ttakji]PB[..]PW[..]RE[B+2]
//! ;B[ee];W[cc];B[];W[])
//! ```
//!
//! * `RU` is the hane rules string ([`Rules`]'s `Display`, e.g. `ttakji`,
//!   `brainking,size=13`), which fixes every rule; `SZ` and `KM` repeat size and komi for other
//!   programs.
//! * `RE` is [`SgfGame::result`] when set (e.g. `B+R`), otherwise, for a finished game, the
//!   engine's score: `B+2`, `W+3.5`, or `0` for a draw.
//! * A handicap is `HA[n]` and `AB[..]` in the root node; White then moves first.
//! * Points are two lowercase letters, column then row from the top-left; a pass is `[]`.
//! * **Sligo**: a turn's placement is the ordinary move `B[xy]`/`W[xy]`, so Go tools still read
//!   the stones. A slide before it is the private property **`XS[from:to]`** (compose type,
//!   two points, e.g. `;B[ff]XS[dd:ee]` slides D..E one step and places at `ff`) on the same
//!   node. `XS` is not a standard SGF identifier.
//!
//! # Reading
//!
//! [`SgfGame::parse`] reads the first game tree of a collection and follows its main line
//! (the first variation at every branch; other variations are checked for syntax and then
//! ignored, as is anything after the first game tree). Property values may contain escaped
//! `\]` and `\\`, soft line breaks and surrounding whitespace. Lowercase letters in property
//! identifiers (old FF\[3\] style) are ignored. Unknown properties are ignored.
//!
//! * `GM` must be 1 if present. `SZ` is a single size up to 19 (`SZ[n:n]` is accepted).
//! * `RU` is first parsed as a hane rules string (preset names are case-insensitive, so
//!   `Chinese`, `Japanese` and `Tromp-Taylor` are the presets of those names); otherwise the
//!   standard names map to the nearest fields: `AGA` = `chinese,ko=positional`, `GOE`/`Ing` =
//!   `chinese,suicide=allow`, `NZ` = `chinese,ko=positional,suicide=allow,komi=7`, `Korean` =
//!   `japanese`, and KataGo's `ko…score…sui…` strings by their ko, scoring and suicide parts.
//!   Without `RU` the game is read as `japanese` (the most common default of Go servers).
//! * `SZ` overrides the size in `RU` (size-dependent defaults such as BrainKing's komi follow
//!   it); without `SZ` the size is the one `RU` gives if it is a hane rules string, else 19
//!   (the SGF default). `KM`, if present, overrides the komi.
//! * `AB` before the first move is a handicap (Go only, at least two stones; `HA` is
//!   ignored); point lists may use the compressed `aa:cc` rectangle form. `AW` and non-empty
//!   `AE` are not supported and are errors, as is `AB` after the first move.
//! * `B`/`W` are moves; a pass is `[]` or `[tt]`. A move's colour must be the side to move.
//! * Every move is replayed through the engine: an illegal move is an error.
//!
//! Every problem is an [`SgfError`] with a message and, when it comes from the text, the byte
//! offset, line and column. The reader never panics.

use crate::action::Action;
use crate::board::Color;
use crate::game::{Game, GameState, Phase, PlayError};
use crate::point::{Geometry, Point};
use crate::rules::{Komi, Rules, Variant};
use std::fmt;
use std::str::FromStr;

/// A place in the SGF text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SgfPos {
    /// Byte offset from the start of the text.
    pub offset: usize,
    /// Line, from 1.
    pub line: usize,
    /// Column in characters, from 1.
    pub column: usize,
}

/// Why an SGF text could not be read, or a game could not be replayed or written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfError {
    /// What is wrong.
    pub message: String,
    /// Where, when the error comes from a text.
    pub pos: Option<SgfPos>,
}

impl SgfError {
    fn new(message: impl Into<String>) -> SgfError {
        SgfError { message: message.into(), pos: None }
    }

    fn at(src: &str, offset: usize, message: impl Into<String>) -> SgfError {
        let offset = offset.min(src.len());
        let before = src.as_bytes()[..offset].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let line = 1 + src.as_bytes()[..offset].iter().filter(|&&b| b == b'\n').count();
        // Count characters (not bytes) on the line; `offset` may sit inside a character only
        // if a caller passed such an offset, so count lossily.
        let column = 1 + String::from_utf8_lossy(&src.as_bytes()[before..offset]).chars().count();
        SgfError { message: message.into(), pos: Some(SgfPos { offset, line, column }) }
    }
}

impl fmt::Display for SgfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pos {
            Some(p) => write!(f, "SGF line {}, column {}: {}", p.line, p.column, self.message),
            None => write!(f, "SGF: {}", self.message),
        }
    }
}

impl std::error::Error for SgfError {}

/// One turn of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Turn {
    /// The player passes.
    Pass,
    /// A placement without a slide (every Go and Loose move; a Sligo turn without a slide).
    Place(Point),
    /// Sligo: slide the own stone at `from` one step to `to`, then place at `place`.
    Slide {
        /// The stone that slides.
        from: Point,
        /// Where it slides to (a king step away).
        to: Point,
        /// The placement that completes the turn.
        place: Point,
    },
}

impl Turn {
    /// The turn that action `a` completes when played in state `g` (before playing it), or
    /// `None` if `a` only starts a Sligo turn (`NoSlide`, `Slide`). Use it to record a game
    /// action by action.
    pub fn from_action(g: &GameState, a: Action) -> Option<Turn> {
        match (g.phase(), a) {
            (_, Action::Pass) => Some(Turn::Pass),
            (Phase::Start | Phase::Place(None), Action::Place(p)) => Some(Turn::Place(p)),
            (Phase::Place(Some((from, to))), Action::Place(place)) => Some(Turn::Slide { from, to, place }),
            _ => None,
        }
    }

    /// The engine actions that play this turn in state `g` (Sligo turns are canonicalised with
    /// [`GameState::sligo_turn`]).
    pub fn actions(self, g: &GameState) -> Result<Vec<Action>, PlayError> {
        let sligo = g.rules().variant == Variant::Sligo;
        match self {
            Turn::Pass => Ok(vec![Action::Pass]),
            Turn::Place(p) if sligo => Ok(g.sligo_turn(None, p)?.to_vec()),
            Turn::Place(p) => Ok(vec![Action::Place(p)]),
            Turn::Slide { from, to, place } if sligo => Ok(g.sligo_turn(Some((from, to)), place)?.to_vec()),
            Turn::Slide { .. } => Err(PlayError::WrongPhase("slides exist only in Sligo".to_string())),
        }
    }

    /// Plays the turn on `g`; on error `g` is unchanged.
    pub fn play(self, g: &mut GameState) -> Result<(), PlayError> {
        let actions = self.actions(g)?;
        let mut next = g.clone();
        for a in actions {
            next.play(a)?;
        }
        *g = next;
        Ok(())
    }

    /// GTP-style notation: `D4`, `pass`, `E5>F6+D4`.
    pub fn name(self, geo: Geometry) -> String {
        let name = |p: Point| {
            if geo.on_board(p) {
                geo.name(p)
            } else {
                format!("<off-board point {}>", p.0)
            }
        };
        match self {
            Turn::Pass => "pass".to_string(),
            Turn::Place(p) => name(p),
            Turn::Slide { from, to, place } => {
                format!("{}>{}+{}", name(from), name(to), name(place))
            }
        }
    }
}

/// A recorded game: what an SGF file holds for hane (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgfGame {
    /// The rules, size and komi included.
    pub rules: Rules,
    /// Handicap stones (Go only), placed as Black's first move; empty for none.
    pub handicap: Vec<Point>,
    /// The turns in order.
    pub turns: Vec<Turn>,
    /// Black player's name (`PB`).
    pub black: Option<String>,
    /// White player's name (`PW`).
    pub white: Option<String>,
    /// A result to write verbatim as `RE` (e.g. `B+R`); when `None` the writer scores the
    /// game. The reader fills it from `RE`.
    pub result: Option<String>,
}

impl SgfGame {
    /// An empty game record under `rules`.
    pub fn new(rules: Rules) -> SgfGame {
        SgfGame { rules, handicap: Vec::new(), turns: Vec::new(), black: None, white: None, result: None }
    }

    /// A record of the game that plays `actions` (engine actions, as a search emits them)
    /// from the start, after the handicap stones if any. The actions are replayed and checked.
    pub fn from_actions(rules: Rules, handicap: &[Point], actions: &[Action]) -> Result<SgfGame, SgfError> {
        let mut rec = SgfGame::new(rules);
        rec.handicap = handicap.to_vec();
        let mut g = rec.start()?;
        for (i, &a) in actions.iter().enumerate() {
            let turn = Turn::from_action(&g, a);
            g.play(a).map_err(|e| SgfError::new(format!("action {} ({}): {e}", i + 1, describe(&g, a))))?;
            rec.turns.extend(turn);
        }
        if g.phase() != Phase::Start {
            return Err(SgfError::new("the actions end in the middle of a Sligo turn".to_string()));
        }
        Ok(rec)
    }

    /// The initial state: validated rules and the handicap placed.
    fn start(&self) -> Result<GameState, SgfError> {
        self.rules.validate().map_err(|e| SgfError::new(format!("invalid rules: {e}")))?;
        let mut g = GameState::new(self.rules);
        if !self.handicap.is_empty() {
            g.set_handicap(&self.handicap).map_err(|e| SgfError::new(format!("handicap: {e}")))?;
        }
        Ok(g)
    }

    /// Plays the whole game through the engine and returns the final state.
    pub fn replay(&self) -> Result<GameState, SgfError> {
        let mut g = self.start()?;
        for (i, &t) in self.turns.iter().enumerate() {
            t.play(&mut g).map_err(|e| {
                SgfError::new(format!(
                    "turn {} ({} {}): {e}",
                    i + 1,
                    color_letter(g.to_move()),
                    t.name(g.geo())
                ))
            })?;
        }
        Ok(g)
    }

    /// The game as SGF text (see the module docs). Fails if the game does not replay.
    pub fn to_sgf(&self) -> Result<String, SgfError> {
        let end = self.replay()?;
        let geo = end.geo();
        let mut s = String::with_capacity(64 + 8 * self.turns.len());
        s.push_str("(;GM[1]FF[4]CA[UTF-8]AP[hane]");
        s.push_str(&format!(
            "SZ[{}]KM[{}]RU[{}]",
            self.rules.size,
            self.rules.komi,
            escape(&self.rules.to_string())
        ));
        if let Some(b) = &self.black {
            s.push_str(&format!("PB[{}]", escape(b)));
        }
        if let Some(w) = &self.white {
            s.push_str(&format!("PW[{}]", escape(w)));
        }
        let result = match &self.result {
            Some(r) => Some(r.clone()),
            None if end.is_over() => Some(result_string(&end)),
            None => None,
        };
        if let Some(r) = result {
            s.push_str(&format!("RE[{}]", escape(&r)));
        }
        if !self.handicap.is_empty() {
            s.push_str(&format!("HA[{}]AB", self.handicap.len()));
            for &p in &self.handicap {
                s.push_str(&format!("[{}]", sgf_point(geo, p)));
            }
        }
        let mut color = if self.handicap.is_empty() { Color::Black } else { Color::White };
        for (i, t) in self.turns.iter().enumerate() {
            if i % 16 == 0 {
                s.push('\n');
            }
            let c = match color {
                Color::Black => 'B',
                Color::White => 'W',
            };
            match *t {
                Turn::Pass => s.push_str(&format!(";{c}[]")),
                Turn::Place(p) => s.push_str(&format!(";{c}[{}]", sgf_point(geo, p))),
                Turn::Slide { from, to, place } => s.push_str(&format!(
                    ";{c}[{}]XS[{}:{}]",
                    sgf_point(geo, place),
                    sgf_point(geo, from),
                    sgf_point(geo, to)
                )),
            }
            color = color.opp();
        }
        s.push_str(")\n");
        Ok(s)
    }

    /// Reads the main line of the first game in an SGF text (see the module docs).
    pub fn parse(text: &str) -> Result<SgfGame, SgfError> {
        let nodes = parse_main_line(text)?;
        interpret(text, &nodes)
    }
}

impl FromStr for SgfGame {
    type Err = SgfError;

    fn from_str(s: &str) -> Result<SgfGame, SgfError> {
        SgfGame::parse(s)
    }
}

fn color_letter(c: Color) -> char {
    match c {
        Color::Black => 'B',
        Color::White => 'W',
    }
}

fn describe(g: &GameState, a: Action) -> String {
    let geo = g.geo();
    match a {
        Action::Place(p) | Action::Slide(p, _) if !geo.on_board(p) => format!("{a:?}"),
        _ => a.name(geo),
    }
}

/// `B+2`, `W+3.5` or `0` from the engine's score of a state.
fn result_string(g: &GameState) -> String {
    let sc = g.score();
    let margin = sc.margin_black().abs();
    match sc.winner {
        crate::game::Outcome::Draw => "0".to_string(),
        crate::game::Outcome::Black => format!("B+{margin}"),
        crate::game::Outcome::White => format!("W+{margin}"),
    }
}

/// Escapes a text value: `\` and `]` get a backslash.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch == '\\' || ch == ']' {
            out.push('\\');
        }
        out.push(ch);
    }
    out
}

/// The two-letter SGF name of an on-board point.
fn sgf_point(geo: Geometry, p: Point) -> String {
    let (x, y) = geo.xy(p);
    let letter = |i: usize| (b'a' + i as u8) as char;
    format!("{}{}", letter(x), letter(y))
}

// ----------------------------------------------------------------------------------------
// Syntax: the main line as a list of nodes.

/// One property value with the offset of its `[`.
struct Value {
    text: String,
    pos: usize,
}

struct Prop {
    ident: String,
    values: Vec<Value>,
    pos: usize,
}

struct Node {
    props: Vec<Prop>,
    pos: usize,
}

/// An open game tree while parsing.
struct Frame {
    main: bool,
    has_node: bool,
    has_child: bool,
    pos: usize,
}

fn skip_ws(b: &[u8], i: &mut usize) {
    while *i < b.len() && b[*i].is_ascii_whitespace() {
        *i += 1;
    }
}

fn char_at(src: &str, i: usize) -> String {
    match src.get(i..).and_then(|s| s.chars().next()) {
        Some(c) => format!("{c:?}"),
        None => "end of text".to_string(),
    }
}

/// Parses the first game tree of `src` without recursion and returns its main-line nodes.
fn parse_main_line(src: &str) -> Result<Vec<Node>, SgfError> {
    let b = src.as_bytes();
    let mut i = 0;
    if b.starts_with(&[0xEF, 0xBB, 0xBF]) {
        i = 3;
    }
    skip_ws(b, &mut i);
    if i >= b.len() {
        return Err(SgfError::at(src, i, "empty input: expected '(;'"));
    }
    if b[i] != b'(' {
        return Err(SgfError::at(
            src,
            i,
            format!("expected '(' to start a game tree, found {}", char_at(src, i)),
        ));
    }
    let mut stack: Vec<Frame> = Vec::new();
    let mut nodes = Vec::new();
    loop {
        skip_ws(b, &mut i);
        if i >= b.len() {
            let open = stack.last().map_or(0, |f| f.pos);
            return Err(SgfError::at(src, open, "unexpected end of text: this '(' is never closed"));
        }
        match b[i] {
            b'(' => {
                let main = match stack.last_mut() {
                    None => true,
                    Some(top) => {
                        if !top.has_node {
                            return Err(SgfError::at(
                                src,
                                i,
                                "a game tree must start with a node (';') before variations",
                            ));
                        }
                        let main = top.main && !top.has_child;
                        top.has_child = true;
                        main
                    }
                };
                stack.push(Frame { main, has_node: false, has_child: false, pos: i });
                i += 1;
            }
            b')' => {
                let Some(top) = stack.pop() else {
                    return Err(SgfError::at(src, i, "unmatched ')'"));
                };
                if !top.has_node {
                    return Err(SgfError::at(src, top.pos, "empty game tree '()'"));
                }
                i += 1;
                if stack.is_empty() {
                    // Only the first game of a collection is read.
                    return Ok(nodes);
                }
            }
            b';' => {
                let Some(top) = stack.last_mut() else {
                    return Err(SgfError::at(src, i, "node outside a game tree"));
                };
                if top.has_child {
                    return Err(SgfError::at(
                        src,
                        i,
                        "a node after a variation: nodes must come before the variations",
                    ));
                }
                top.has_node = true;
                let main = top.main;
                let node_pos = i;
                i += 1;
                let props = parse_props(src, &mut i)?;
                if main {
                    nodes.push(Node { props, pos: node_pos });
                }
            }
            _ => {
                return Err(SgfError::at(
                    src,
                    i,
                    format!("expected '(', ';' or ')', found {}", char_at(src, i)),
                ))
            }
        }
    }
}

/// Parses the properties of one node, starting after its `;`.
fn parse_props(src: &str, i: &mut usize) -> Result<Vec<Prop>, SgfError> {
    let b = src.as_bytes();
    let mut props = Vec::new();
    loop {
        skip_ws(b, i);
        if *i >= b.len() || !b[*i].is_ascii_alphabetic() {
            return Ok(props);
        }
        let pos = *i;
        let mut ident = String::new();
        while *i < b.len() && b[*i].is_ascii_alphabetic() {
            if b[*i].is_ascii_uppercase() {
                ident.push(b[*i] as char);
            }
            *i += 1;
        }
        if ident.is_empty() {
            return Err(SgfError::at(src, pos, "property identifier without an uppercase letter"));
        }
        let mut values = Vec::new();
        loop {
            skip_ws(b, i);
            if *i >= b.len() || b[*i] != b'[' {
                break;
            }
            values.push(parse_value(src, i)?);
        }
        if values.is_empty() {
            return Err(SgfError::at(
                src,
                *i,
                format!("property {ident} needs a value '[...]', found {}", char_at(src, *i)),
            ));
        }
        props.push(Prop { ident, values, pos });
    }
}

/// Parses one `[...]` value starting at its `[`, handling escapes and soft line breaks.
fn parse_value(src: &str, i: &mut usize) -> Result<Value, SgfError> {
    let pos = *i;
    let mut text = String::new();
    let mut chars = src[pos + 1..].char_indices().peekable();
    while let Some((k, c)) = chars.next() {
        match c {
            ']' => {
                *i = pos + 1 + k + 1;
                return Ok(Value { text, pos });
            }
            '\\' => match chars.next() {
                // A soft line break: backslash before a newline (any of \n, \r, \r\n, \n\r).
                Some((_, nl @ ('\n' | '\r'))) => {
                    let other = if nl == '\n' { '\r' } else { '\n' };
                    if chars.peek().is_some_and(|&(_, c2)| c2 == other) {
                        chars.next();
                    }
                }
                Some((_, c2)) => text.push(c2),
                None => break,
            },
            _ => text.push(c),
        }
    }
    Err(SgfError::at(src, pos, "unterminated property value: missing ']'"))
}

// ----------------------------------------------------------------------------------------
// Meaning: rules, handicap and turns from the main-line nodes.

/// The single value of a property, or an error if it has several.
fn single<'a>(src: &str, p: &'a Prop) -> Result<&'a Value, SgfError> {
    match p.values.as_slice() {
        [v] => Ok(v),
        _ => Err(SgfError::at(src, p.pos, format!("{} takes one value, found {}", p.ident, p.values.len()))),
    }
}

/// The first property `ident` on the main line.
fn first<'a>(nodes: &'a [Node], ident: &str) -> Option<&'a Prop> {
    nodes.iter().flat_map(|n| n.props.iter()).find(|p| p.ident == ident)
}

/// Properties whose repetition within one node is an error (the others are ignored anyway).
const KNOWN: [&str; 10] = ["B", "W", "XS", "AB", "AW", "AE", "SZ", "KM", "RU", "GM"];

/// A simple-text value: trimmed, line breaks as spaces.
fn simple_text(v: &Value) -> String {
    v.text.split(['\n', '\r']).filter(|l| !l.trim().is_empty()).map(str::trim).collect::<Vec<_>>().join(" ")
}

/// Parses a point value; `Ok(None)` for a pass (`[]` or `[tt]`).
fn parse_point(src: &str, geo: Geometry, v: &Value) -> Result<Option<Point>, SgfError> {
    let t = v.text.trim();
    if t.is_empty() || t == "tt" {
        return Ok(None);
    }
    let n = geo.size();
    let bytes = t.as_bytes();
    let coord = |c: u8| c.is_ascii_lowercase().then(|| (c - b'a') as usize);
    match (bytes.len(), bytes.first().and_then(|&c| coord(c)), bytes.get(1).and_then(|&c| coord(c))) {
        (2, Some(x), Some(y)) if x < n && y < n => Ok(Some(geo.point(x, y))),
        (2, Some(_), Some(_)) => {
            Err(SgfError::at(src, v.pos, format!("point [{t}] is off the {n}x{n} board")))
        }
        _ => Err(SgfError::at(
            src,
            v.pos,
            format!("bad point [{t}]: expected two lowercase letters (column, row)"),
        )),
    }
}

/// Parses a point that must be on the board (not a pass).
fn parse_stone(src: &str, geo: Geometry, v: &Value, what: &str) -> Result<Point, SgfError> {
    parse_point(src, geo, v)?
        .ok_or_else(|| SgfError::at(src, v.pos, format!("{what} needs a point, not a pass")))
}

/// Expands a list-of-point value (a point or an `aa:cc` rectangle).
fn parse_point_list(src: &str, geo: Geometry, v: &Value) -> Result<Vec<Point>, SgfError> {
    let Some((a, b)) = v.text.split_once(':') else {
        return Ok(vec![parse_stone(src, geo, v, "a setup stone")?]);
    };
    let corner =
        |t: &str| parse_stone(src, geo, &Value { text: t.to_string(), pos: v.pos }, "a setup rectangle");
    let (pa, pb) = (geo.xy(corner(a)?), geo.xy(corner(b)?));
    let (x0, x1) = (pa.0.min(pb.0), pa.0.max(pb.0));
    let (y0, y1) = (pa.1.min(pb.1), pa.1.max(pb.1));
    let mut out = Vec::new();
    for y in y0..=y1 {
        for x in x0..=x1 {
            out.push(geo.point(x, y));
        }
    }
    Ok(out)
}

/// Maps a standard or common `RU` text that is not a hane rules string to one.
fn rules_alias(ru: &str) -> Option<String> {
    let key: String =
        ru.chars().filter(|c| c.is_ascii_alphanumeric()).collect::<String>().to_ascii_lowercase();
    let s = match key.as_str() {
        "chinese" | "cn" | "china" => "chinese",
        "japanese" | "jp" | "japan" | "korean" | "kr" | "korea" => "japanese",
        "aga" => "chinese,ko=positional",
        "goe" | "ing" => "chinese,suicide=allow",
        "nz" | "newzealand" => "chinese,ko=positional,suicide=allow,komi=7",
        "tt" | "tromptaylor" => "tromp-taylor",
        _ => return katago_rules(ru),
    };
    Some(s.to_string())
}

/// KataGo's compact rules text, e.g. `koPOSITIONALscoreAREAtaxNONEsui1…`.
fn katago_rules(ru: &str) -> Option<String> {
    let after = |key: &str| ru.find(key).map(|i| &ru[i + key.len()..]);
    let score = after("score")?;
    let mut r = if score.starts_with("AREA") {
        "chinese".to_string()
    } else if score.starts_with("TERRITORY") {
        "japanese".to_string()
    } else {
        return None;
    };
    let ko = after("ko")?;
    if ko.starts_with("POSITIONAL") || ko.starts_with("SITUATIONAL") {
        r.push_str(",ko=positional");
    } else if !ko.starts_with("SIMPLE") {
        return None;
    }
    if after("sui").is_some_and(|s| s.starts_with('1')) {
        r.push_str(",suicide=allow");
    }
    Some(r)
}

/// Rules from `RU`, `SZ` and `KM`.
fn read_rules(src: &str, nodes: &[Node]) -> Result<Rules, SgfError> {
    let root_pos = nodes.first().map_or(0, |n| n.pos);
    if let Some(p) = first(nodes, "GM") {
        let v = single(src, p)?;
        if v.text.trim() != "1" {
            return Err(SgfError::at(
                src,
                v.pos,
                format!("GM[{}] is not Go (GM[1]); hane reads Go-family games only", v.text.trim()),
            ));
        }
    }
    let size = match first(nodes, "SZ") {
        None => None,
        Some(p) => {
            let v = single(src, p)?;
            let t = v.text.trim();
            let (a, b) = t.split_once(':').unwrap_or((t, t));
            let n = |s: &str| s.trim().parse::<u32>().ok();
            match (n(a), n(b)) {
                (Some(a), Some(b)) if a != b => {
                    return Err(SgfError::at(
                        src,
                        v.pos,
                        format!("SZ[{t}]: rectangular boards are not supported"),
                    ))
                }
                (Some(a), Some(_)) if (2..=19).contains(&a) => Some((a as u8, v.pos)),
                (Some(_), Some(_)) => {
                    return Err(SgfError::at(
                        src,
                        v.pos,
                        format!("SZ[{t}]: board sizes 2..=19 are supported"),
                    ))
                }
                _ => return Err(SgfError::at(src, v.pos, format!("SZ[{t}]: expected a board size"))),
            }
        }
    };
    // The rules text without any size, and the size it implies when it is a hane string.
    let (base, ru_size, ru_pos) = match first(nodes, "RU") {
        None => ("japanese".to_string(), None, root_pos),
        Some(p) => {
            let v = single(src, p)?;
            let t = simple_text(v);
            match t.parse::<Rules>() {
                Ok(r) => (t.clone(), Some(r.size), v.pos),
                Err(e) => match rules_alias(&t) {
                    Some(a) => (a, None, v.pos),
                    None => {
                        return Err(SgfError::at(
                            src,
                            v.pos,
                            format!(
                                "RU[{t}]: not a hane rules string ({e}) nor a known rule set \
                                 (Chinese, Japanese, Korean, AGA, GOE, NZ, Tromp-Taylor)"
                            ),
                        ))
                    }
                },
            }
        }
    };
    let n = size.map_or(ru_size.unwrap_or(19), |(n, _)| n);
    let mut text: Vec<&str> = base
        .split(',')
        .enumerate()
        .filter(|(k, part)| *k == 0 || part.split_once('=').is_none_or(|(key, _)| key.trim() != "size"))
        .map(|(_, part)| part)
        .collect();
    let size_part = format!("size={n}");
    text.insert(1.min(text.len()), &size_part);
    let mut rules: Rules = text.join(",").parse().map_err(|e: crate::RulesError| {
        let pos = size.map_or(ru_pos, |(_, p)| p);
        SgfError::at(src, pos, format!("rules {base:?} on {n}x{n}: {e}"))
    })?;
    if let Some(p) = first(nodes, "KM") {
        let v = single(src, p)?;
        let t = v.text.trim();
        if !t.is_empty() {
            let komi = t.parse::<f64>().ok().and_then(Komi::from_f64).ok_or_else(|| {
                SgfError::at(src, v.pos, format!("KM[{t}]: komi must be a number that is a multiple of 0.5"))
            })?;
            rules.komi = komi;
            rules.validate().map_err(|e| SgfError::at(src, v.pos, format!("KM[{t}]: {e}")))?;
        }
    }
    Ok(rules)
}

/// Builds and replays the game from the main-line nodes.
fn interpret(src: &str, nodes: &[Node]) -> Result<SgfGame, SgfError> {
    let rules = read_rules(src, nodes)?;
    let geo = Geometry::new(rules.size);
    let mut rec = SgfGame::new(rules);
    let text_of = |ident: &str| -> Result<Option<String>, SgfError> {
        match first(nodes, ident) {
            None => Ok(None),
            Some(p) => {
                let t = simple_text(single(src, p)?);
                Ok((!t.is_empty()).then_some(t))
            }
        }
    };
    rec.black = text_of("PB")?;
    rec.white = text_of("PW")?;
    rec.result = text_of("RE")?;
    let mut g = GameState::new(rules);
    let mut handicap_pos = None;
    let mut moved = false;
    for node in nodes {
        for (k, p) in node.props.iter().enumerate() {
            if KNOWN.contains(&p.ident.as_str()) && node.props[..k].iter().any(|q| q.ident == p.ident) {
                return Err(SgfError::at(
                    src,
                    p.pos,
                    format!("property {} appears twice in one node", p.ident),
                ));
            }
        }
        let get = |ident: &str| node.props.iter().find(|p| p.ident == ident);
        if let Some(p) = get("AW") {
            return Err(SgfError::at(
                src,
                p.pos,
                "AW (white setup stones) is not supported: hane replays games from the empty \
                 board, with only Black handicap stones (AB)",
            ));
        }
        if let Some(p) = get("AE") {
            if p.values.iter().any(|v| !v.text.trim().is_empty()) {
                return Err(SgfError::at(src, p.pos, "AE (removing stones by setup) is not supported"));
            }
        }
        let (b, w) = (get("B"), get("W"));
        if let Some(p) = get("AB") {
            if moved || b.is_some() || w.is_some() {
                return Err(SgfError::at(
                    src,
                    p.pos,
                    "AB after or with a move: setup stones are only supported as a handicap \
                     before the first move",
                ));
            }
            for v in &p.values {
                rec.handicap.extend(parse_point_list(src, geo, v)?);
            }
            handicap_pos = Some(p.pos);
        }
        let mv = match (b, w) {
            (Some(p), Some(_)) => {
                return Err(SgfError::at(src, p.pos, "B and W in the same node"));
            }
            (Some(p), None) => Some((Color::Black, p)),
            (None, Some(p)) => Some((Color::White, p)),
            (None, None) => None,
        };
        let xs = get("XS");
        let Some((color, mp)) = mv else {
            if let Some(x) = xs {
                return Err(SgfError::at(src, x.pos, "XS (Sligo slide) without a move in the same node"));
            }
            continue;
        };
        if !moved {
            moved = true;
            if !rec.handicap.is_empty() {
                g.set_handicap(&rec.handicap)
                    .map_err(|e| SgfError::at(src, handicap_pos.unwrap_or(node.pos), format!("AB: {e}")))?;
            }
        }
        let v = single(src, mp)?;
        let place = parse_point(src, geo, v)?;
        let turn = match (place, xs) {
            (None, None) => Turn::Pass,
            (Some(p), None) => Turn::Place(p),
            (None, Some(x)) => {
                return Err(SgfError::at(
                    src,
                    x.pos,
                    "XS with a pass: sliding and then passing is not a turn",
                ))
            }
            (Some(place), Some(x)) => {
                if rules.variant != Variant::Sligo {
                    return Err(SgfError::at(
                        src,
                        x.pos,
                        "XS (a Sligo slide) in a game whose rules are not Sligo",
                    ));
                }
                let xv = single(src, x)?;
                let Some((f, t)) = xv.text.split_once(':') else {
                    return Err(SgfError::at(
                        src,
                        xv.pos,
                        format!("XS[{}]: expected from:to, e.g. XS[dd:ee]", xv.text),
                    ));
                };
                let pt = |s: &str| parse_stone(src, geo, &Value { text: s.to_string(), pos: xv.pos }, "XS");
                Turn::Slide { from: pt(f)?, to: pt(t)?, place }
            }
        };
        if color != g.to_move() {
            let side = |c: Color| match c {
                Color::Black => "Black",
                Color::White => "White",
            };
            return Err(SgfError::at(
                src,
                mp.pos,
                format!(
                    "{} moves but {} is to move (players must alternate)",
                    side(color),
                    side(g.to_move())
                ),
            ));
        }
        turn.play(&mut g).map_err(|e| {
            SgfError::at(
                src,
                mp.pos,
                format!("move {} ({} {}): {e}", rec.turns.len() + 1, color_letter(color), turn.name(geo)),
            )
        })?;
        rec.turns.push(turn);
    }
    if !moved && !rec.handicap.is_empty() {
        g.set_handicap(&rec.handicap)
            .map_err(|e| SgfError::at(src, handicap_pos.unwrap_or(0), format!("AB: {e}")))?;
    }
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::playout::random_light_action;
    use crate::rng::Rng;
    use crate::rules::{KoRule, Scoring, PRESETS};

    /// A random game record under `rules` (light playout actions), at most `max` turns.
    fn random_record(rules: Rules, seed: u64, max: usize) -> SgfGame {
        let mut g = GameState::new(rules);
        let mut rng = Rng::new(seed);
        let mut actions = Vec::new();
        let mut turns = 0;
        while !g.is_over() && turns < max {
            let a = random_light_action(&g, &mut rng);
            if Turn::from_action(&g, a).is_some() {
                turns += 1;
            }
            g.play(a).unwrap();
            actions.push(a);
        }
        SgfGame::from_actions(rules, &[], &actions).unwrap()
    }

    #[test]
    fn every_preset_round_trips() {
        for name in PRESETS {
            for size in [5u8, 9] {
                let rules = Rules::preset_sized(name, size).unwrap();
                for seed in 0..4 {
                    let mut rec = random_record(rules, seed, 400);
                    if seed == 1 {
                        rec.black = Some("hane ] \\ test".into());
                        rec.white = Some("other".into());
                    }
                    let text = rec.to_sgf().unwrap();
                    let back = SgfGame::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
                    let end = rec.replay().unwrap();
                    let mut want = rec.clone();
                    if end.is_over() {
                        want.result = Some(result_string(&end));
                    }
                    assert_eq!(back, want, "{text}");
                    assert_eq!(back.replay().unwrap().board().rows(), end.board().rows());
                    // Writing again gives the same text.
                    assert_eq!(back.to_sgf().unwrap(), text);
                }
            }
        }
    }

    #[test]
    fn sligo_slides_are_written_as_xs() {
        let rules = Rules::preset_sized("sligo", 5).unwrap();
        let rec = (0..40)
            .map(|seed| random_record(rules, seed, 60))
            .find(|r| r.turns.iter().any(|t| matches!(t, Turn::Slide { .. })))
            .expect("some random Sligo game slides");
        let text = rec.to_sgf().unwrap();
        assert!(text.contains("XS["), "{text}");
        assert_eq!(SgfGame::parse(&text).unwrap().turns, rec.turns);
        // A handwritten Sligo record: Black's stone at bb slides west to ab, then Black places
        // at cc; the placement and the slide read back exactly.
        let text = "(;GM[1]FF[4]SZ[5]RU[sligo,size=5];B[bb];W[dd];B[cc]XS[bb:ab])";
        let rec = SgfGame::parse(text).unwrap();
        let geo = Geometry::new(5);
        assert_eq!(
            rec.turns[2],
            Turn::Slide { from: geo.point(1, 1), to: geo.point(0, 1), place: geo.point(2, 2) }
        );
        assert_eq!(rec.rules, rules);
    }

    #[test]
    fn handicap_round_trips() {
        let rules = Rules::preset_sized("brainking", 9).unwrap();
        let geo = Geometry::new(9);
        let hcp = vec![geo.point(2, 2), geo.point(6, 6)];
        let first = geo.point(4, 4);
        let rec = SgfGame::from_actions(rules, &hcp, &[Action::Place(first), Action::Pass]).unwrap();
        let text = rec.to_sgf().unwrap();
        assert!(text.contains("HA[2]AB[cc][gg]"), "{text}");
        assert!(text.contains(";W[ee];B[]"), "{text}");
        let back = SgfGame::parse(&text).unwrap();
        assert_eq!(back.handicap, hcp);
        assert_eq!(back.turns, vec![Turn::Place(first), Turn::Pass]);
        // Compressed rectangle lists work too.
        let back = SgfGame::parse("(;SZ[9]RU[japanese]AB[aa:ab];W[ee])").unwrap();
        assert_eq!(back.handicap, vec![geo.point(0, 0), geo.point(0, 1)]);
    }

    #[test]
    fn handwritten_go_game() {
        let text = "\u{feff}(;GM[1]FF[4]CA[UTF-8]\n  SZ[ 9 ] KM[6.5]RU[Japanese]\
                    PB[Alice \\] in brackets]PW[Bob]RE[W+R]\r\n\
                    C[a comment with \\\\ and \\]] ;B[ee]C[multi\nline] ;W[cc]\n\
                    (;B[gc];W[tt];B[])\n(;B[aa]XX[unknown]))\n(;B[aa])";
        let rec = SgfGame::parse(text).unwrap();
        assert_eq!(rec.rules.komi, Komi(13));
        assert_eq!(rec.rules.scoring, Scoring::Territory);
        assert_eq!(rec.rules.size, 9);
        assert_eq!(rec.black.as_deref(), Some("Alice ] in brackets"));
        assert_eq!(rec.white.as_deref(), Some("Bob"));
        assert_eq!(rec.result.as_deref(), Some("W+R"));
        let geo = Geometry::new(9);
        assert_eq!(
            rec.turns,
            vec![
                Turn::Place(geo.point(4, 4)),
                Turn::Place(geo.point(2, 2)),
                Turn::Place(geo.point(6, 2)),
                Turn::Pass,
                Turn::Pass,
            ]
        );
        assert!(rec.replay().unwrap().is_over());
        // The explicit result is written verbatim.
        assert!(rec.to_sgf().unwrap().contains("RE[W+R]"));
    }

    #[test]
    fn rules_mapping() {
        let read = |t: &str| SgfGame::parse(t).map(|r| r.rules);
        // Missing RU: Japanese rules at the SGF default size 19.
        let r = read("(;KM[6.5])").unwrap();
        assert_eq!((r.size, r.scoring), (19, Scoring::Territory));
        assert_eq!(read("(;SZ[13]RU[Chinese])").unwrap().komi, Komi(15));
        assert_eq!(read("(;SZ[9]RU[AGA])").unwrap().ko, KoRule::Positional);
        assert!(read("(;SZ[9]RU[NZ])").unwrap().suicide);
        let kg = read("(;SZ[9]RU[koSITUATIONALscoreAREAtaxNONEsui1button1])").unwrap();
        assert_eq!((kg.ko, kg.scoring, kg.suicide), (KoRule::Positional, Scoring::Area, true));
        // hane strings: SZ overrides the size and size-dependent komi follows it.
        assert_eq!(read("(;SZ[13]RU[brainking])").unwrap().komi, Komi(9));
        let r = read("(;SZ[7]RU[ttakji,size=13,komi=6])").unwrap();
        assert_eq!((r.size, r.komi), (7, Komi(12)));
        // Without SZ a hane string keeps its own size.
        assert_eq!(read("(;RU[loose])").unwrap().size, 9);
        assert_eq!(read("(;RU[tromp-taylor,size=5])").unwrap().size, 5);
        assert_eq!(read("(;RU[ttakji]KM[0.5])").unwrap().komi, Komi(1));
    }

    #[test]
    fn malformed_inputs_are_clear_errors() {
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("   ", "empty"),
            ("hello", "expected '('"),
            ("(", "never closed"),
            ("(;B[aa]", "never closed"),
            ("()", "empty game tree"),
            (")", "expected '('"),
            ("(;SZ[9]", "never closed"),
            ("(;SZ[9)", "missing ']'"),
            ("(;SZ[9]B)", "needs a value"),
            ("(;SZ[9]!)", "expected '(', ';' or ')'"),
            ("(;SZ[9](;B[aa]);W[bb])", "after a variation"),
            ("((;B[aa]))", "must start with a node"),
            ("(;GM[2])", "not Go"),
            ("(;SZ[25])", "2..=19"),
            ("(;SZ[1])", "2..=19"),
            ("(;SZ[9:13])", "rectangular"),
            ("(;SZ[big])", "expected a board size"),
            ("(;SZ[9][9])", "one value"),
            ("(;SZ[9]RU[go])", "not a hane rules string"),
            ("(;SZ[8]RU[loose])", "odd"),
            ("(;SZ[9]RU[loose]KM[7])", "even"),
            ("(;SZ[9]KM[6.3])", "multiple of 0.5"),
            ("(;SZ[9]KM[abc])", "multiple of 0.5"),
            ("(;SZ[9];B[zz])", "off the 9x9"),
            ("(;SZ[9];B[a])", "bad point"),
            ("(;SZ[9];B[AA])", "bad point"),
            ("(;SZ[9];W[aa])", "White moves but Black"),
            ("(;SZ[9];B[aa];B[bb])", "Black moves but White"),
            ("(;SZ[9];B[aa];W[aa])", "occupied"),
            ("(;SZ[9];B[aa]W[bb])", "same node"),
            ("(;SZ[9];B[aa]B[bb])", "twice"),
            ("(;SZ[9]AW[aa])", "AW"),
            ("(;SZ[9]AE[aa])", "AE"),
            ("(;SZ[9]AB[aa])", "at least 2"),
            ("(;SZ[9]AB[aa][aa];W[bb])", "occupied"),
            ("(;SZ[9];B[aa];W[bb]AB[cc][dd])", "handicap"),
            ("(;SZ[9]RU[loose]AB[aa][bb])", "Go rule set"),
            ("(;SZ[9];B[]XS[aa:bb])", "pass"),
            ("(;SZ[9];B[aa]XS[bb:cc])", "not Sligo"),
            ("(;SZ[9]RU[sligo];B[aa]XS[bb])", "from:to"),
            ("(;SZ[9]RU[sligo];B[aa]XS[bb:cc])", "not a stone of"),
            ("(;SZ[9]RU[sligo];XS[bb:cc])", "without a move"),
            ("(;SZ[9]RU[sligo];B[aa];W[ii];B[cc]XS[aa:cc])", "blocked"),
            ("(;SZ[9];B[];W[];B[aa])", "game is over"),
            ("(;SZ[9];b[aa])", "without an uppercase"),
        ];
        for (text, want) in cases {
            let e = SgfGame::parse(text).expect_err(text);
            assert!(
                e.message.contains(want),
                "{text:?}: got {:?}, expected it to contain {want:?}",
                e.message
            );
            assert!(e.pos.is_some(), "{text:?} has no position");
        }
        let e = SgfGame::parse("(;SZ[9]\n;B[aa]\n;W[aa])").unwrap_err();
        assert_eq!(e.pos, Some(SgfPos { offset: 16, line: 3, column: 2 }));
        assert!(e.to_string().starts_with("SGF line 3, column 2:"), "{e}");
        // Deep nesting is parsed without recursion.
        let deep = format!("(;SZ[9]{}{}", "(;C[x]".repeat(100_000), ")".repeat(100_001));
        assert!(SgfGame::parse(&deep).is_ok());
        let deep = "(;".to_string() + &"(".repeat(100_000);
        assert!(SgfGame::parse(&deep).is_err());
    }

    #[test]
    fn from_actions_and_replay_report_errors() {
        let rules = Rules::preset("ttakji").unwrap();
        let geo = Geometry::new(9);
        let p = Action::Place(geo.point(0, 0));
        let e = SgfGame::from_actions(rules, &[], &[p, p]).unwrap_err();
        assert!(e.message.contains("occupied"), "{e}");
        let sligo = Rules::preset("sligo").unwrap();
        let e = SgfGame::from_actions(sligo, &[], &[Action::NoSlide]).unwrap_err();
        assert!(e.message.contains("middle"), "{e}");
        let mut rec = SgfGame::new(rules);
        rec.turns.push(Turn::Place(Point(0)));
        assert!(rec.replay().is_err());
        assert!(rec.to_sgf().is_err());
        rec.turns = vec![Turn::Slide { from: geo.point(0, 0), to: geo.point(0, 1), place: geo.point(5, 5) }];
        assert!(rec.replay().err().unwrap().message.contains("only in Sligo"));
        let mut bad = SgfGame::new(rules);
        bad.rules.size = 40;
        assert!(bad.replay().err().unwrap().message.contains("invalid rules"));
    }
}
