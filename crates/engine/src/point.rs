//! Points on a padded board and their GTP names.
//!
//! A board of size `n` is stored row-major in an `(n + 2) x (n + 2)` array whose outer ring
//! is a wall, so neighbour lookups never need bounds checks. A [`Point`] is an index into that
//! array; it only means something together with the board size that produced it.

/// Largest supported board side.
pub const MAX_SIZE: usize = 19;
/// Number of cells of the largest padded board.
pub const MAX_CELLS: usize = (MAX_SIZE + 2) * (MAX_SIZE + 2);
/// Length of the per-cell arrays of a board: [`MAX_CELLS`] rounded up to a power of two, so
/// that an index masked to it ([`slot`]) needs no bounds check on the hot paths.
pub const SLOTS: usize = MAX_CELLS.next_power_of_two();

/// A padded index as an array index below [`SLOTS`]. The mask changes nothing for a valid
/// index; it only tells the compiler that the index is in range.
#[inline(always)]
pub fn slot(i: u16) -> usize {
    usize::from(i) & (SLOTS - 1)
}

/// GTP column letters: `A`..`T` without `I`.
const COLUMNS: &[u8; 19] = b"ABCDEFGHJKLMNOPQRST";

/// An index into a padded board array (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Point(pub u16);

impl Point {
    /// The index as a `usize`, for array access.
    #[inline(always)]
    pub fn idx(self) -> usize {
        slot(self.0)
    }
}

/// Geometry of one board size: conversions between points, coordinates and names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    size: u8,
}

/// The eight king-step directions used by Sligo slides, in a fixed order
/// (N, NE, E, SE, S, SW, W, NW; north is towards the top row).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dir(pub u8);

impl Dir {
    /// All eight directions in index order.
    pub const ALL: [Dir; 8] = [Dir(0), Dir(1), Dir(2), Dir(3), Dir(4), Dir(5), Dir(6), Dir(7)];

    /// Column and row delta (row grows downwards).
    pub fn delta(self) -> (i32, i32) {
        const D: [(i32, i32); 8] = [(0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1)];
        D[self.0 as usize & 7]
    }

    /// The direction with the given delta, if it is a king step.
    pub fn from_delta(dx: i32, dy: i32) -> Option<Dir> {
        Dir::ALL.into_iter().find(|d| d.delta() == (dx, dy))
    }
}

impl Geometry {
    /// Geometry of an `n x n` board; `n` must be in `1..=MAX_SIZE`.
    pub fn new(size: u8) -> Geometry {
        assert!((1..=MAX_SIZE as u8).contains(&size), "board size {size} out of range");
        Geometry { size }
    }

    /// Side length.
    #[inline(always)]
    pub fn size(self) -> usize {
        self.size as usize
    }

    /// Row stride of the padded array.
    #[inline(always)]
    pub fn stride(self) -> usize {
        self.size as usize + 2
    }

    /// Number of cells of the padded array.
    pub fn cells(self) -> usize {
        self.stride() * self.stride()
    }

    /// Number of points on the board.
    pub fn area(self) -> usize {
        self.size() * self.size()
    }

    /// The point at column `x` (0 = left) and row `y` (0 = top).
    #[inline(always)]
    pub fn point(self, x: usize, y: usize) -> Point {
        debug_assert!(x < self.size() && y < self.size());
        Point(((y + 1) * self.stride() + x + 1) as u16)
    }

    /// Column and row (0 = top) of an on-board point.
    #[inline(always)]
    pub fn xy(self, p: Point) -> (usize, usize) {
        let s = self.stride();
        (p.idx() % s - 1, p.idx() / s - 1)
    }

    /// Dense index `y * size + x` of an on-board point, for policy vectors and planes.
    #[inline(always)]
    pub fn dense(self, p: Point) -> usize {
        let (x, y) = self.xy(p);
        y * self.size() + x
    }

    /// Inverse of [`Geometry::dense`].
    pub fn from_dense(self, i: usize) -> Point {
        self.point(i % self.size(), i / self.size())
    }

    /// Whether a padded index lies on the board (not on the wall).
    pub fn on_board(self, p: Point) -> bool {
        // The raw index: `idx` masks, and maps some far-off values onto the board.
        let (i, s) = (usize::from(p.0), self.stride());
        let (x, y) = (i % s, i / s);
        i < self.cells() && (1..=self.size()).contains(&x) && (1..=self.size()).contains(&y)
    }

    /// All on-board points in row-major order from the top-left.
    pub fn points(self) -> impl Iterator<Item = Point> {
        let (n, s) = (self.size(), self.stride());
        (1..=n).flat_map(move |y| (1..=n).map(move |x| Point((y * s + x) as u16)))
    }

    /// The point one king step from `p` in direction `d`, if it is on the board.
    pub fn step(self, p: Point, d: Dir) -> Option<Point> {
        let (x, y) = self.xy(p);
        let (dx, dy) = d.delta();
        let (nx, ny) = (x as i32 + dx, y as i32 + dy);
        let n = self.size() as i32;
        ((0..n).contains(&nx) && (0..n).contains(&ny)).then(|| self.point(nx as usize, ny as usize))
    }

    /// The padded index one king step from the on-board `p` in direction `d`: a wall cell when
    /// the step leaves the board (no division, unlike [`Geometry::step`]).
    #[inline]
    pub fn king_neighbour(self, p: Point, d: Dir) -> Point {
        let (dx, dy) = d.delta();
        Point((i32::from(p.0) + dy * self.stride() as i32 + dx) as u16)
    }

    /// Orthogonal neighbour offsets in the padded array.
    #[inline(always)]
    pub fn adj(self) -> [isize; 4] {
        let s = self.stride() as isize;
        [-s, -1, 1, s]
    }

    /// GTP name of a point, e.g. `D4` (rows counted from the bottom); `off-board` for a point
    /// of the padding or beyond.
    pub fn name(self, p: Point) -> String {
        if !self.on_board(p) {
            return "off-board".into();
        }
        let (x, y) = self.xy(p);
        format!("{}{}", COLUMNS[x] as char, self.size() - y)
    }

    /// Parses a GTP vertex such as `d4` or `T19` (case-insensitive; `I` is not a column).
    pub fn parse(self, s: &str) -> Result<Point, CoordError> {
        let bad = || CoordError(format!("not a vertex on this board: \"{}\"", s.escape_debug()));
        let mut chars = s.chars();
        let c = chars.next().ok_or_else(bad)?.to_ascii_uppercase();
        let x = COLUMNS.iter().position(|&l| l as char == c).ok_or_else(bad)?;
        let digits = chars.as_str();
        if digits.is_empty() || digits.len() > 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad());
        }
        let row: usize = digits.parse().map_err(|_| bad())?;
        if x >= self.size() || row == 0 || row > self.size() {
            return Err(bad());
        }
        Ok(self.point(x, self.size() - row))
    }
}

crate::message_error!(
    /// A vertex that is not on the board or not GTP syntax.
    CoordError
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gtp_names_round_trip() {
        let g = Geometry::new(19);
        for p in g.points() {
            assert_eq!(g.parse(&g.name(p)).unwrap(), p);
        }
        let g9 = Geometry::new(9);
        assert_eq!(g9.name(g9.point(0, 8)), "A1");
        assert_eq!(g9.name(g9.point(8, 0)), "J9");
        assert!(g9.parse("I5").is_err());
        assert!(g9.parse("K1").is_err());
        assert!(g9.parse("A0").is_err());
        assert!(g9.parse("A10").is_err());
        assert!(g9.parse("").is_err());
        assert!(g9.parse("A+1").is_err());
    }

    #[test]
    fn steps_stay_on_board() {
        let g = Geometry::new(3);
        let corner = g.point(0, 0);
        let ok: Vec<_> = Dir::ALL.iter().filter_map(|&d| g.step(corner, d)).collect();
        assert_eq!(ok.len(), 3);
        assert_eq!(g.points().count(), 9);
        assert!(g.points().all(|p| g.on_board(p)));
    }
}
