//! Move notation shared by the subcommands: `D4`, `pass`, and Sligo turns `E5>F6+D4`
//! (slide E5 to F6, then place D4).

use hane_engine::rules::Variant;
use hane_engine::{Action, Game, GameState, Geometry, PlayError};

/// A parsed turn: the actions that play it.
pub fn parse_turn(g: &GameState, text: &str) -> Result<Vec<Action>, String> {
    let geo = g.geo();
    let t = text.trim();
    if t.eq_ignore_ascii_case("pass") {
        return Ok(vec![Action::Pass]);
    }
    let point = |s: &str| geo.parse(s).map_err(|e| e.to_string());
    match g.rules().variant {
        Variant::Sligo => {
            let (slide, place) = match t.split_once('+') {
                Some((slide, place)) => {
                    let (f, to) =
                        slide.split_once('>').ok_or_else(|| format!("expected FROM>TO+PLACE, got {t:?}"))?;
                    (Some((point(f)?, point(to)?)), point(place)?)
                }
                None if t.contains('>') => {
                    return Err(format!("a slide must be followed by +PLACE, got {t:?}"))
                }
                None => (None, point(t)?),
            };
            g.sligo_turn(slide, place).map(|a| a.to_vec()).map_err(|e| e.to_string())
        }
        _ => Ok(vec![Action::Place(point(t)?)]),
    }
}

/// Plays one turn given in notation.
pub fn play_turn(g: &mut GameState, text: &str) -> Result<(), String> {
    let actions = parse_turn(g, text)?;
    let mut next = g.clone();
    for a in actions {
        next.play(a).map_err(|e: PlayError| e.to_string())?;
    }
    *g = next;
    Ok(())
}

/// Every legal turn of the side to move, in notation, sorted by column, then row (from the
/// bottom), then slide; `pass` last.
pub fn legal_turns(g: &GameState) -> Vec<String> {
    let geo = g.geo();
    let mut firsts = Vec::new();
    g.legal_actions(&mut firsts);
    let mut turns: Vec<(Vec<usize>, String)> = Vec::new();
    let key = |geo: Geometry, p| {
        let (x, y) = geo.xy(p);
        vec![x, geo.size() - y]
    };
    for a in firsts {
        match a {
            Action::Pass => {}
            Action::Place(p) => turns.push((key(geo, p), geo.name(p))),
            Action::NoSlide | Action::Slide(..) => {
                let mut next = g.clone();
                next.play_unchecked(a);
                let mut places = Vec::new();
                next.legal_actions(&mut places);
                for b in places {
                    let Action::Place(q) = b else { continue };
                    match a {
                        Action::Slide(f, d) => {
                            let to = geo.step(f, d).expect("listed slide stays on the board");
                            let mut k = key(geo, q);
                            k.extend(key(geo, f));
                            k.extend(key(geo, to));
                            let name = format!("{}>{}+{}", geo.name(f), geo.name(to), geo.name(q));
                            turns.push((k, name));
                        }
                        _ => turns.push((key(geo, q), geo.name(q))),
                    }
                }
            }
        }
    }
    turns.sort();
    let mut out: Vec<String> = turns.into_iter().map(|(_, n)| n).collect();
    if !g.is_over() {
        out.push("pass".into());
    }
    out
}

/// The notation of a turn made of `actions` from position `g` (`D4`, `pass`, `E5>F6+D4`).
pub fn turn_name(g: &GameState, actions: &[Action]) -> String {
    let geo = g.geo();
    match actions {
        [Action::Pass] => "pass".into(),
        [Action::Place(p)] | [Action::NoSlide, Action::Place(p)] => geo.name(*p),
        [Action::Slide(f, d), Action::Place(q)] => match geo.step(*f, *d) {
            Some(t) => format!("{}>{}+{}", geo.name(*f), geo.name(t), geo.name(*q)),
            None => "pass".into(),
        },
        _ => actions.iter().map(|a| a.name(geo)).collect::<Vec<_>>().join("+"),
    }
}
