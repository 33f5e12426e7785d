//! Seeded stress test: random games under every preset and several board sizes, checked after
//! every action against the engine's own consistency oracle and against a small, slow,
//! independent re-implementation of the rules in this file (plain colour grids, flood fills).
//!
//! Per action:
//! - `Board::check_consistency` (chains, liberties, empty list, counts, hash rebuilt from the
//!   colours) and a fresh `Board::from_rows` of the same colours has the same hash;
//! - `play` and `play_unchecked` of the chosen action give the same state;
//! - the state hash is the stone hash xor a key of (side to move, phase, passes) that is the
//!   same for equal keys and different for different ones, across all games;
//! - the position after each completed turn equals the reference rules' result, and:
//!   Go: no chain without liberties, prisoners match the stones that left the board, the ko
//!   rule holds; Loose: every group has a true liberty, one more stone per placement;
//!   Sligo: no weak pair and no chain without liberties of either colour, one more own stone
//!   per placement;
//! - `legal_actions` agrees with `play`: every listed action plays on a copy; unlisted ones
//!   (a sample, and all of them through `placement_is_legal` for Go and Loose) are refused;
//!   Go and Loose legality agree with the reference at every point; for Sligo the set of
//!   positions reachable by the listed turns equals the reference's set of legal turn results,
//!   each listed once (at every turn on small boards, sampled on large ones).
//!
//! At the end of each game: the outcome agrees with the totals and the tie rules.
//!
//! The default run takes a few seconds in `cargo test --release`. `HANE_STRESS_MOVES=N` plays
//! about N actions in total (spread evenly over the presets and sizes) and prints what it
//! checked; `HANE_STRESS_SEED` changes the seed.

use hane_engine::game::has_weak_pair;
use hane_engine::playout::random_light_action;
use hane_engine::rng::Rng;
use hane_engine::rules::{KoRule, Variant, PRESETS};
use hane_engine::score::has_true_liberty;
use hane_engine::{Action, Board, Color, Dir, Game, GameState, Outcome, Phase, Point, Rules};
use std::collections::{HashMap, HashSet};
use std::time::Instant;

const SIZES: [u8; 6] = [2, 3, 5, 7, 9, 13];
/// Actions per preset in the default run.
const DEFAULT_PER_PRESET: u64 = 1_500;

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name)
        .ok()
        .map(|v| v.trim().parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a number")))
}

// ---------------------------------------------------------------------------------------------
// Reference rules on plain grids
// ---------------------------------------------------------------------------------------------

/// Colours by dense index `y * n + x`: 0 empty, 1 black, 2 white.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
struct Grid {
    n: usize,
    c: Vec<u8>,
}

fn cell(c: Color) -> u8 {
    match c {
        Color::Black => 1,
        Color::White => 2,
    }
}

impl Grid {
    fn of(b: &Board) -> Grid {
        let geo = b.geo();
        let n = geo.size();
        let c = (0..n * n).map(|i| b.color(geo.from_dense(i)).map_or(0, cell)).collect();
        Grid { n, c }
    }

    fn nbrs(&self, i: usize) -> impl Iterator<Item = usize> {
        let n = self.n;
        let (x, y) = (i % n, i / n);
        [
            (x > 0).then(|| i - 1),
            (x + 1 < n).then(|| i + 1),
            (y > 0).then(|| i - n),
            (y + 1 < n).then(|| i + n),
        ]
        .into_iter()
        .flatten()
    }

    /// The stones of the group through the stone at `i`.
    fn group(&self, i: usize) -> Vec<usize> {
        let v = self.c[i];
        let mut seen = vec![false; self.c.len()];
        let mut out = vec![i];
        seen[i] = true;
        let mut k = 0;
        while k < out.len() {
            let x = out[k];
            k += 1;
            for q in self.nbrs(x) {
                if self.c[q] == v && !seen[q] {
                    seen[q] = true;
                    out.push(q);
                }
            }
        }
        out
    }

    /// Every group as a list of stones.
    fn groups(&self) -> Vec<Vec<usize>> {
        let mut done = vec![false; self.c.len()];
        let mut out = Vec::new();
        for i in 0..self.c.len() {
            if self.c[i] != 0 && !done[i] {
                let g = self.group(i);
                for &s in &g {
                    done[s] = true;
                }
                out.push(g);
            }
        }
        out
    }

    fn has_liberty(&self, group: &[usize]) -> bool {
        group.iter().any(|&s| self.nbrs(s).any(|q| self.c[q] == 0))
    }

    /// Removes every group of colour `v` without a liberty; returns the stones removed.
    fn remove_dead(&mut self, v: u8) -> usize {
        let dead: Vec<Vec<usize>> =
            self.groups().into_iter().filter(|g| self.c[g[0]] == v && !self.has_liberty(g)).collect();
        let mut n = 0;
        for g in dead {
            for s in g {
                self.c[s] = 0;
                n += 1;
            }
        }
        n
    }

    fn any_surrounded(&self) -> bool {
        self.groups().iter().any(|g| !self.has_liberty(g))
    }

    /// Loose: an empty point is false when it has no empty neighbour and touches both colours.
    fn true_liberty(&self, e: usize) -> bool {
        let mut seen = 0u8;
        for q in self.nbrs(e) {
            match self.c[q] {
                0 => return true,
                v => seen |= v,
            }
        }
        seen != 3
    }

    fn has_true_liberty(&self, group: &[usize]) -> bool {
        group.iter().any(|&s| self.nbrs(s).any(|q| self.c[q] == 0 && self.true_liberty(q)))
    }

    /// Sligo: two diagonal stones of `v` whose two common neighbours hold no stone of `v`.
    fn weak_pair(&self, v: u8) -> bool {
        let n = self.n;
        (0..n.saturating_sub(1)).any(|y| {
            (0..n - 1).any(|x| {
                let m = |dx: usize, dy: usize| self.c[(y + dy) * n + x + dx] == v;
                (m(0, 0) && m(1, 1) && !m(1, 0) && !m(0, 1)) || (m(1, 0) && m(0, 1) && !m(0, 0) && !m(1, 1))
            })
        })
    }

    fn count(&self, v: u8) -> usize {
        self.c.iter().filter(|&&x| x == v).count()
    }
}

/// Go placement without the ko rule: `None` if occupied or a forbidden suicide.
fn ref_go(g: &Grid, i: usize, me: u8, suicide: bool) -> Option<Grid> {
    if g.c[i] != 0 {
        return None;
    }
    let mut r = g.clone();
    r.c[i] = me;
    r.remove_dead(3 - me);
    let own = r.group(i);
    if !r.has_liberty(&own) {
        if !suicide {
            return None;
        }
        for s in own {
            r.c[s] = 0;
        }
    }
    Some(r)
}

/// Loose placement: flip every enemy group without a true liberty (judged all at once after
/// the placement), then every group must have a true liberty.
fn ref_loose(g: &Grid, i: usize, me: u8) -> Option<Grid> {
    if g.c[i] != 0 {
        return None;
    }
    let mut r = g.clone();
    r.c[i] = me;
    let doomed: Vec<Vec<usize>> =
        r.groups().into_iter().filter(|gr| r.c[gr[0]] == 3 - me && !r.has_true_liberty(gr)).collect();
    for gr in doomed {
        for s in gr {
            r.c[s] = me;
        }
    }
    r.groups().iter().all(|gr| r.has_true_liberty(gr)).then_some(r)
}

/// Sligo turn: optional slide `f -> t`, placement at `q`, removal of every surrounded enemy
/// group; the result must have no surrounded group and no weak pair of either colour.
fn ref_sligo(g: &Grid, slide: Option<(usize, usize)>, q: usize, me: u8) -> Option<Grid> {
    let mut r = g.clone();
    if let Some((f, t)) = slide {
        assert!(r.c[f] == me && r.c[t] == 0);
        r.c[f] = 0;
        r.c[t] = me;
    }
    if r.c[q] != 0 {
        return None;
    }
    r.c[q] = me;
    r.remove_dead(3 - me);
    (!r.any_surrounded() && !r.weak_pair(1) && !r.weak_pair(2)).then_some(r)
}

/// All positions a Sligo turn (not a pass) can lead to under the reference rules.
fn ref_sligo_results(g: &Grid, me: u8) -> HashSet<Grid> {
    let n = g.n as i64;
    let mut out = HashSet::new();
    let mut slides: Vec<Option<(usize, usize)>> = vec![None];
    for f in (0..g.c.len()).filter(|&f| g.c[f] == me) {
        let (fx, fy) = ((f % g.n) as i64, (f / g.n) as i64);
        for (dx, dy) in [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
            let (tx, ty) = (fx + dx, fy + dy);
            if (0..n).contains(&tx) && (0..n).contains(&ty) {
                let t = (ty * n + tx) as usize;
                if g.c[t] == 0 {
                    slides.push(Some((f, t)));
                }
            }
        }
    }
    for s in slides {
        for q in 0..g.c.len() {
            if let Some(r) = ref_sligo(g, s, q, me) {
                out.insert(r);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The checker
// ---------------------------------------------------------------------------------------------

/// Everything a phase of a turn can be, as a key for the state-hash check.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct HashKey {
    white_to_move: bool,
    phase: (u8, u16, u16),
    passes: u8,
}

fn hash_key(g: &GameState) -> HashKey {
    HashKey {
        white_to_move: g.to_move() == Color::White,
        phase: match g.phase() {
            Phase::Start => (0, 0, 0),
            Phase::Place(None) => (1, 0, 0),
            Phase::Place(Some((f, t))) => (2, f.0, t.0),
        },
        passes: g.passes(),
    }
}

#[derive(Default)]
struct Stats {
    games: u64,
    finished: u64,
    actions: u64,
    turns: u64,
    /// Individual assertions evaluated.
    checks: u64,
    legal_checks: u64,
    full_sligo_checks: u64,
    repetitions: u64,
}

struct Checker {
    rng: Rng,
    stats: Stats,
    key_to_xor: HashMap<HashKey, u64>,
    xor_to_key: HashMap<u64, HashKey>,
    /// The last state `play_unchecked` was checked on; the next check copies the game into it
    /// (or into a new game) with `clone_from`, whose copy must list the same legal actions.
    scratch: Option<GameState>,
}

macro_rules! check {
    ($ck:expr, $cond:expr, $($arg:tt)+) => {{
        $ck.stats.checks += 1;
        assert!($cond, $($arg)+);
    }};
}

impl Checker {
    fn new(seed: u64) -> Checker {
        Checker {
            rng: Rng::new(seed),
            stats: Stats::default(),
            key_to_xor: HashMap::new(),
            xor_to_key: HashMap::new(),
            scratch: None,
        }
    }

    fn state_hash(&mut self, g: &GameState, ctx: &str) {
        let key = hash_key(g);
        let x = g.state_hash() ^ g.board().hash();
        let prev = *self.key_to_xor.entry(key).or_insert(x);
        check!(self, prev == x, "{ctx}: state hash of {key:?} is not stones ^ key");
        let other = *self.xor_to_key.entry(x).or_insert(key);
        check!(self, other == key, "{ctx}: states {other:?} and {key:?} hash alike\n{g}");
        check!(self, g.clone().state_hash() == g.state_hash(), "{ctx}");
    }

    fn board(&mut self, g: &GameState, ctx: &str) {
        let b = g.board();
        if let Err(e) = b.check_consistency() {
            panic!("{ctx}: inconsistent board: {e}\n{g}");
        }
        let rows = b.rows();
        let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
        let fresh = Board::from_rows(&refs).unwrap();
        check!(self, fresh.hash() == b.hash(), "{ctx}: hash\n{g}");
        self.stats.checks += 1;
    }

    /// `legal_actions` against `play`, `placement_is_legal` and the reference rules; returns
    /// the listed actions.
    fn legality(&mut self, g: &GameState, history: &[Grid], ctx: &str) -> Vec<Action> {
        self.stats.legal_checks += 1;
        let mut listed = Vec::new();
        g.legal_actions(&mut listed);
        check!(self, !listed.is_empty(), "{ctx}: no legal action\n{g}");
        let idx: Vec<usize> = listed.iter().map(|&a| g.action_index(a)).collect();
        check!(
            self,
            idx.windows(2).all(|w| w[0] < w[1]),
            "{ctx}: legal actions not sorted or repeated: {listed:?}"
        );
        check!(self, idx.iter().all(|&i| i < g.action_space()), "{ctx}: action index out of range");
        for &a in &listed {
            let mut c = g.clone();
            if let Err(e) = c.play(a) {
                panic!("{ctx}: listed {a:?} refused: {e}\n{g}");
            }
            self.stats.checks += 1;
        }
        let set: HashSet<Action> = listed.iter().copied().collect();
        let geo = g.geo();
        let me = cell(g.to_move());
        let grid = Grid::of(g.board());
        match (g.rules().variant, g.phase()) {
            (Variant::Go | Variant::Loose, _) => {
                check!(self, set.contains(&Action::Pass), "{ctx}: pass not listed");
                let mut unlisted = Vec::new();
                for p in geo.points() {
                    let is_listed = set.contains(&Action::Place(p));
                    check!(
                        self,
                        g.placement_is_legal(p) == is_listed,
                        "{ctx}: placement_is_legal({}) disagrees with legal_actions\n{g}",
                        geo.name(p)
                    );
                    let i = geo.dense(p);
                    let reference = if g.rules().variant == Variant::Loose {
                        ref_loose(&grid, i, me).is_some()
                    } else {
                        ref_go(&grid, i, me, g.rules().suicide).is_some_and(|r| {
                            let k = history.len();
                            match g.rules().ko {
                                KoRule::None => true,
                                KoRule::Simple => k < 2 || r != history[k - 2],
                                KoRule::Positional => !history.contains(&r),
                            }
                        })
                    };
                    check!(
                        self,
                        reference == is_listed,
                        "{ctx}: {} is {} by the reference rules\n{g}",
                        geo.name(p),
                        if reference { "legal" } else { "illegal" }
                    );
                    if !is_listed {
                        unlisted.push(p);
                    }
                }
                self.refused(g, &unlisted, Action::Place, ctx);
            }
            (Variant::Sligo, Phase::Start) => {
                check!(self, set.contains(&Action::Pass), "{ctx}: pass not listed");
                let mut cands = Vec::new();
                g.first_action_candidates(&mut cands);
                let unlisted: Vec<Action> = cands.into_iter().filter(|a| !set.contains(a)).collect();
                for _ in 0..unlisted.len().min(6) {
                    let a = unlisted[self.rng.below(unlisted.len())];
                    check!(self, g.clone().play(a).is_err(), "{ctx}: unlisted {a:?} plays\n{g}");
                }
                // Slides of the opponent's stones and placements are refused at turn start.
                if let Some(p) = geo.points().find(|&p| g.board().color(p) == Some(g.to_move().opp())) {
                    check!(self, g.clone().play(Action::Slide(p, Dir(0))).is_err(), "{ctx}");
                }
                if let Some(p) = g.board().empties().next() {
                    check!(self, g.clone().play(Action::Place(p)).is_err(), "{ctx}");
                }
                let full_every = match geo.size() {
                    0..=5 => 1,
                    6..=7 => 4,
                    8..=9 => 24,
                    _ => 400,
                };
                if self.rng.below(full_every) == 0 {
                    self.sligo_turn_set(g, &listed, &grid, ctx);
                }
            }
            (Variant::Sligo, Phase::Place(slide)) => {
                let start = Grid::of(&g.turn_start_board());
                let slide_dense = slide.map(|(f, t)| (geo.dense(f), geo.dense(t)));
                let mut unlisted = Vec::new();
                for q in g.board().empties() {
                    let is_listed = set.contains(&Action::Place(q));
                    let reference = ref_sligo(&start, slide_dense, geo.dense(q), me).is_some();
                    if is_listed {
                        check!(self, reference, "{ctx}: {} listed, illegal by reference\n{g}", geo.name(q));
                    } else {
                        unlisted.push(q);
                        // A legal unlisted placement must be one of the duplicate spellings.
                        if let (true, Some((f, _))) = (reference, slide) {
                            let (fx, fy) = geo.xy(f);
                            let (qx, qy) = geo.xy(q);
                            check!(
                                self,
                                q == f || (fx.abs_diff(qx) <= 1 && fy.abs_diff(qy) <= 1),
                                "{ctx}: legal placement {} not listed\n{g}",
                                geo.name(q)
                            );
                        } else {
                            check!(self, !reference, "{ctx}: legal {} not listed\n{g}", geo.name(q));
                        }
                    }
                }
                self.refused(g, &unlisted, Action::Place, ctx);
                check!(self, g.clone().play(Action::Pass).is_err(), "{ctx}: pass after a slide");
            }
        }
        listed
    }

    /// A sample of unlisted placements must be refused by `play`.
    fn refused(&mut self, g: &GameState, unlisted: &[Point], f: fn(Point) -> Action, ctx: &str) {
        if unlisted.is_empty() {
            return;
        }
        for _ in 0..unlisted.len().min(6) {
            let p = unlisted[self.rng.below(unlisted.len())];
            let a = f(p);
            let before = g.state_hash();
            let mut c = g.clone();
            check!(self, c.play(a).is_err(), "{ctx}: unlisted {a:?} plays\n{g}");
            check!(self, c.state_hash() == before, "{ctx}: a refused action changed the state");
        }
    }

    /// Sligo: the positions of all listed turns are the reference's legal results, once each.
    fn sligo_turn_set(&mut self, g: &GameState, firsts: &[Action], grid: &Grid, ctx: &str) {
        self.stats.full_sligo_checks += 1;
        let mut engine: HashMap<Grid, (Action, Action)> = HashMap::new();
        for &a in firsts {
            if a == Action::Pass {
                continue;
            }
            let mut s = g.clone();
            s.play(a).unwrap();
            let mut places = Vec::new();
            s.legal_actions(&mut places);
            check!(self, !places.is_empty(), "{ctx}: {a:?} listed without a placement");
            for q in places {
                let mut t = s.clone();
                t.play(q).unwrap();
                if let Some(prev) = engine.insert(Grid::of(t.board()), (a, q)) {
                    panic!("{ctx}: {prev:?} and {:?} reach the same position\n{g}", (a, q));
                }
                self.stats.checks += 1;
            }
        }
        let reference = ref_sligo_results(grid, cell(g.to_move()));
        let eng: HashSet<Grid> = engine.keys().cloned().collect();
        check!(
            self,
            eng == reference,
            "{ctx}: {} listed turn results, {} by reference ({} only listed, {} only reference)\n{g}",
            eng.len(),
            reference.len(),
            eng.difference(&reference).count(),
            reference.difference(&eng).count()
        );
    }

    /// Checks after a completed turn against the reference rules.
    fn turn(
        &mut self,
        before: &GameState,
        slide: Option<(Point, Point)>,
        placed: Option<Point>,
        g: &GameState,
        history: &[Grid],
        ctx: &str,
    ) {
        let rules = *g.rules();
        let geo = g.geo();
        let mover = before.to_move();
        let (me, opp) = (cell(mover), 3 - cell(mover));
        let start = &history[history.len() - 1];
        let now = Grid::of(g.board());
        check!(self, g.to_move() == mover.opp(), "{ctx}: side to move");
        check!(self, g.phase() == Phase::Start, "{ctx}: phase");
        check!(self, g.turns() == before.turns() + 1, "{ctx}: turn count");
        let Some(q) = placed else {
            check!(self, &now == start, "{ctx}: a pass changed the board");
            check!(self, g.passes() == before.passes() + 1, "{ctx}: passes");
            return;
        };
        check!(self, g.passes() == 0, "{ctx}: passes after a placement");
        check!(self, g.last_placer() == Some(mover), "{ctx}: last placer");
        let qi = geo.dense(q);
        let expected = match rules.variant {
            Variant::Go => ref_go(start, qi, me, rules.suicide),
            Variant::Loose => ref_loose(start, qi, me),
            Variant::Sligo => ref_sligo(start, slide.map(|(f, t)| (geo.dense(f), geo.dense(t))), qi, me),
        };
        let Some(expected) = expected else {
            panic!("{ctx}: the reference rules refuse the turn\n{before}");
        };
        check!(
            self,
            now == expected,
            "{ctx}: position differs from the reference\nbefore:\n{before}\nafter:\n{g}"
        );
        let b = g.board();
        let heads: Vec<Point> = geo.points().filter(|&p| b.color(p).is_some() && b.chain(p) == p).collect();
        let (me_before, opp_before) = (start.count(me), start.count(opp));
        let (me_after, opp_after) = (now.count(me), now.count(opp));
        match rules.variant {
            Variant::Go => {
                for &h in &heads {
                    check!(self, b.libs(h) > 0, "{ctx}: chain without liberty\n{g}");
                }
                let took = g.captured(mover.opp()) - before.captured(mover.opp());
                let lost = g.captured(mover) - before.captured(mover);
                check!(self, opp_before - opp_after == took as usize, "{ctx}: prisoners taken");
                check!(self, me_before + 1 - me_after == lost as usize, "{ctx}: own stones lost");
                check!(self, rules.suicide || lost == 0, "{ctx}: suicide");
                let k = history.len();
                match rules.ko {
                    KoRule::None => {}
                    KoRule::Simple => {
                        check!(self, k < 2 || now != history[k - 2], "{ctx}: ko repeated")
                    }
                    KoRule::Positional => {
                        check!(self, !history.contains(&now), "{ctx}: superko repeated")
                    }
                }
            }
            Variant::Loose => {
                for &h in &heads {
                    check!(self, has_true_liberty(b, h), "{ctx}: group without a true liberty\n{g}");
                }
                check!(self, me_after + opp_after == me_before + opp_before + 1, "{ctx}: not one more stone");
                check!(self, me_after > me_before, "{ctx}: own stones");
            }
            Variant::Sligo => {
                for &h in &heads {
                    check!(self, b.libs(h) > 0, "{ctx}: chain without liberty\n{g}");
                }
                for c in [Color::Black, Color::White] {
                    check!(self, !has_weak_pair(b, c), "{ctx}: weak pair of {c:?}\n{g}");
                }
                check!(self, me_after == me_before + 1, "{ctx}: own stones");
                check!(self, opp_after <= opp_before, "{ctx}: enemy stones");
                if history.contains(&now) {
                    self.stats.repetitions += 1;
                }
            }
        }
    }

    /// The outcome of a finished game follows from the totals and the tie rules.
    fn outcome(&mut self, g: &GameState, ctx: &str) {
        let s = g.score();
        let rules = g.rules();
        let want = if s.black > s.white {
            Outcome::Black
        } else if s.black < s.white {
            Outcome::White
        } else if rules.variant == Variant::Loose {
            match g.last_placer() {
                Some(Color::Black) => Outcome::White,
                _ => Outcome::Black,
            }
        } else {
            Outcome::Draw
        };
        check!(self, s.winner == want, "{ctx}: winner {:?} for {s:?}", s.winner);
        check!(self, g.outcome() == want, "{ctx}: outcome()");
        let komi = rules.komi.as_f64();
        let area = g.geo().area() as f64;
        let b = g.board();
        let stones = (b.stone_count(Color::Black) + b.stone_count(Color::White)) as f64;
        match rules.variant {
            Variant::Loose => {
                check!(self, s.black + s.white - komi == stones, "{ctx}: Loose totals")
            }
            _ if rules.scoring == hane_engine::rules::Scoring::Area => {
                check!(self, s.black + s.white - komi <= area, "{ctx}: area totals")
            }
            _ => {}
        }
        let mut none = Vec::new();
        g.legal_actions(&mut none);
        check!(self, none.is_empty(), "{ctx}: legal actions after the end");
        check!(self, g.clone().play(Action::Pass).is_err(), "{ctx}: play after the end");
    }

    /// Plays one random game of at most `budget` actions; returns the actions played.
    fn game(&mut self, rules: Rules, budget: u64, label: &str) -> u64 {
        self.stats.games += 1;
        let game_no = self.stats.games;
        let uniform = self.rng.below(3) == 0;
        let mut g = GameState::new(rules);
        let mut history = vec![Grid::of(g.board())];
        let mut turn_start = g.clone();
        let mut slide = None;
        let mut played = 0;
        self.state_hash(&g, label);
        while !g.is_over() && played < budget {
            let ctx = format!(
                "{label} game {game_no} turn {} ({})",
                g.turns(),
                if uniform { "uniform" } else { "light" }
            );
            let listed = self.legality(&g, &history, &ctx);
            let a = if uniform {
                listed[self.rng.below(listed.len())]
            } else {
                random_light_action(&g, &mut self.rng)
            };
            // Into the last copy (of this or an earlier game) or into a new game, which holds
            // nothing the copy could leave behind.
            let mut unchecked = match self.scratch.take() {
                Some(s) if self.rng.below(2) == 0 => s,
                _ => GameState::new(*g.rules()),
            };
            unchecked.clone_from(&g);
            let mut copied = Vec::new();
            unchecked.legal_actions(&mut copied);
            check!(self, copied == listed, "{ctx}: a clone_from copy lists other legal actions");
            unchecked.play_unchecked(a);
            if let Err(e) = g.play(a) {
                panic!("{ctx}: chosen {a:?} refused: {e}\n{g}");
            }
            played += 1;
            self.stats.actions += 1;
            check!(
                self,
                unchecked.board().rows() == g.board().rows()
                    && unchecked.state_hash() == g.state_hash()
                    && unchecked.turns() == g.turns()
                    && unchecked.captured(Color::Black) == g.captured(Color::Black)
                    && unchecked.captured(Color::White) == g.captured(Color::White),
                "{ctx}: play and play_unchecked of {a:?} differ"
            );
            if let Err(e) = unchecked.board().check_consistency() {
                panic!("{ctx}: play_unchecked on a clone_from copy left the board inconsistent: {e}\n{g}");
            }
            self.scratch = Some(unchecked);
            self.board(&g, &ctx);
            self.state_hash(&g, &ctx);
            match (a, g.phase()) {
                (Action::NoSlide, _) => slide = None,
                (Action::Slide(..), Phase::Place(s)) => slide = s,
                _ => {
                    let placed = match a {
                        Action::Place(q) => Some(q),
                        _ => None,
                    };
                    self.turn(&turn_start, slide, placed, &g, &history, &ctx);
                    history.push(Grid::of(g.board()));
                    self.stats.turns += 1;
                    turn_start = g.clone();
                    slide = None;
                    let cap = g.turns() >= g.rules().max_turns();
                    check!(self, g.is_over() == (g.passes() >= 2 || cap), "{ctx}: is_over");
                }
            }
        }
        if g.is_over() {
            self.stats.finished += 1;
            self.outcome(&g, label);
        }
        played
    }
}

/// Plays the preset's share of the actions (spread evenly over its sizes) and prints the counts.
fn stress_preset(preset: &str) {
    let big = env_u64("HANE_STRESS_MOVES");
    let seed = env_u64("HANE_STRESS_SEED").unwrap_or(0x5EED);
    let sizes: Vec<u8> = SIZES.into_iter().filter(|&n| Rules::preset_sized(preset, n).is_ok()).collect();
    let per_preset = big.map_or(DEFAULT_PER_PRESET, |n| n / PRESETS.len() as u64);
    let per_size = per_preset / sizes.len() as u64;
    let pi = PRESETS.iter().position(|&p| p == preset).unwrap() as u64;
    let t0 = Instant::now();
    let mut ck = Checker::new(seed ^ (pi << 32));
    for &n in &sizes {
        let rules = Rules::preset_sized(preset, n).unwrap();
        let label = format!("{preset} {n}x{n} seed {seed:#x}");
        let mut left = per_size;
        while left > 0 {
            left -= ck.game(rules, left, &label).max(1).min(left);
        }
    }
    let s = &ck.stats;
    println!(
        "{preset:>12} sizes {sizes:?}: {} actions ({} turns) in {} games ({} finished), \
         {} legality checks ({} full Sligo turn sets), {} assertions, 0 violations, \
         {} Sligo repetitions, {:.2}s",
        s.actions,
        s.turns,
        s.games,
        s.finished,
        s.legal_checks,
        s.full_sligo_checks,
        s.checks,
        s.repetitions,
        t0.elapsed().as_secs_f64()
    );
    assert!(s.actions >= per_size * sizes.len() as u64 / 2);
}

#[test]
fn stress_ttakji() {
    stress_preset("ttakji");
}

#[test]
fn stress_brainking() {
    stress_preset("brainking");
}

#[test]
fn stress_loose() {
    stress_preset("loose");
}

#[test]
fn stress_sligo() {
    stress_preset("sligo");
}

#[test]
fn stress_chinese() {
    stress_preset("chinese");
}

#[test]
fn stress_japanese() {
    stress_preset("japanese");
}

#[test]
fn stress_tromp_taylor() {
    stress_preset("tromp-taylor");
}
