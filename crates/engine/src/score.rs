//! Counting: area, territory and stone scoring, dead-stone determination (Benson pass-alive
//! analysis, seeded playout ownership) and Loose's true liberties.
//!
//! Every total is kept in half-points internally so komi is exact.

use crate::board::{is_true_eye, Board, Color, PointSet, BLACK, EMPTY, WALL, WHITE};
use crate::point::{Point, MAX_CELLS};
use crate::rng::Rng;
use crate::rules::{DeadStones, Rules, Scoring, Variant};

/// What counting needs from a game; [`GameState`](crate::GameState) implements it. Counting
/// takes the game through this trait so that the game, which counts when it ends, and
/// counting do not depend on each other.
pub trait Countable {
    /// The rules: scoring method, komi, dead-stone method and Loose's tie-break.
    fn rules(&self) -> &Rules;
    /// The board to count: the position at the start of the current turn.
    fn turn_start_board(&self) -> Board;
    /// Stones of `c` captured by the opponent so far (territory scoring subtracts them).
    fn captured(&self, c: Color) -> u32;
    /// Who made the last placement (Loose's tie-break).
    fn last_placer(&self) -> Option<Color>;
}

/// Who won a finished (or hypothetically finished) game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Black won.
    Black,
    /// White won.
    White,
    /// Equal totals where the rules allow a draw.
    Draw,
}

impl Outcome {
    /// `b`, `w` or `draw`.
    pub fn letter(self) -> &'static str {
        match self {
            Outcome::Black => "b",
            Outcome::White => "w",
            Outcome::Draw => "draw",
        }
    }

    /// +1 for a win of `c`, -1 for a loss, 0 for a draw.
    pub fn value_for(self, c: Color) -> f32 {
        match (self, c) {
            (Outcome::Draw, _) => 0.0,
            (Outcome::Black, Color::Black) | (Outcome::White, Color::White) => 1.0,
            _ => -1.0,
        }
    }
}

/// Totals of both sides (White's includes komi) and the winner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Score {
    /// Black's total.
    pub black: f64,
    /// White's total, komi included.
    pub white: f64,
    /// Who wins with these totals under the rules' tie-break.
    pub winner: Outcome,
}

impl Score {
    /// Black's total minus White's.
    pub fn margin_black(&self) -> f64 {
        self.black - self.white
    }
}

/// Loose: whether the empty point `e` is a true liberty (it has an empty neighbour, or does
/// not touch both colours).
#[inline]
pub fn is_true_liberty(b: &Board, e: Point) -> bool {
    b.has_empty_neighbour(e) || !(b.has_neighbour(e, Color::Black) && b.has_neighbour(e, Color::White))
}

/// Loose: whether the chain through `p` has a true liberty.
pub fn has_true_liberty(b: &Board, p: Point) -> bool {
    b.chain_stones(p).any(|s| b.adj(s).into_iter().any(|e| b.at(e) == EMPTY && is_true_liberty(b, e)))
}

/// Result of Benson's analysis for one colour.
#[derive(Debug)]
pub struct PassAlive {
    /// Stones of the colour that can never be captured, even if it always passes.
    pub stones: PointSet,
    /// Points (empty or opponent stones) where the opponent can never live.
    pub territory: PointSet,
}

/// Benson's algorithm for colour `c`: pass-alive chains and pass-alive territory.
///
/// Regions are maximal connected sets of points without a `c` stone. A region is vital to a
/// bordering chain when each of its empty points is a liberty of that chain. Starting from all
/// chains and all regions, chains with fewer than two vital regions (among regions whose
/// bordering chains all survive) are dropped until nothing changes. A surviving region is
/// territory when all its bordering chains survive and at most one of its points (empty or an
/// opponent stone) has no neighbour of colour `c`: the opponent can then never get two eyes there,
/// and `c` can fill every other point safely and capture everything inside. This is the
/// pass-alive territory of KataGo's area calculation (checked against its test positions in
/// `tests/rules_examples.rs`).
pub fn pass_alive(b: &Board, c: Color) -> PassAlive {
    let geo = b.geo();
    const NONE: u16 = u16::MAX;
    let mut region_of = [NONE; MAX_CELLS];
    // Per region: its points, and the distinct bordering chain heads.
    let mut regions: Vec<(Vec<Point>, Vec<Point>)> = Vec::new();
    for p in geo.points() {
        if b.at(p) == c.cell() || region_of[p.idx()] != NONE {
            continue;
        }
        let id = regions.len() as u16;
        let mut pts = vec![p];
        let mut border = Vec::new();
        region_of[p.idx()] = id;
        let mut i = 0;
        while i < pts.len() {
            let x = pts[i];
            i += 1;
            for q in b.adj(x) {
                let v = b.at(q);
                if v == WALL {
                    continue;
                }
                if v == c.cell() {
                    let h = b.chain(q);
                    if !border.contains(&h) {
                        border.push(h);
                    }
                } else if region_of[q.idx()] == NONE {
                    region_of[q.idx()] = id;
                    pts.push(q);
                }
            }
        }
        regions.push((pts, border));
    }
    // Vital: region -> chains it is vital to.
    let vital: Vec<Vec<Point>> = regions
        .iter()
        .map(|(pts, border)| {
            border
                .iter()
                .copied()
                .filter(|&h| {
                    pts.iter()
                        .filter(|&&e| b.at(e) == EMPTY)
                        .all(|&e| b.adj(e).into_iter().any(|q| b.at(q) == c.cell() && b.chain(q) == h))
                })
                .collect()
        })
        .collect();
    let mut heads: Vec<Point> = geo.points().filter(|&p| b.at(p) == c.cell() && b.chain(p) == p).collect();
    loop {
        let alive = |h: &Point| heads.contains(h);
        let region_ok: Vec<bool> = regions.iter().map(|(_, border)| border.iter().all(alive)).collect();
        let before = heads.len();
        let keep: Vec<Point> = heads
            .iter()
            .copied()
            .filter(|h| (0..regions.len()).filter(|&r| region_ok[r] && vital[r].contains(h)).count() >= 2)
            .collect();
        heads = keep;
        if heads.len() == before {
            break;
        }
    }
    let mut stones = PointSet::default();
    for &h in &heads {
        for s in b.chain_stones(h) {
            stones.insert(s);
        }
    }
    let mut territory = PointSet::default();
    for (pts, border) in &regions {
        let enclosed = !border.is_empty() && border.iter().all(|h| heads.contains(h));
        let internal = pts.iter().filter(|&&e| b.adj(e).into_iter().all(|q| b.at(q) != c.cell())).count();
        if enclosed && internal <= 1 {
            for &p in pts {
                territory.insert(p);
            }
        }
    }
    PassAlive { stones, territory }
}

/// The dead stones of a position under the rules' dead-stone method.
pub fn dead_stones(g: &impl Countable, b: &Board) -> PointSet {
    let mut dead = PointSet::default();
    match g.rules().dead {
        DeadStones::None => {}
        DeadStones::PassAlive => {
            for c in [Color::Black, Color::White] {
                let pa = pass_alive(b, c);
                for p in b.geo().points() {
                    if b.at(p) == c.opp().cell() && pa.territory.contains(p) {
                        dead.insert(p);
                    }
                }
            }
        }
        DeadStones::Playouts => dead = dead_by_playouts(b),
    }
    dead
}

/// Number of playouts behind [`dead_by_playouts`].
pub const DEAD_PLAYOUTS: usize = 96;

/// Dead stones for machine play under territory scoring.
///
/// 1. Benson for both colours: stones inside the opponent's pass-alive territory are dead,
///    pass-alive stones are alive.
/// 2. Every other chain is judged by [`DEAD_PLAYOUTS`] uniformly random light playouts from
///    the position (area rules, no suicide, simple ko, never filling a true eye; half of them
///    with each side to move first), seeded from the position's hash so the result is
///    repeatable. A chain is dead when, averaged over its stones and the playouts, the
///    opponent owns its points at the end more often than not.
///
/// Random playouts do not understand seki or some tight semeai; those are the positions where
/// this method and a careful human count can differ (see the tests against GNU Go).
pub fn dead_by_playouts(b: &Board) -> PointSet {
    let geo = b.geo();
    let mut dead = PointSet::default();
    let mut settled = PointSet::default();
    for c in [Color::Black, Color::White] {
        let pa = pass_alive(b, c);
        for p in geo.points() {
            if pa.stones.contains(p) {
                settled.insert(p);
            } else if b.at(p) == c.opp().cell() && pa.territory.contains(p) {
                dead.insert(p);
                settled.insert(p);
            }
        }
    }
    let open: Vec<Point> = geo.points().filter(|&p| b.at(p) != EMPTY && !settled.contains(p)).collect();
    if open.is_empty() {
        return dead;
    }
    let mut own = [0i32; MAX_CELLS];
    let mut rng = Rng::new(b.hash() ^ 0x00DE_AD57);
    let cap = 4 * geo.area() + 50;
    let mut end = b.clone();
    for i in 0..DEAD_PLAYOUTS {
        let first = if i % 2 == 0 { Color::Black } else { Color::White };
        end.clone_from(b);
        light_playout_board(&mut end, first, &mut rng, cap);
        for &p in &open {
            match area_owner(&end, p) {
                Some(Color::Black) => own[p.idx()] += 1,
                Some(Color::White) => own[p.idx()] -= 1,
                None => {}
            }
        }
    }
    let mut judged = PointSet::default();
    for &p in &open {
        if judged.contains(p) {
            continue;
        }
        let c = b.color(p).expect("stone");
        let stones: Vec<Point> = b.chain_stones(p).collect();
        let total: i32 = stones.iter().map(|s| own[s.idx()]).sum();
        let mine = if c == Color::Black { total } else { -total };
        for &s in &stones {
            judged.insert(s);
            if mine < 0 {
                dead.insert(s);
            }
        }
    }
    dead
}

/// The score with exactly the stones of `dead` removed (judged by a player, not by the
/// rules' automatic method).
pub fn score_judged(g: &impl Countable, dead: &PointSet) -> Score {
    let b = g.turn_start_board();
    to_score(g, totals(g, &b, dead))
}

/// Plays random legal moves (no suicide, simple ko, never filling a true eye) on `b` until
/// two passes or `cap` moves.
fn light_playout_board(b: &mut Board, first: Color, rng: &mut Rng, cap: usize) {
    let mut to_move = first;
    let mut passes = 0;
    let mut ko: Option<Point> = None;
    for _ in 0..cap {
        let n = b.empty_count();
        let start = if n > 0 { rng.below(n) } else { 0 };
        let mut chosen = None;
        for k in 0..n {
            let p = b.empty_at((start + k) % n);
            if Some(p) != ko && !is_true_eye(b, p, to_move) && b.go_legal_no_suicide(p, to_move) {
                chosen = Some(p);
                break;
            }
        }
        match chosen {
            Some(p) => {
                passes = 0;
                let captured = b.play_go(p, to_move);
                // A single-stone capture by a lone stone with one liberty is a ko.
                ko = None;
                if captured == 1 && b.chain_len(p) == 1 {
                    ko = b.atari_point(p);
                }
            }
            None => {
                passes += 1;
                ko = None;
                if passes == 2 {
                    break;
                }
            }
        }
        to_move = to_move.opp();
    }
}

/// Tromp-Taylor owner of a point: its stone's colour, or the only colour its empty region
/// reaches.
fn area_owner(b: &Board, p: Point) -> Option<Color> {
    if let Some(c) = b.color(p) {
        return Some(c);
    }
    let mut seen = PointSet::default();
    let mut stack = vec![p];
    seen.insert(p);
    let mut reach = 0u8;
    while let Some(x) = stack.pop() {
        for q in b.adj(x) {
            match b.at(q) {
                EMPTY if seen.insert(q) => stack.push(q),
                BLACK => reach |= 1,
                WHITE => reach |= 2,
                _ => {}
            }
        }
    }
    match reach {
        1 => Some(Color::Black),
        2 => Some(Color::White),
        _ => None,
    }
}

/// Owner of every point (dense order) after removing `dead`: stones and empty regions that
/// reach only one colour.
pub fn owners(b: &Board, dead: &PointSet) -> Vec<Option<Color>> {
    let geo = b.geo();
    let mut clean = b.clone();
    for p in geo.points() {
        if dead.contains(p) && clean.at(p) != EMPTY {
            clean.remove_chain(p);
        }
    }
    let mut out = vec![None; geo.area()];
    let mut done = PointSet::default();
    for p in geo.points() {
        if done.contains(p) {
            continue;
        }
        if let Some(c) = clean.color(p) {
            out[geo.dense(p)] = Some(c);
            continue;
        }
        // Flood the empty region once and give all of it the same owner.
        let mut region = vec![p];
        done.insert(p);
        let mut reach = 0u8;
        let mut i = 0;
        while i < region.len() {
            let x = region[i];
            i += 1;
            for q in clean.adj(x) {
                match clean.at(q) {
                    EMPTY if done.insert(q) => region.push(q),
                    BLACK => reach |= 1,
                    WHITE => reach |= 2,
                    _ => {}
                }
            }
        }
        let owner = match reach {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        };
        for x in region {
            out[geo.dense(x)] = owner;
        }
    }
    out
}

/// Totals in half-points (Black, White with komi) from a board and a dead-stone set.
fn totals(g: &impl Countable, b: &Board, dead: &PointSet) -> (i32, i32) {
    let geo = b.geo();
    let komi = g.rules().komi.0;
    match g.rules().scoring {
        Scoring::Stones => {
            (2 * b.stone_count(Color::Black) as i32, 2 * b.stone_count(Color::White) as i32 + komi)
        }
        Scoring::Area => {
            let own = owners(b, dead);
            let count = |c| 2 * own.iter().filter(|&&o| o == Some(c)).count() as i32;
            (count(Color::Black), count(Color::White) + komi)
        }
        Scoring::Territory => {
            let own = owners(b, dead);
            let territory = |c: Color| {
                geo.points()
                    .filter(|&p| own[geo.dense(p)] == Some(c) && (b.at(p) == EMPTY || dead.contains(p)))
                    .count() as i32
            };
            let dead_of =
                |c: Color| geo.points().filter(|&p| dead.contains(p) && b.color(p) == Some(c)).count() as i32;
            let side = |c: Color| territory(c) - g.captured(c) as i32 - dead_of(c);
            (2 * side(Color::Black), 2 * side(Color::White) + komi)
        }
    }
}

fn decide(g: &impl Countable, black: i32, white: i32) -> Outcome {
    use std::cmp::Ordering::*;
    match black.cmp(&white) {
        Greater => Outcome::Black,
        Less => Outcome::White,
        Equal if g.rules().variant == Variant::Loose => match g.last_placer() {
            // A tie goes against whoever made the last placement; White if nobody placed.
            Some(c) => match c.opp() {
                Color::Black => Outcome::Black,
                Color::White => Outcome::White,
            },
            None => Outcome::Black,
        },
        Equal => Outcome::Draw,
    }
}

fn to_score(g: &impl Countable, (black, white): (i32, i32)) -> Score {
    Score { black: f64::from(black) / 2.0, white: f64::from(white) / 2.0, winner: decide(g, black, white) }
}

/// The score of the game if it ended now, with the rules' automatic dead-stone method.
pub fn score(g: &impl Countable) -> Score {
    let b = g.turn_start_board();
    let dead = dead_stones(g, &b);
    to_score(g, totals(g, &b, &dead))
}

/// The score with an explicit list of dead stones (human marking, GTP `final_status_list`).
/// Marking one stone marks every stone of its colour in the region the opponent encloses.
pub fn score_with_dead(g: &impl Countable, marked: &[Point]) -> Score {
    let b = g.turn_start_board();
    let dead = expand_dead(&b, marked);
    to_score(g, totals(g, &b, &dead))
}

/// Expands marked stones to their enclosed groups: all stones of the marked colour reachable
/// through empty points and stones of that colour.
pub fn expand_dead(b: &Board, marked: &[Point]) -> PointSet {
    let mut dead = PointSet::default();
    for &m in marked {
        if !b.geo().on_board(m) {
            continue;
        }
        let Some(c) = b.color(m) else { continue };
        let mut seen = PointSet::default();
        let mut stack = vec![m];
        seen.insert(m);
        while let Some(x) = stack.pop() {
            if b.at(x) == c.cell() {
                dead.insert(x);
            }
            for q in b.adj(x) {
                let v = b.at(q);
                if (v == EMPTY || v == c.cell()) && seen.insert(q) {
                    stack.push(q);
                }
            }
        }
    }
    dead
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A position to count, without a game behind it.
    struct Position {
        rules: Rules,
        board: Board,
    }

    impl Countable for Position {
        fn rules(&self) -> &Rules {
            &self.rules
        }
        fn turn_start_board(&self) -> Board {
            self.board.clone()
        }
        fn captured(&self, _: Color) -> u32 {
            0
        }
        fn last_placer(&self) -> Option<Color> {
            None
        }
    }

    #[test]
    fn a_judged_score_removes_exactly_the_stones_given() {
        // Black walls off columns A-B, White D-E; White's stone at A3 sits in Black's area.
        let board = Board::from_rows(&[".X.O.", ".X.O.", "OX.O.", ".X.O.", ".X.O."]).unwrap();
        let a3 = board.geo().parse("A3").unwrap();
        let dead = dead_by_playouts(&board);
        assert!(dead.contains(a3));
        assert_eq!(board.geo().points().filter(|&p| dead.contains(p)).count(), 1, "the walls live");
        let g = Position { rules: "chinese,size=5,komi=0".parse().unwrap(), board };
        let s = score_judged(&g, &dead);
        assert_eq!((s.black, s.white), (10.0, 10.0), "column C is dame");
        let kept = score_judged(&g, &PointSet::default());
        assert_eq!((kept.black, kept.white), (5.0, 11.0), "the white stone counts while alive");
    }
}
