//! Reading: a game record from the main-line nodes of an SGF text (the `# Reading` section of
//! the module docs): rules from `RU`, `SZ` and `KM`, a handicap from `AB`, and the turns,
//! each replayed through the engine.

use super::syntax::{parse_main_line, Node, Prop, Value};
use super::{color_letter, SgfError, SgfGame, Turn};
use crate::board::Color;
use crate::game::{Game, GameState};
use crate::point::{Geometry, Point};
use crate::rules::{Komi, Rules, Variant};
use std::str::FromStr;

impl SgfGame {
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
        SgfError::at(src, pos, format!("rules \"{}\" on {n}x{n}: {e}", base.escape_debug()))
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
    use crate::rules::{KoRule, Scoring};
    use crate::sgf::SgfPos;

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
}
