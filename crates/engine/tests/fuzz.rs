//! Property tests over the engine's public entry points with arbitrary input: rule strings,
//! GTP vertices, action sequences (including off-board points and actions of the wrong
//! phase) and SGF text. Nothing may panic; every refusal is a typed error, a refused action
//! leaves the state unchanged, and after every accepted action the board's incremental
//! structures agree with a recomputation from the colours (`Board::check_consistency`).

use hane_engine::rules::PRESETS;
use hane_engine::sgf::{SgfGame, Turn};
use hane_engine::{Action, Dir, Game, GameState, Geometry, Point, Rules};
use proptest::prelude::*;

/// Komi values to try, valid and invalid for the various rule sets.
const KOMIS: [&str; 12] = ["0", "0.5", "-4", "7", "7.5", "6", "0.3", "1e9", "-0", "nan", "", "1000.5"];

/// Rule fields and values to override with, valid and invalid.
const KEYS: [&str; 8] = ["size", "komi", "scoring", "ko", "suicide", "dead", "cap", "bogus"];
const VALUES: [&str; 16] = [
    "area",
    "territory",
    "stones",
    "none",
    "simple",
    "positional",
    "allow",
    "forbid",
    "pass-alive",
    "playouts",
    "0",
    "1",
    "300",
    "4294967295n2",
    "4n2",
    "-1",
];

/// A rules string built from a preset, a size in 1..25, a komi and some overrides, sometimes
/// with junk.
fn rules_text() -> impl Strategy<Value = String> {
    (
        0..PRESETS.len(),
        1u32..25,
        prop::option::of(0..KOMIS.len()),
        prop::collection::vec((0..KEYS.len(), 0..VALUES.len()), 0..3),
        prop::option::of("[a-z=,0-9.]{0,12}"),
    )
        .prop_map(|(p, size, komi, overrides, junk)| {
            let mut s = format!("{},size={size}", PRESETS[p]);
            if let Some(k) = komi {
                s.push_str(&format!(",komi={}", KOMIS[k]));
            }
            for (k, v) in overrides {
                s.push_str(&format!(",{}={}", KEYS[k], VALUES[v]));
            }
            if let Some(j) = junk {
                s.push(',');
                s.push_str(&j);
            }
            s
        })
}

/// Mostly valid rules strings for playing: a preset, a size in 1..25 (2..19 are valid), a
/// komi, and well-typed overrides.
fn playable_rules() -> impl Strategy<Value = String> {
    let field = prop_oneof![
        Just("ko=none"),
        Just("ko=simple"),
        Just("ko=positional"),
        Just("suicide=allow"),
        Just("scoring=area"),
        Just("dead=none"),
        Just("dead=pass-alive"),
        Just("cap=20"),
        Just("cap=1n2"),
        Just("cap=4294967295n2"),
    ];
    (
        0..PRESETS.len(),
        prop_oneof![9 => 2u32..=13, 1 => 1u32..25, 1 => 14u32..=19],
        prop::option::of(0..8usize),
        prop::option::of(field),
    )
        .prop_map(|(p, size, komi, field)| {
            let mut s = format!("{},size={size}", PRESETS[p]);
            if let Some(k) = komi {
                s.push_str(&format!(",komi={}", KOMIS[k]));
            }
            if let Some(f) = field {
                s.push(',');
                s.push_str(f);
            }
            s
        })
}

/// Arbitrary text that looks a bit like GTP moves and notation.
fn gtp_text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[A-Za-z]{0,2}[0-9]{0,3}",
        "[A-Ta-t][0-9]{1,2}(>[A-Ta-t][0-9]{1,2}(\\+[A-Ta-t][0-9]{1,2})?)?",
        Just("pass".to_string()),
        Just("Z99".to_string()),
        Just(String::new()),
        Just("A1>B2+C3".to_string()),
        Just("I5".to_string()),
        Just("A0".to_string()),
        Just("é1".to_string()),
    ]
}

/// One step of a fuzzed game: how to pick the action, and a number to pick it with.
#[derive(Clone, Debug)]
enum Step {
    /// A legal action, chosen by the number modulo the count.
    Legal(u32),
    /// `Action::from_index` with an index anywhere in (and a little beyond) the action space.
    Index(u32),
    /// A placement at an arbitrary padded index.
    RawPlace(u16),
    /// A slide from an arbitrary padded index in an arbitrary (possibly invalid) direction.
    RawSlide(u16, u8),
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        prop_oneof![
            6 => any::<u32>().prop_map(Step::Legal),
            3 => any::<u32>().prop_map(Step::Index),
            1 => any::<u16>().prop_map(Step::RawPlace),
            1 => (any::<u16>(), any::<u8>()).prop_map(|(p, d)| Step::RawSlide(p, d)),
        ],
        0..200,
    )
}

fn action_for(g: &GameState, step: &Step) -> Option<Action> {
    let geo = g.geo();
    match *step {
        Step::Legal(k) => {
            let mut legal = Vec::new();
            g.legal_actions(&mut legal);
            (!legal.is_empty()).then(|| legal[k as usize % legal.len()])
        }
        Step::Index(i) => {
            let space = Action::space(geo.size());
            Action::from_index(geo, i as usize % (space + 8))
        }
        Step::RawPlace(p) => Some(Action::Place(Point(p))),
        Step::RawSlide(p, d) => Some(Action::Slide(Point(p), Dir(d))),
    }
}

/// 128 cases per property, or `PROPTEST_CASES` for a longer run.
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(128)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn rules_from_str_never_panics(s in prop_oneof![any::<String>(), rules_text()]) {
        if let Ok(r) = s.parse::<Rules>() {
            prop_assert!(r.validate().is_ok(), "{s:?} parsed to invalid rules");
            let back: Rules = r.to_string().parse().map_err(|e| {
                TestCaseError::fail(format!("{s:?} printed as {r} which does not parse: {e}"))
            })?;
            prop_assert_eq!(back, r);
            let g = GameState::new(r);
            prop_assert!(g.board().check_consistency().is_ok());
            let area = u32::from(r.size) * u32::from(r.size);
            prop_assert!(r.max_turns() <= 16 * area);
        }
    }

    #[test]
    fn geometry_parse_never_panics(size in 1u8..=19, s in gtp_text()) {
        let geo = Geometry::new(size);
        if let Ok(p) = geo.parse(&s) {
            prop_assert!(geo.on_board(p));
            prop_assert_eq!(geo.parse(&geo.name(p)), Ok(p));
        }
    }

    #[test]
    fn play_never_panics_and_keeps_the_board_consistent(
        spec in playable_rules(),
        steps in steps(),
    ) {
        let Ok(rules) = spec.parse::<Rules>() else { return Ok(()) };
        let mut g = GameState::new(rules);
        let mut turns = Vec::new();
        let mut actions = Vec::new();
        for step in &steps {
            let Some(a) = action_for(&g, step) else { continue };
            let before = (g.state_hash(), g.turns(), g.phase(), g.is_over());
            let turn = Turn::from_action(&g, a);
            match g.play(a) {
                Ok(()) => {
                    if let Err(e) = g.board().check_consistency() {
                        return Err(TestCaseError::fail(format!("{spec}: after {a:?}: {e}")));
                    }
                    turns.extend(turn);
                    actions.push(a);
                }
                Err(e) => {
                    prop_assert!(!e.to_string().is_empty());
                    let after = (g.state_hash(), g.turns(), g.phase(), g.is_over());
                    prop_assert_eq!(before, after, "{} changed the state: {:?}", spec, a);
                }
            }
        }
        // The score (and the Sligo turn-start board) exist for every position.
        let _ = g.score();
        prop_assert!(g.turn_start_board().check_consistency().is_ok());
        // What was played is recorded, written and read back unchanged.
        if g.phase() == hane_engine::Phase::Start {
            let rec = SgfGame::from_actions(rules, &[], &actions)
                .map_err(|e| TestCaseError::fail(format!("{spec}: {e}")))?;
            prop_assert_eq!(&rec.turns, &turns);
            let text = rec.to_sgf().map_err(|e| TestCaseError::fail(e.to_string()))?;
            let back = SgfGame::parse(&text)
                .map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
            prop_assert_eq!(&back.turns, &turns);
            prop_assert_eq!(back.rules, rules);
            let end = back.replay().map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(end.board().rows(), g.board().rows());
        }
    }

    #[test]
    fn handicap_never_panics_and_a_refused_one_changes_nothing(
        spec in playable_rules(),
        // Mostly points of a padded board up to 19x19, some far outside it.
        stones in prop::collection::vec(prop_oneof![4 => 0u16..441, 1 => any::<u16>()], 0..6),
        repeat in any::<bool>(),
    ) {
        let Ok(rules) = spec.parse::<Rules>() else { return Ok(()) };
        let mut pts: Vec<Point> = stones.into_iter().map(Point).collect();
        if repeat && !pts.is_empty() {
            pts.push(pts[0]);
        }
        let mut g = GameState::new(rules);
        match g.set_handicap(&pts) {
            Ok(()) => prop_assert!(g.board().check_consistency().is_ok()),
            Err(_) => {
                let fresh = GameState::new(rules);
                prop_assert_eq!(g.board().rows(), fresh.board().rows());
                prop_assert_eq!(g.to_move(), fresh.to_move());
            }
        }
        // Marking arbitrary points dead is harmless too.
        let _ = hane_engine::score::score_with_dead(&GameState::new(rules), &pts);
    }

    #[test]
    fn sligo_turn_never_panics(
        size in 2u8..=19,
        f in any::<u16>(),
        t in any::<u16>(),
        q in any::<u16>(),
        slide in any::<bool>(),
    ) {
        let rules = Rules::preset_sized("sligo", size).unwrap();
        let g = GameState::new(rules);
        let s = slide.then_some((Point(f), Point(t)));
        if let Ok(actions) = g.sligo_turn(s, Point(q)) {
            let mut g2 = g.clone();
            for a in actions {
                if g2.play(a).is_err() {
                    break;
                }
            }
            prop_assert!(g2.board().check_consistency().is_ok());
        }
        for p in [Point(f), Point(q)] {
            prop_assert!(!g.placement_is_legal(p), "Sligo has no single-action placements");
            let go = GameState::new(Rules::preset_sized("ttakji", size).unwrap());
            prop_assert_eq!(go.placement_is_legal(p), go.geo().on_board(p));
        }
    }

    #[test]
    fn sgf_reader_never_panics_on_bytes(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = SgfGame::parse(&text) {
            let pos = e.pos.expect("a reader error has a position");
            prop_assert!(pos.offset <= text.len());
            prop_assert!(!e.message.is_empty());
        }
    }

    #[test]
    fn sgf_reader_never_panics_on_sgf_like_text(
        parts in prop::collection::vec(
            prop_oneof![
                Just("("), Just(")"), Just(";"), Just("B["), Just("W["), Just("]"), Just("[]"),
                Just("aa"), Just("tt"), Just("ee"), Just("zz"), Just("XS["), Just("AB["),
                Just("AW[aa]"), Just("SZ["), Just("9"), Just("25"), Just("5:5"), Just("KM["),
                Just("7.5"), Just("RU["), Just("sligo"), Just("loose"), Just("ttakji"),
                Just("Chinese"), Just("\\"), Just("\\]"), Just(":"), Just(" "), Just("\n"),
                Just("é"), Just("GM[1]"), Just("HA[2]"), Just("C[x]"), Just("dd:ee"),
            ],
            0..60,
        ),
    ) {
        let text: String = parts.concat();
        match SgfGame::parse(&text) {
            Ok(rec) => {
                // Whatever reads must replay and write.
                prop_assert!(rec.replay().is_ok());
                prop_assert!(rec.to_sgf().is_ok());
            }
            Err(e) => prop_assert!(e.pos.is_some()),
        }
        let wrapped = format!("(;{text})");
        let _ = SgfGame::parse(&wrapped);
    }

    #[test]
    fn sgf_reader_survives_mutations(
        spec in playable_rules(),
        seed in any::<u32>(),
        edits in prop::collection::vec((any::<u16>(), any::<u8>(), 0u8..3), 1..6),
    ) {
        let Ok(rules) = spec.parse::<Rules>() else { return Ok(()) };
        let mut g = GameState::new(rules);
        let mut actions = Vec::new();
        for k in 0..30u32 {
            let mut legal = Vec::new();
            g.legal_actions(&mut legal);
            if legal.is_empty() {
                break;
            }
            let a = legal[(seed.wrapping_mul(2_654_435_761).wrapping_add(k * 97)) as usize % legal.len()];
            g.play(a).unwrap();
            actions.push(a);
        }
        while g.phase() != hane_engine::Phase::Start {
            let mut legal = Vec::new();
            g.legal_actions(&mut legal);
            g.play(legal[0]).unwrap();
            actions.push(legal[0]);
        }
        let text = SgfGame::from_actions(rules, &[], &actions).unwrap().to_sgf().unwrap();
        let mut bytes = text.into_bytes();
        for (at, byte, kind) in edits {
            let i = at as usize % (bytes.len() + 1);
            match kind {
                0 => bytes.insert(i, byte),
                1 if i < bytes.len() => {
                    bytes.remove(i);
                }
                _ if i < bytes.len() => bytes[i] = byte,
                _ => {}
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(rec) = SgfGame::parse(&text) {
            prop_assert!(rec.replay().is_ok());
        }
    }
}
