//! Position keys that merge two book positions only where the rest of the game is the same.
//!
//! A position's future depends on more than its stones: the side to move, the Sligo phase
//! (and the slide made this turn), passes, the turn count (the turn cap), prisoners
//! (territory scoring), the last placer (Loose's tie-break), the rule set's repetition
//! count, and the earlier positions: positional superko bans a placement that recreates any
//! of them, simple ko the previous one. The key hashes all of these, the earlier positions
//! as a multiset of the boards at the start of every earlier turn plus the previous one on
//! its own, so two lines meet in one node only when every rule treats them alike.
//! Transpositions whose earlier positions differ stay apart (sound, at the cost of merging
//! fewer lines than KataGo's bounded history hash does).
//!
//! Each of the eight symmetries of the board maps a position to an image with the same
//! future; the key is the smallest of the eight images' hashes (the canonical frame), so a
//! line and its mirror image share a node.

use hane_engine::rng::mix64;
use hane_engine::symmetry::Symmetry;
use hane_engine::{Action, Board, Color, Game, GameState, Phase};

/// What a node keeps to key its children: per symmetry, the hash of the multiset of the
/// boards that started earlier turns and of the board that started the previous turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct History {
    earlier: [u64; 8],
    previous: [u64; 8],
}

impl History {
    /// The history of a position reached from `parent` (with history `self`) by one action:
    /// unchanged within a turn; when the action ends the turn, the board that started the
    /// parent's turn joins the earlier boards and becomes the previous one.
    pub fn after(&self, parent: &GameState, child: &GameState) -> History {
        if child.turns() == parent.turns() {
            return *self;
        }
        let start = parent.turn_start_board();
        let mut next = *self;
        for s in Symmetry::ALL {
            let h = board_hash(s, &start);
            next.earlier[s.index()] = next.earlier[s.index()].wrapping_add(mix64(h));
            next.previous[s.index()] = h;
        }
        next
    }
}

/// The hash of the image of `b` under `s`.
fn board_hash(s: Symmetry, b: &Board) -> u64 {
    if s == Symmetry::IDENTITY {
        b.hash()
    } else {
        s.apply_board(b).hash()
    }
}

/// A canonical key and the symmetry that maps the position onto the canonical frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Canonical {
    /// The key (the smallest image hash).
    pub key: u64,
    /// The symmetry whose image gives the key.
    pub sym: Symmetry,
}

/// The canonical key of `g` with history `h`.
pub fn canonical(g: &GameState, h: &History) -> Canonical {
    let geo = g.geo();
    let mut fixed = mix64(u64::from(g.turns()) ^ 0x1000_0000_0000);
    fixed = mix64(fixed ^ u64::from(g.passes()) ^ (u64::from(g.is_over()) << 8));
    fixed = mix64(fixed ^ u64::from(g.to_move() == Color::Black));
    fixed = mix64(fixed ^ u64::from(g.captured(Color::Black)) ^ (u64::from(g.captured(Color::White)) << 32));
    let placer = match g.last_placer() {
        None => 0,
        Some(Color::Black) => 1,
        Some(Color::White) => 2,
    };
    fixed = mix64(fixed ^ placer ^ (u64::from(g.repetitions()) << 8));
    let mut best = Canonical { key: u64::MAX, sym: Symmetry::IDENTITY };
    for s in Symmetry::ALL {
        let i = s.index();
        let phase = match g.phase() {
            Phase::Start => 0,
            Phase::Place(None) => 1,
            Phase::Place(Some((a, b))) => {
                let (a, b) = (s.apply_point(geo, a), s.apply_point(geo, b));
                2 + ((geo.dense(a) as u64) << 8) + ((geo.dense(b) as u64) << 24)
            }
        };
        let mut k = mix64(fixed ^ board_hash(s, g.board()));
        k = mix64(k ^ phase);
        k = mix64(k ^ h.earlier[i]);
        k = mix64(k ^ h.previous[i].rotate_left(17));
        if k < best.key {
            best = Canonical { key: k, sym: s };
        }
    }
    best
}

/// The position after `a` at `g` (with history `h`), its history and its canonical key;
/// `None` if `a` is illegal there.
pub fn step(g: &GameState, h: &History, a: Action) -> Option<(GameState, History, Canonical)> {
    let mut next = g.clone();
    next.play(a).ok()?;
    let history = h.after(g, &next);
    let key = canonical(&next, &history);
    Some((next, history, key))
}

/// The order in which positions follow each other: `2 * turns`, plus one in a Sligo turn's
/// placement. Every action raises it, so the book, keyed by position, has no cycles.
pub fn ply(g: &GameState) -> u32 {
    2 * g.turns() + u32::from(g.phase() != Phase::Start)
}
