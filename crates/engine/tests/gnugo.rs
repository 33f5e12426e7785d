//! Differential tests against GNU Go 3.8 over GTP.
//!
//! 1. Captures, legality and area scores: random games on 5x5..9x9 are played move by move
//!    in hane and in GNU Go. Before every move hane's set of legal placements for the side to
//!    move is compared with GNU Go's `all_legal`; after every move the whole board
//!    (`list_stones`) and the prisoner counts (`captures`) are compared. Two ko rules:
//!    simple ko (hane `chinese`, GNU Go's default `--simple-ko`) and positional superko (hane
//!    `ttakji`, GNU Go `--positional-superko`); suicide is forbidden in both. Games that end
//!    naturally (two passes because neither side has a move left that does not fill its own
//!    eye) are scored by both: hane's area count with every stone alive (`dead=none`) against
//!    GNU Go's `final_score` under `--chinese-rules`.
//! 2. BrainKing dead stones: GNU Go plays itself (level 1, `--japanese-rules`) to two passes on
//!    9x9; hane's automatic dead-stone set (`brainking`: `DeadStones::Playouts`) is compared
//!    with GNU Go's `final_status_list dead`, and hane's territory margin with `final_score`.
//!
//! GNU Go is looked up at `$HANE_GNUGO`, on `PATH` and at `/usr/games/gnugo`. Without it the
//! tests print a loud SKIPPED message and pass, unless `CI` is set: then they fail.
//! `HANE_GNUGO_MOVES` (moves per ko rule, default 10000) and `HANE_GNUGO_GAMES` (self-play games,
//! default 5) make the runs bigger.

#[path = "common/gnugo.rs"]
mod gnugo;

use gnugo::{gnugo_or_skip, start};
use hane_engine::game::is_true_eye;
use hane_engine::rng::Rng;
use hane_engine::score;
use hane_engine::{Action, Board, Color, Game, GameState, Geometry, PlayError, Point, Rules};
use hane_eval::gtp::GtpEngine;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;

fn env_usize(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(v) => v.trim().parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    }
}

fn word(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// Parses a whitespace/newline separated list of GTP vertices.
fn vertices(geo: Geometry, s: &str) -> BTreeSet<Point> {
    s.split_whitespace().map(|v| geo.parse(v).unwrap_or_else(|e| panic!("GNU Go vertex: {e}"))).collect()
}

fn stones(b: &Board, c: Color) -> BTreeSet<Point> {
    b.geo().points().filter(|&p| b.color(p) == Some(c)).collect()
}

fn names(geo: Geometry, s: &BTreeSet<Point>) -> String {
    let v: Vec<String> = s.iter().map(|&p| geo.name(p)).collect();
    v.join(" ")
}

/// Black's margin from a GTP `final_score` answer (`B+2.5`, `W+7`, `0`).
fn margin(s: &str) -> f64 {
    let s = s.trim();
    if s == "0" {
        return 0.0;
    }
    let (sign, rest) = match s.split_at(2) {
        ("B+", r) => (1.0, r),
        ("W+", r) => (-1.0, r),
        _ => panic!("unexpected final_score {s:?}"),
    };
    sign * rest.parse::<f64>().unwrap_or_else(|_| panic!("unexpected final_score {s:?}"))
}

/// Everything needed to replay a failing game by hand.
fn replay(rules: &Rules, moves: &[String]) -> String {
    format!("rules {rules}; GTP: boardsize {}; clear_board; {}", rules.size, moves.join("; "))
}

/// hane's legal placements for the side to move, after checking that they are exactly GNU Go's
/// `all_legal`.
fn check_legal(gtp: &mut GtpEngine, g: &GameState, moves: &[String]) -> BTreeSet<Point> {
    let geo = g.geo();
    let me = g.to_move();
    let mut acts = Vec::new();
    g.legal_actions(&mut acts);
    let legal: BTreeSet<Point> = acts
        .iter()
        .filter_map(|a| match a {
            Action::Place(p) => Some(*p),
            _ => None,
        })
        .collect();
    let theirs = vertices(geo, &gtp.send(&format!("all_legal {}", word(me))).unwrap());
    if legal != theirs {
        let why: Vec<String> = legal
            .symmetric_difference(&theirs)
            .map(|&p| {
                format!(
                    "{}: hane {:?}, GNU Go {}",
                    geo.name(p),
                    g.clone().play(Action::Place(p)),
                    if theirs.contains(&p) { "legal" } else { "illegal" }
                )
            })
            .collect();
        panic!(
            "legal placements differ for {} ({})\n{}\n{}",
            word(me),
            why.join("; "),
            g,
            replay(g.rules(), moves)
        );
    }
    legal
}

/// Checks that GNU Go's stones (`list_stones`) and prisoners (`captures`) equal hane's.
fn check_board(gtp: &mut GtpEngine, g: &GameState, moves: &[String]) {
    let geo = g.geo();
    for c in [Color::Black, Color::White] {
        let theirs = vertices(geo, &gtp.send(&format!("list_stones {}", word(c))).unwrap());
        let ours = stones(g.board(), c);
        if ours != theirs {
            panic!(
                "{} stones differ: hane {{{}}}, GNU Go {{{}}}\n{}\n{}",
                word(c),
                names(geo, &ours),
                names(geo, &theirs),
                g,
                replay(g.rules(), moves)
            );
        }
        // GNU Go's `captures c`: stones c has captured.
        let n: u32 = gtp.send(&format!("captures {}", word(c))).unwrap().parse().unwrap();
        assert_eq!(n, g.captured(c.opp()), "prisoners of {} differ\n{}", word(c), replay(g.rules(), moves));
    }
}

/// Plays `a` for the side to move in both engines and records it.
fn play_both(gtp: &mut GtpEngine, g: &mut GameState, a: Action, moves: &mut Vec<String>) {
    let vertex = match a {
        Action::Place(p) => g.name(p),
        _ => "pass".to_string(),
    };
    let gtp_move = format!("play {} {vertex}", &word(g.to_move())[..1]);
    if let Err(e) = g.play(a) {
        panic!("hane refuses {gtp_move}: {e}\n{g}\n{}", replay(g.rules(), moves));
    }
    if let Err(e) = gtp.send(&gtp_move) {
        panic!("GNU Go refuses {gtp_move}: {e}\n{}", replay(g.rules(), moves));
    }
    moves.push(gtp_move);
}

/// Counts from one differential run.
#[derive(Default, Debug)]
struct Diff {
    games: usize,
    moves: usize,
    positions: usize,
    /// Empty points whose legality was compared (both colours' answers agree on each).
    points: usize,
    capturing_moves: usize,
    stones_captured: usize,
    passes: usize,
    /// Points that hane forbids by its ko rule; `superko_only`: of those, points simple ko
    /// would allow (a longer cycle).
    ko_forbidden: usize,
    superko_only: usize,
    suicide_forbidden: usize,
    natural_ends: usize,
    scores_agree: usize,
    score_disagreements: Vec<String>,
}

/// Plays `budget` random moves in total (over as many games as it takes, board sizes
/// cycling 5..=9) of the hane rule set `base` (no size) against GNU Go started with `args`,
/// comparing legality before and board/prisoners after every move, and scores at natural ends.
fn differential(gnugo: &Path, base: &str, args: &[&str], seed: u64, budget: usize) -> Diff {
    let mut gtp = start(gnugo, args);
    let mut rng = Rng::new(seed);
    let mut d = Diff::default();
    while d.moves < budget {
        let size = 5 + (d.games % 5) as u8;
        let rules: Rules = format!("{base},size={size}").parse().unwrap();
        let mut shadow_rules = rules;
        shadow_rules.ko = hane_engine::rules::KoRule::Simple;
        d.games += 1;
        let geo = Geometry::new(size);
        gtp.send(&format!("boardsize {size}")).unwrap();
        gtp.send("clear_board").unwrap();
        gtp.send(&format!("komi {}", rules.komi)).unwrap();
        let mut g = GameState::new(rules);
        // The same moves under simple ko, to tell superko-only bans from simple ko bans.
        let mut shadow = GameState::new(shadow_rules);
        let mut moves: Vec<String> = Vec::new();
        let mut last_pass = false;
        // Consecutive passes made because no non-eye-filling move was left.
        let mut forced_passes = 0;
        let cap = 8 * geo.area();
        while !g.is_over() && moves.len() < cap {
            let me = g.to_move();
            let legal = check_legal(&mut gtp, &g, &moves);
            d.positions += 1;
            d.points += g.board().empty_count();
            for p in g.board().empties() {
                if legal.contains(&p) {
                    continue;
                }
                match g.clone().play(Action::Place(p)) {
                    Err(PlayError::Suicide(_)) => d.suicide_forbidden += 1,
                    Err(PlayError::Ko(_)) => d.ko_forbidden += 1,
                    Err(PlayError::Superko(_)) => {
                        d.ko_forbidden += 1;
                        if shadow.placement_is_legal(p) {
                            d.superko_only += 1;
                        }
                    }
                    other => panic!("{}: unexpected {other:?}", geo.name(p)),
                }
            }

            // A random move: mostly one that does not fill an own eye (so games end), sometimes
            // any legal placement (eye fills kill groups: big captures), rarely a pass (never a
            // second one unless forced, so passes only end a game naturally).
            let light: Vec<Point> =
                legal.iter().copied().filter(|&p| !is_true_eye(g.board(), p, me)).collect();
            let a = if light.is_empty() {
                forced_passes += 1;
                Action::Pass
            } else if !last_pass && rng.below(60) == 0 {
                Action::Pass
            } else if rng.below(100) < 12 {
                let v: Vec<Point> = legal.iter().copied().collect();
                Action::Place(v[rng.below(v.len())])
            } else {
                Action::Place(light[rng.below(light.len())])
            };
            let before = g.captured(me.opp());
            play_both(&mut gtp, &mut g, a, &mut moves);
            shadow.play(a).expect("simple ko allows what superko allows");
            d.moves += 1;
            last_pass = a == Action::Pass;
            if last_pass {
                d.passes += 1;
            }
            if !light.is_empty() {
                forced_passes = 0;
            }
            let taken = (g.captured(me.opp()) - before) as usize;
            if taken > 0 {
                d.capturing_moves += 1;
                d.stones_captured += taken;
            }

            check_board(&mut gtp, &g, &moves);
        }
        // Only a game that ended because neither side had a move left that does not fill its
        // own eye is finished enough for GNU Go's dead-stone estimate to see nothing dead.
        if g.passes() >= 2 && forced_passes >= 2 {
            d.natural_ends += 1;
            let theirs = margin(&gtp.send("final_score").unwrap());
            let ours = g.score().margin_black();
            if theirs == ours {
                d.scores_agree += 1;
            } else {
                let dead = gtp.send("final_status_list dead").unwrap().replace('\n', " ");
                let seki = gtp.send("final_status_list seki").unwrap().replace('\n', " ");
                d.score_disagreements.push(format!(
                    "hane B{ours:+} vs GNU Go B{theirs:+} (GNU Go dead: [{dead}], seki: [{seki}])\n{}{}",
                    g,
                    replay(&rules, &moves)
                ));
            }
        }
    }
    d
}

fn report_and_check(what: &str, d: &Diff, secs: f64) {
    eprintln!(
        "gnugo differential [{what}]: {} games, {} moves ({} passes), {} positions, \
         {} empty points' legality compared ({} forbidden by ko, {} of them superko-only; \
         {} suicides), {} capturing moves taking {} stones, boards compared after every move; \
         {} natural ends, {} area scores agree; {secs:.1} s",
        d.games,
        d.moves,
        d.passes,
        d.positions,
        d.points,
        d.ko_forbidden,
        d.superko_only,
        d.suicide_forbidden,
        d.capturing_moves,
        d.stones_captured,
        d.natural_ends,
        d.scores_agree,
    );
    for s in &d.score_disagreements {
        eprintln!("score disagreement [{what}]: {s}");
    }
    assert!(d.capturing_moves > 0 && d.ko_forbidden > 0 && d.suicide_forbidden > 0);
    assert!(d.natural_ends > 0, "no game ended with two passes");
    assert!(
        d.score_disagreements.is_empty(),
        "{} of {} area scores differ from GNU Go's final_score",
        d.score_disagreements.len(),
        d.natural_ends
    );
}

#[test]
fn simple_ko_captures_legality_and_area_scores_match_gnugo() {
    let Some(gnugo) = gnugo_or_skip("simple_ko_captures_legality_and_area_scores_match_gnugo") else {
        return;
    };
    let budget = env_usize("HANE_GNUGO_MOVES", 10_000);
    let t = Instant::now();
    let d = differential(
        &gnugo,
        "chinese,dead=none",
        &["--mode", "gtp", "--chinese-rules", "--simple-ko", "--forbid-suicide"],
        0x5EED_0001,
        budget,
    );
    report_and_check("simple ko", &d, t.elapsed().as_secs_f64());
}

#[test]
fn positional_superko_captures_legality_and_area_scores_match_gnugo() {
    let Some(gnugo) = gnugo_or_skip("positional_superko_captures_legality_and_area_scores_match_gnugo")
    else {
        return;
    };
    let budget = env_usize("HANE_GNUGO_MOVES", 10_000);
    let t = Instant::now();
    let d = differential(
        &gnugo,
        "ttakji,dead=none,cap=none",
        &["--mode", "gtp", "--chinese-rules", "--positional-superko", "--forbid-suicide"],
        0x5EED_0002,
        budget,
    );
    report_and_check("positional superko", &d, t.elapsed().as_secs_f64());
    assert!(d.superko_only > 0, "no ban beyond simple ko was met; raise HANE_GNUGO_MOVES");
}

/// Dead-stone and score agreement over self-play games of GNU Go.
#[derive(Default, Debug)]
struct DeadStats {
    games: usize,
    moves: usize,
    stones: usize,
    stones_agree: usize,
    dead_sets_agree: usize,
    gnugo_dead: usize,
    hane_dead: usize,
    scores_agree: usize,
    /// hane's territory count with GNU Go's dead list, against GNU Go's `final_score`.
    counts_agree: usize,
    seki_games: usize,
    /// GNU Go's `version` answer (the thresholds were measured with 3.8).
    version: String,
}

fn brainking_selfplay(gnugo: &Path, games: usize, seed: u64) -> DeadStats {
    let mut gtp = start(gnugo, &["--mode", "gtp", "--level", "1", "--japanese-rules", "--never-resign"]);
    let rules = Rules::preset("brainking").unwrap();
    let geo = Geometry::new(rules.size);
    let mut rng = Rng::new(seed);
    let mut s = DeadStats { version: gtp.send("version").unwrap(), ..DeadStats::default() };
    for game in 0..games {
        gtp.send(&format!("boardsize {}", rules.size)).unwrap();
        gtp.send("clear_board").unwrap();
        gtp.send(&format!("komi {}", rules.komi)).unwrap();
        gtp.send(&format!("set_random_seed {}", seed as usize + game)).unwrap();
        let mut g = GameState::new(rules);
        let mut moves: Vec<String> = Vec::new();
        // A few random opening moves, so that the games differ more than GNU Go's seed makes them.
        let opening = 1 + game % 3;
        let mut acts = Vec::new();
        while !g.is_over() && moves.len() < 400 {
            let me = g.to_move();
            let a = if moves.len() < opening {
                acts.clear();
                g.legal_actions(&mut acts);
                acts.retain(|a| *a != Action::Pass);
                let a = acts[rng.below(acts.len())];
                let Action::Place(p) = a else { unreachable!() };
                gtp.send(&format!("play {} {}", word(me), geo.name(p))).unwrap();
                a
            } else {
                let v = gtp.send(&format!("genmove {}", word(me))).unwrap();
                if v.eq_ignore_ascii_case("pass") {
                    Action::Pass
                } else {
                    Action::Place(geo.parse(&v).unwrap_or_else(|e| panic!("genmove: {e}")))
                }
            };
            moves.push(format!(
                "play {} {}",
                &word(me)[..1],
                match a {
                    Action::Place(p) => geo.name(p),
                    _ => "pass".into(),
                }
            ));
            if let Err(e) = g.play(a) {
                panic!("hane refuses GNU Go's move: {e}\n{g}\n{}", replay(&rules, &moves));
            }
        }
        assert!(g.is_over(), "GNU Go self-play did not end\n{g}");
        s.games += 1;
        s.moves += moves.len();
        let theirs = vertices(geo, &gtp.send("final_status_list dead").unwrap());
        let seki = vertices(geo, &gtp.send("final_status_list seki").unwrap());
        let their_margin = margin(&gtp.send("final_score").unwrap());
        let b = g.board();
        let dead = score::dead_stones(&g, b);
        let again = score::dead_stones(&g, &b.clone());
        assert!(geo.points().all(|p| dead.contains(p) == again.contains(p)), "dead_stones is not repeatable");
        let ours: BTreeSet<Point> = geo.points().filter(|&p| dead.contains(p)).collect();
        let all = stones(b, Color::Black).len() + stones(b, Color::White).len();
        let differ = ours.symmetric_difference(&theirs).count();
        s.stones += all;
        s.stones_agree += all - differ;
        s.gnugo_dead += theirs.len();
        s.hane_dead += ours.len();
        s.dead_sets_agree += usize::from(differ == 0);
        s.seki_games += usize::from(!seki.is_empty());
        let our_margin = g.score().margin_black();
        s.scores_agree += usize::from(our_margin == their_margin);
        let marked: Vec<Point> = theirs.iter().copied().collect();
        let counted = score::score_with_dead(&g, &marked).margin_black();
        s.counts_agree += usize::from(counted == their_margin);
        // hane has no notion of seki when counting territory (docs/rules.md §2: seki points count for
        // nobody), so only seki-free games must count exactly like GNU Go.
        assert!(
            counted == their_margin || !seki.is_empty(),
            "game {game}: with GNU Go's dead stones hane counts B{counted:+}, GNU Go B{their_margin:+}\n{g}{}",
            replay(&rules, &moves)
        );
        if differ != 0 || our_margin != their_margin || counted != their_margin {
            let mut board = String::new();
            for (y, row) in b.rows().iter().enumerate() {
                let _ = write!(board, "{:>2} ", geo.size() - y);
                for (x, ch) in row.chars().enumerate() {
                    let p = geo.point(x, y);
                    // Lower case: dead for hane; `?` after: GNU Go disagrees.
                    let c = if ours.contains(&p) { ch.to_ascii_lowercase() } else { ch };
                    let mark = if ours.contains(&p) != theirs.contains(&p) { '?' } else { ' ' };
                    let _ = write!(board, "{c}{mark}");
                }
                board.push('\n');
            }
            eprintln!(
                "brainking game {game}: hane dead {{{}}}, GNU Go dead {{{}}}, seki {{{}}}; \
                 margin hane B{our_margin:+}, GNU Go B{their_margin:+}, hane counting GNU Go's \
                 dead B{counted:+}\n{board}{}",
                names(geo, &ours),
                names(geo, &theirs),
                names(geo, &seki),
                replay(&rules, &moves)
            );
        }
    }
    s
}

#[test]
fn brainking_dead_stones_match_gnugo_selfplay() {
    let Some(gnugo) = gnugo_or_skip("brainking_dead_stones_match_gnugo_selfplay") else {
        return;
    };
    let games = env_usize("HANE_GNUGO_GAMES", 5);
    let t = Instant::now();
    let s = brainking_selfplay(&gnugo, games, 0xB4A1_0000);
    eprintln!(
        "gnugo {} brainking dead stones: {} games ({} moves), {} of {} stones judged alike \
         ({:.1}%), {} of {} games with identical dead sets (GNU Go {} dead stones, hane {}), \
         {} of {} territory margins equal to final_score, {} of {} with GNU Go's dead list \
         ({} games with seki); {:.1} s",
        s.version,
        s.games,
        s.moves,
        s.stones_agree,
        s.stones,
        100.0 * s.stones_agree as f64 / s.stones.max(1) as f64,
        s.dead_sets_agree,
        s.games,
        s.gnugo_dead,
        s.hane_dead,
        s.scores_agree,
        s.games,
        s.counts_agree,
        s.games,
        s.seki_games,
        t.elapsed().as_secs_f64()
    );
    // Measured with level-1 self-play (seed 0xB4A1_0000): games 0..10 all agree; over 60
    // games 2361 of 2371 stones (99.6%) and 58 of 60 dead sets and margins agree. The two
    // misses: an unfinished position GNU Go passed in (it calls a loose black group dead),
    // and a semeai that GNU Go calls seki.
    let rate = |n: usize, of: usize| n as f64 / of.max(1) as f64;
    assert!(rate(s.stones_agree, s.stones) >= 0.985, "stone agreement below 98.5%");
    assert!(rate(s.dead_sets_agree, s.games) >= 0.9, "identical dead sets in under 90% of games");
    assert!(rate(s.scores_agree, s.games) >= 0.9, "equal margins in under 90% of games");
}

/// A scripted ko fight on 5x5, for both ko rules: the ko capture, the forbidden immediate
/// retake, a pass (which must not lift the ban for the opponent's later retake nor create
/// one), a ko threat and its answer, the legal retake, and the ban on the other side. After
/// every move both engines must agree on the board and the legal placements of the side to move.
#[test]
fn scripted_ko_fight_matches_gnugo() {
    let Some(gnugo) = gnugo_or_skip("scripted_ko_fight_matches_gnugo") else {
        return;
    };
    // C3 takes the ko (captures B3); B3 retakes.
    let script = [
        "A3", "B3", "B4", "C4", "B2", "C2", "E5", "D3", "C3", "pass", "E1", "B3", "E2", "D1", "C3", "A5",
        "A4", "B3",
    ];
    for (base, args) in [
        ("chinese,dead=none", &["--mode", "gtp", "--chinese-rules"][..]),
        ("ttakji,dead=none", &["--mode", "gtp", "--chinese-rules", "--positional-superko"][..]),
    ] {
        let mut gtp = start(&gnugo, args);
        let rules: Rules = format!("{base},size=5").parse().unwrap();
        let geo = Geometry::new(5);
        gtp.send("boardsize 5").unwrap();
        gtp.send("clear_board").unwrap();
        let mut g = GameState::new(rules);
        let mut moves = Vec::new();
        let mut bans = 0;
        for m in script {
            let legal = check_legal(&mut gtp, &g, &moves);
            let a = if m == "pass" { Action::Pass } else { Action::Place(geo.parse(m).unwrap()) };
            // Count the ko bans that the script runs into (asserted below).
            bans += g
                .board()
                .empties()
                .filter(|&p| {
                    !legal.contains(&p)
                        && matches!(
                            g.clone().play(Action::Place(p)),
                            Err(PlayError::Ko(_) | PlayError::Superko(_))
                        )
                })
                .count();
            play_both(&mut gtp, &mut g, a, &mut moves);
            check_board(&mut gtp, &g, &moves);
        }
        check_legal(&mut gtp, &g, &moves);
        assert!(bans >= 3, "{base}: the script should meet the ko ban 3 times, met {bans}");
    }
}
