//! The fast board: stones, chains with exact liberty counts, an empty-point list and an
//! incremental Zobrist hash. No history and no rules beyond the mechanics of placing,
//! removing and recolouring stones; the rule sets in `game` are built from these operations.
//!
//! Chains are circular linked lists over the padded array (`next`), with every stone pointing
//! at its chain's head (`head`); the head carries the stone and liberty counts. Everything is a
//! fixed-size array, so cloning a board is a plain copy. [`Board::check_consistency`] rebuilds
//! all of it from the colours alone and is the oracle the tests compare against.

use crate::point::{Geometry, Point, MAX_CELLS, MAX_SIZE};
use crate::zobrist;
use std::fmt;

/// Cell contents: empty.
pub const EMPTY: u8 = 0;
/// Cell contents: a black stone.
pub const BLACK: u8 = 1;
/// Cell contents: a white stone.
pub const WHITE: u8 = 2;
/// Cell contents: the wall around the board.
pub const WALL: u8 = 3;

/// A player / stone colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    /// Moves first.
    Black,
    /// Receives komi.
    White,
}

impl Color {
    /// The other colour.
    #[inline(always)]
    pub fn opp(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }

    /// The cell value of this colour's stones.
    #[inline(always)]
    pub fn cell(self) -> u8 {
        self as u8 + 1
    }

    /// 0 for Black, 1 for White.
    #[inline(always)]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The colour of a stone cell value.
    pub fn of_cell(c: u8) -> Option<Color> {
        match c {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }

    /// `b` or `w`.
    pub fn letter(self) -> char {
        match self {
            Color::Black => 'b',
            Color::White => 'w',
        }
    }
}

/// A small set of up to four chain heads, for de-duplicating the neighbours of a point.
#[derive(Default)]
struct Heads {
    h: [u16; 4],
    n: usize,
}

impl Heads {
    #[inline(always)]
    fn insert(&mut self, x: u16) -> bool {
        if self.h[..self.n].contains(&x) {
            return false;
        }
        self.h[self.n] = x;
        self.n += 1;
        true
    }
}

/// A set of padded indices, as a fixed bitset (no allocation).
#[derive(Clone, Copy)]
pub struct PointSet([u64; MAX_CELLS.div_ceil(64)]);

impl Default for PointSet {
    fn default() -> Self {
        PointSet([0; MAX_CELLS.div_ceil(64)])
    }
}

impl PointSet {
    /// Adds `p`; returns whether it was new.
    #[inline(always)]
    pub fn insert(&mut self, p: Point) -> bool {
        let (w, b) = (p.idx() / 64, p.idx() % 64);
        let new = self.0[w] & (1 << b) == 0;
        self.0[w] |= 1 << b;
        new
    }

    /// Whether `p` is in the set.
    #[inline(always)]
    pub fn contains(&self, p: Point) -> bool {
        self.0[p.idx() / 64] & (1 << (p.idx() % 64)) != 0
    }
}

/// Stones, chains, liberties and hash of one position (see the module docs).
#[derive(Clone)]
pub struct Board {
    geo: Geometry,
    cells: [u8; MAX_CELLS],
    head: [u16; MAX_CELLS],
    next: [u16; MAX_CELLS],
    /// Liberty count, valid at chain heads.
    libs: [u16; MAX_CELLS],
    /// Stone count, valid at chain heads.
    stones: [u16; MAX_CELLS],
    empties: [u16; MAX_SIZE * MAX_SIZE],
    empty_pos: [u16; MAX_CELLS],
    n_empty: u16,
    count: [u16; 2],
    hash: u64,
}

impl Board {
    /// An empty board of side `size` (1..=19).
    pub fn new(size: u8) -> Board {
        let geo = Geometry::new(size);
        let mut b = Board {
            geo,
            cells: [WALL; MAX_CELLS],
            head: [0; MAX_CELLS],
            next: [0; MAX_CELLS],
            libs: [0; MAX_CELLS],
            stones: [0; MAX_CELLS],
            empties: [0; MAX_SIZE * MAX_SIZE],
            empty_pos: [0; MAX_CELLS],
            n_empty: 0,
            count: [0; 2],
            hash: 0,
        };
        for p in geo.points() {
            b.cells[p.idx()] = EMPTY;
            b.push_empty(p);
        }
        b
    }

    /// The board's geometry.
    #[inline(always)]
    pub fn geo(&self) -> Geometry {
        self.geo
    }

    /// Side length.
    #[inline(always)]
    pub fn size(&self) -> usize {
        self.geo.size()
    }

    /// Cell value at `p` (`EMPTY`, `BLACK`, `WHITE` or `WALL`).
    #[inline(always)]
    pub fn at(&self, p: Point) -> u8 {
        self.cells[p.idx()]
    }

    /// The colour of the stone at `p`, if any.
    pub fn color(&self, p: Point) -> Option<Color> {
        Color::of_cell(self.at(p))
    }

    /// Zobrist hash of the stones (whose turn it is is not included).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Number of stones of colour `c`.
    #[inline(always)]
    pub fn stone_count(&self, c: Color) -> usize {
        self.count[c.index()] as usize
    }

    /// The empty points, in no particular order.
    #[inline(always)]
    pub fn empties(&self) -> impl ExactSizeIterator<Item = Point> + '_ {
        self.empties[..self.n_empty as usize].iter().map(|&i| Point(i))
    }

    /// Number of empty points.
    #[inline(always)]
    pub fn empty_count(&self) -> usize {
        self.n_empty as usize
    }

    /// The `i`-th entry of the empty-point list (`i < empty_count()`).
    #[inline(always)]
    pub fn empty_at(&self, i: usize) -> Point {
        Point(self.empties[i])
    }

    /// The four orthogonal neighbours of `p` (some may be wall cells).
    #[inline(always)]
    pub fn adj(&self, p: Point) -> [Point; 4] {
        let s = self.geo.stride() as u16;
        [Point(p.0 - s), Point(p.0 - 1), Point(p.0 + 1), Point(p.0 + s)]
    }

    /// Head of the chain through the stone at `p`.
    #[inline(always)]
    pub fn chain(&self, p: Point) -> Point {
        Point(self.head[p.idx()])
    }

    /// Liberties of the chain through the stone at `p`.
    #[inline(always)]
    pub fn libs(&self, p: Point) -> usize {
        self.libs[self.head[p.idx()] as usize] as usize
    }

    /// Stones in the chain through the stone at `p`.
    #[inline(always)]
    pub fn chain_len(&self, p: Point) -> usize {
        self.stones[self.head[p.idx()] as usize] as usize
    }

    /// The stones of the chain through `p`.
    pub fn chain_stones(&self, p: Point) -> ChainIter<'_> {
        ChainIter { board: self, start: p.0, cur: p.0, done: false }
    }

    /// Whether the empty point `p` is surrounded on all sides by stones of `c` or the wall.
    #[inline(always)]
    pub fn is_eye_shape(&self, p: Point, c: Color) -> bool {
        self.adj(p).iter().all(|&n| {
            let v = self.at(n);
            v == c.cell() || v == WALL
        })
    }

    fn push_empty(&mut self, p: Point) {
        self.empty_pos[p.idx()] = self.n_empty;
        self.empties[self.n_empty as usize] = p.0;
        self.n_empty += 1;
    }

    fn pop_empty(&mut self, p: Point) {
        let i = self.empty_pos[p.idx()] as usize;
        self.n_empty -= 1;
        let last = self.empties[self.n_empty as usize];
        self.empties[i] = last;
        self.empty_pos[last as usize] = i as u16;
    }

    fn set_cell(&mut self, p: Point, v: u8) {
        let old = self.cells[p.idx()];
        if let Some(c) = Color::of_cell(old) {
            self.hash ^= zobrist::STONE[c.index()][p.idx()];
            self.count[c.index()] -= 1;
        }
        if let Some(c) = Color::of_cell(v) {
            self.hash ^= zobrist::STONE[c.index()][p.idx()];
            self.count[c.index()] += 1;
        }
        if old == EMPTY && v != EMPTY {
            self.pop_empty(p);
        } else if old != EMPTY && v == EMPTY {
            self.push_empty(p);
        }
        self.cells[p.idx()] = v;
    }

    /// Counts the distinct empty neighbours of a chain, from scratch.
    fn count_libs(&self, h: Point) -> u16 {
        let mut seen = PointSet::default();
        let mut n = 0;
        for s in self.chain_stones(h) {
            for q in self.adj(s) {
                if self.at(q) == EMPTY && seen.insert(q) {
                    n += 1;
                }
            }
        }
        n
    }

    /// Joins the chains with heads `a` and `b`; returns the surviving head. The merged liberty
    /// count is exact provided both counts were: the smaller chain's liberties that do not
    /// touch the bigger chain are added to the bigger one's.
    fn merge(&mut self, a: u16, b: u16) -> u16 {
        let (big, small) = if self.stones[a as usize] >= self.stones[b as usize] { (a, b) } else { (b, a) };
        let col = self.cells[big as usize];
        let new_lib = |e: Point| {
            self.at(e) == EMPTY
                && !self.adj(e).iter().any(|&q| self.at(q) == col && self.head[q.idx()] == big)
        };
        let mut extra = 0;
        if self.stones[small as usize] == 1 {
            // The common case, a lone stone joining: its neighbours are distinct points.
            extra = self.adj(Point(small)).into_iter().filter(|&e| new_lib(e)).count() as u16;
        } else {
            let mut seen = PointSet::default();
            let mut s = small;
            loop {
                for e in self.adj(Point(s)) {
                    if self.at(e) == EMPTY && seen.insert(e) && new_lib(e) {
                        extra += 1;
                    }
                }
                s = self.next[s as usize];
                if s == small {
                    break;
                }
            }
        }
        let mut s = small;
        loop {
            self.head[s as usize] = big;
            s = self.next[s as usize];
            if s == small {
                break;
            }
        }
        self.next.swap(big as usize, small as usize);
        self.stones[big as usize] += self.stones[small as usize];
        self.libs[big as usize] += extra;
        big
    }

    /// Puts a stone of `c` on the empty point `p`, merging chains and taking `p` from the
    /// neighbours' liberties. Nothing is captured: afterwards some chains may have no liberty.
    pub fn put(&mut self, p: Point, c: Color) {
        debug_assert_eq!(self.at(p), EMPTY);
        self.set_cell(p, c.cell());
        self.head[p.idx()] = p.0;
        self.next[p.idx()] = p.0;
        self.stones[p.idx()] = 1;
        // Every distinct neighbouring chain loses the liberty p.
        let mut chains = Heads::default();
        let mut libs = 0;
        for q in self.adj(p) {
            match self.at(q) {
                EMPTY => libs += 1,
                WALL => {}
                _ => {
                    if chains.insert(self.head[q.idx()]) {
                        self.libs[self.head[q.idx()] as usize] -= 1;
                    }
                }
            }
        }
        self.libs[p.idx()] = libs;
        let mut h = p.0;
        for q in self.adj(p) {
            if self.at(q) == c.cell() && self.head[q.idx()] != h {
                h = self.merge(h, self.head[q.idx()]);
            }
        }
    }

    /// Removes the whole chain through `p`; returns the number of stones removed.
    pub fn remove_chain(&mut self, p: Point) -> usize {
        let h = self.head[p.idx()];
        let n = self.stones[h as usize] as usize;
        let mut s = h;
        loop {
            let nx = self.next[s as usize];
            self.set_cell(Point(s), EMPTY);
            s = nx;
            if s == h {
                break;
            }
        }
        // Every removed point is a new liberty of each distinct chain next to it.
        let mut s = h;
        loop {
            let mut heads = Heads::default();
            for q in self.adj(Point(s)) {
                if matches!(self.at(q), BLACK | WHITE) && heads.insert(self.head[q.idx()]) {
                    self.libs[self.head[q.idx()] as usize] += 1;
                }
            }
            s = self.next[s as usize];
            if s == h {
                break;
            }
        }
        n
    }

    /// Removes the chains of colour `c` next to `p` that have no liberty; returns the number of
    /// stones removed.
    pub fn capture_around(&mut self, p: Point, c: Color) -> usize {
        let mut n = 0;
        for q in self.adj(p) {
            if self.at(q) == c.cell() && self.libs(q) == 0 {
                n += self.remove_chain(q);
            }
        }
        n
    }

    /// Removes a single stone, splitting its chain if needed.
    pub fn remove_stone(&mut self, p: Point) {
        let c = self.color(p).expect("remove_stone on an empty point");
        let mut rest = Vec::with_capacity(self.chain_len(p));
        rest.extend(self.chain_stones(p).filter(|&s| s != p));
        self.set_cell(p, EMPTY);
        let mut heads = Heads::default();
        for q in self.adj(p) {
            if self.at(q) == c.opp().cell() && heads.insert(self.head[q.idx()]) {
                self.libs[self.head[q.idx()] as usize] += 1;
            }
        }
        // Re-chain what is left of the old chain, one flood fill per component.
        for &s in &rest {
            self.head[s.idx()] = 0;
        }
        for &s in &rest {
            if self.head[s.idx()] == 0 {
                self.flood_chain(s);
            }
        }
    }

    /// Builds the chain through the stone `s` by flood fill, with `s` as head.
    fn flood_chain(&mut self, s: Point) {
        let v = self.at(s);
        let mut stack = vec![s];
        self.head[s.idx()] = s.0;
        self.next[s.idx()] = s.0;
        self.stones[s.idx()] = 1;
        while let Some(x) = stack.pop() {
            for q in self.adj(x) {
                if self.at(q) == v && self.head[q.idx()] != s.0 {
                    self.head[q.idx()] = s.0;
                    self.next[q.idx()] = self.next[s.idx()];
                    self.next[s.idx()] = q.0;
                    self.stones[s.idx()] += 1;
                    stack.push(q);
                }
            }
        }
        self.libs[s.idx()] = self.count_libs(s);
    }

    /// Changes the colour of the whole chain through `p` and merges it with the chains of its
    /// new colour that it touches (Loose's flip). Liberties do not change for anyone else.
    pub fn flip_chain(&mut self, p: Point) {
        let c = self.color(p).expect("flip_chain on an empty point").opp();
        let h = self.head[p.idx()];
        let mut s = h;
        loop {
            self.set_cell(Point(s), c.cell());
            s = self.next[s as usize];
            if s == h {
                break;
            }
        }
        let mut head = h;
        let mut s = h;
        loop {
            for q in self.adj(Point(s)) {
                if self.at(q) == c.cell() && self.head[q.idx()] != head {
                    head = self.merge(head, self.head[q.idx()]);
                }
            }
            s = self.next[s as usize];
            if s == h {
                break;
            }
        }
        self.libs[head as usize] = self.count_libs(Point(head));
    }

    /// Whether placing `c` at the empty `p` leaves the placed stone's chain a liberty after
    /// Go captures (the no-suicide test), without changing the board.
    #[inline]
    pub fn go_legal_no_suicide(&self, p: Point, c: Color) -> bool {
        for q in self.adj(p) {
            let v = self.at(q);
            if v == EMPTY {
                return true;
            }
            if v == WALL {
                continue;
            }
            let l = self.libs(q);
            if (v == c.cell()) == (l > 1) {
                // A friend with a spare liberty, or an enemy in atari that gets captured.
                return true;
            }
        }
        false
    }

    /// Whether `c` playing at the empty `p` captures something (an enemy neighbour in atari).
    #[inline]
    pub fn captures_any(&self, p: Point, c: Color) -> bool {
        self.adj(p).into_iter().any(|q| self.at(q) == c.opp().cell() && self.libs(q) == 1)
    }

    /// The stone hash with a stone of `c` added at the empty `p` (nothing captured).
    #[inline(always)]
    pub fn hash_with_stone(&self, p: Point, c: Color) -> u64 {
        self.hash ^ zobrist::STONE[c.index()][p.idx()]
    }

    /// The stone hash after `c` plays at the empty `p` with Go captures (suicide removes the
    /// mover's chain), without changing the board.
    pub fn go_hash_after(&self, p: Point, c: Color) -> u64 {
        let mut h = self.hash ^ zobrist::STONE[c.index()][p.idx()];
        let mut seen = Heads::default();
        let mut captured_any = false;
        for q in self.adj(p) {
            if self.at(q) == c.opp().cell() && self.libs(q) == 1 && seen.insert(self.head[q.idx()]) {
                captured_any = true;
                for s in self.chain_stones(q) {
                    h ^= zobrist::STONE[c.opp().index()][s.idx()];
                }
            }
        }
        if !captured_any && !self.go_legal_no_suicide(p, c) {
            // Suicide (only reachable where the rules allow it): the mover's chain goes.
            h ^= zobrist::STONE[c.index()][p.idx()];
            let mut seen = Heads::default();
            for q in self.adj(p) {
                if self.at(q) == c.cell() && seen.insert(self.head[q.idx()]) {
                    for s in self.chain_stones(q) {
                        h ^= zobrist::STONE[c.index()][s.idx()];
                    }
                }
            }
        }
        h
    }

    /// Plays a Go placement: puts the stone, captures enemy chains without liberties, then
    /// removes the mover's chain if it has none (suicide; callers forbid it where the rules
    /// do). Returns the number of enemy stones captured.
    pub fn play_go(&mut self, p: Point, c: Color) -> usize {
        self.put(p, c);
        let n = self.capture_around(p, c.opp());
        if self.libs(p) == 0 {
            self.remove_chain(p);
        }
        n
    }

    /// Rebuilds chains, liberties, the empty list, counts and hash from the colours alone and
    /// compares them with the incremental state. Returns a description of the first mismatch.
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut fresh = Board::new(self.size() as u8);
        for p in self.geo.points() {
            if let Some(c) = self.color(p) {
                fresh.set_cell(p, c.cell());
            }
        }
        for p in self.geo.points() {
            if fresh.at(p) != EMPTY {
                fresh.head[p.idx()] = 0;
            }
        }
        for p in self.geo.points() {
            if fresh.at(p) != EMPTY && fresh.head[p.idx()] == 0 {
                fresh.flood_chain(p);
            }
        }
        if fresh.hash != self.hash {
            return Err("hash differs from a recomputation".into());
        }
        if fresh.count != self.count {
            return Err(format!("stone counts {:?}, recomputed {:?}", self.count, fresh.count));
        }
        if fresh.n_empty != self.n_empty {
            return Err("empty-point count differs".into());
        }
        for p in self.geo.points() {
            if self.at(p) == EMPTY {
                let i = self.empty_pos[p.idx()] as usize;
                if i >= self.n_empty as usize || self.empties[i] != p.0 {
                    return Err(format!("empty list misses {}", self.geo.name(p)));
                }
                continue;
            }
            let (h, fh) = (self.head[p.idx()], fresh.head[p.idx()]);
            if self.at(Point(h)) != self.at(p) {
                return Err(format!("{} points at a head of another colour", self.geo.name(p)));
            }
            // Same partition: two stones share a head here iff they do in the rebuild.
            for q in self.adj(p) {
                if self.at(q) == self.at(p) && self.head[q.idx()] != h {
                    return Err(format!("{} and {} are split", self.geo.name(p), self.geo.name(q)));
                }
            }
            if self.stones[h as usize] != fresh.stones[fh as usize] {
                return Err(format!("chain at {} has wrong size", self.geo.name(p)));
            }
            if self.libs[h as usize] != fresh.libs[fh as usize] {
                return Err(format!(
                    "chain at {} has {} liberties, recomputed {}",
                    self.geo.name(p),
                    self.libs[h as usize],
                    fresh.libs[fh as usize]
                ));
            }
            if self.chain_stones(p).count() != self.stones[h as usize] as usize {
                return Err(format!("chain list at {} is broken", self.geo.name(p)));
            }
        }
        Ok(())
    }

    /// Sets up a board from rows (top first) of `X`, `O`, `.`; for tests and tools.
    pub fn from_rows(rows: &[&str]) -> Result<Board, String> {
        let n = rows.len();
        if !(1..=MAX_SIZE).contains(&n) {
            return Err(format!("{n} rows"));
        }
        let mut b = Board::new(n as u8);
        for (y, row) in rows.iter().enumerate() {
            let row: Vec<char> = row.chars().filter(|c| !c.is_whitespace()).collect();
            if row.len() != n {
                return Err(format!("row {y} has {} points, expected {n}", row.len()));
            }
            for (x, ch) in row.into_iter().enumerate() {
                let c = match ch {
                    'X' | 'x' | 'B' | 'b' => Color::Black,
                    'O' | 'o' | 'W' | 'w' => Color::White,
                    '.' | '+' => continue,
                    _ => return Err(format!("bad character {ch:?}")),
                };
                b.put(b.geo.point(x, y), c);
            }
        }
        Ok(b)
    }

    /// Rows top first, `X` black, `O` white, `.` empty.
    pub fn rows(&self) -> Vec<String> {
        let n = self.size();
        (0..n)
            .map(|y| {
                (0..n)
                    .map(|x| match self.at(self.geo.point(x, y)) {
                        BLACK => 'X',
                        WHITE => 'O',
                        _ => '.',
                    })
                    .collect()
            })
            .collect()
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const COLS: &str = "ABCDEFGHJKLMNOPQRST";
        let n = self.size();
        for (y, row) in self.rows().iter().enumerate() {
            write!(f, "{:>2} ", n - y)?;
            for ch in row.chars() {
                write!(f, " {ch}")?;
            }
            writeln!(f)?;
        }
        write!(f, "   ")?;
        for c in COLS.chars().take(n) {
            write!(f, " {c}")?;
        }
        writeln!(f)
    }
}

/// Iterator over the stones of one chain.
pub struct ChainIter<'a> {
    board: &'a Board,
    start: u16,
    cur: u16,
    done: bool,
}

impl Iterator for ChainIter<'_> {
    type Item = Point;

    #[inline]
    fn next(&mut self) -> Option<Point> {
        if self.done {
            return None;
        }
        let p = self.cur;
        self.cur = self.board.next[p as usize];
        self.done = self.cur == self.start;
        Some(Point(p))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_and_liberties() {
        let mut b = Board::from_rows(&[".X...", "XO...", ".X...", ".....", "....."]).unwrap();
        b.check_consistency().unwrap();
        let g = b.geo();
        let white = g.point(1, 1);
        assert_eq!(b.libs(white), 1);
        assert_eq!(b.play_go(g.point(2, 1), Color::Black), 1);
        assert_eq!(b.at(white), EMPTY);
        b.check_consistency().unwrap();
        assert_eq!(b.libs(g.point(1, 0)), 3);
    }

    #[test]
    fn remove_stone_splits_chain_and_flip_merges() {
        let mut b = Board::from_rows(&["XXX", "...", "O.."]).unwrap();
        let g = b.geo();
        b.remove_stone(g.point(1, 0));
        b.check_consistency().unwrap();
        assert_eq!(b.chain_len(g.point(0, 0)), 1);
        b.put(g.point(0, 1), Color::White);
        b.flip_chain(g.point(0, 1));
        b.check_consistency().unwrap();
        // The white pair (0,1)-(0,2) turned black and joined the black stone at (0,0).
        assert_eq!(b.chain_len(g.point(0, 1)), 3);
        assert_eq!(b.color(g.point(0, 2)), Some(Color::Black));
    }
}
