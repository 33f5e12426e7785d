//! The transposition table: buckets of two entries, one kept by the work behind it and one
//! always replaced. Several entries may share a key with different dependencies; a probe
//! returns the first that holds for the current history. Entries are stored in the canonical
//! frame of their position (see [`super::symmetry`]); the caller maps points back.

use super::deps::{holds, Deps, Probes, Stones};
use hane_engine::Color;

/// Earlier positions an entry can depend on; results with more are not stored.
const MAX_FOUND: usize = 4;

/// How a result was searched: the depth limit, and in a proof search (see `search`) the side
/// trying to prove and the value it tried to reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Scope {
    /// Plies searched below the position (`u32::MAX`: to the end of every line).
    pub depth: u32,
    /// The side proving, `None` outside proof searches.
    pub prover: Option<Color>,
    /// The null-window test of a proof search: is the value at least this (relative to the
    /// prisoners of the position)?
    pub test: i32,
}

/// A stored result: proven bounds on the value (relative to the prisoners of the position),
/// how they were searched, the best action found, and the dependencies.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Entry {
    pub key: u64,
    /// The value is at least this.
    pub lower: i32,
    /// The value is at most this.
    pub upper: i32,
    /// Dense action index of the best action (canonical frame), `u16::MAX` if none.
    pub best: u16,
    /// How the bounds were searched.
    pub scope: Scope,
    /// Nodes searched to get this entry (0: an empty slot).
    work: u32,
    lo: u32,
    hi: u32,
    capped: bool,
    probes: Probes,
    found_len: u8,
    found: [Stones; MAX_FOUND],
}

impl Entry {
    /// An entry (dependencies already in the canonical frame), or `None` when the
    /// dependencies are too many to store.
    pub fn new(
        key: u64,
        bounds: (i32, i32),
        best: u16,
        scope: Scope,
        work: u64,
        deps: &Deps,
    ) -> Option<Entry> {
        if deps.found.len() > MAX_FOUND {
            return None;
        }
        let mut found = [Stones::default(); MAX_FOUND];
        found[..deps.found.len()].copy_from_slice(&deps.found);
        Some(Entry {
            key,
            lower: bounds.0,
            upper: bounds.1,
            best,
            scope,
            work: work.clamp(1, u64::from(u32::MAX)) as u32,
            lo: deps.lo,
            hi: deps.hi,
            capped: deps.capped,
            probes: deps.probes,
            found_len: deps.found.len() as u8,
            found,
        })
    }

    fn found(&self) -> &[Stones] {
        &self.found[..usize::from(self.found_len)]
    }

    /// The stored dependencies, with points mapped by `f` into the caller's frame.
    pub fn deps(&self, f: impl Fn(u64) -> u64 + Copy) -> Deps {
        let stored = Deps {
            lo: self.lo,
            hi: self.hi,
            capped: self.capped,
            found: self.found().to_vec(),
            probes: self.probes,
        };
        stored.mapped(f)
    }

    /// Whether the entry holds at `turns` with the history `path`, its points mapped by `f`
    /// into the frame of `path` (see [`holds`]).
    pub fn holds(&self, turns: u32, path: &[Stones], f: impl Fn(u64) -> u64 + Copy) -> bool {
        let mut found = [Stones::default(); MAX_FOUND];
        for (to, from) in found.iter_mut().zip(self.found()) {
            *to = from.map(f);
        }
        let found = &found[..usize::from(self.found_len)];
        holds(self.lo, self.hi, found, &self.probes.mapped(f), turns, path)
    }
}

/// A fixed-size table of `2^bits` entries.
pub(super) struct Table {
    slots: Vec<Entry>,
    mask: usize,
}

impl Table {
    /// A table of `2^bits` entries (at least one bucket).
    pub fn new(bits: u32) -> Table {
        let n = 1usize << bits.max(1);
        Table { slots: vec![Entry::default(); n], mask: n / 2 - 1 }
    }

    /// The entries stored under `key`.
    pub fn get(&self, key: u64) -> impl Iterator<Item = &Entry> {
        let i = 2 * (key as usize & self.mask);
        self.slots[i..i + 2].iter().filter(move |e| e.work != 0 && e.key == key)
    }

    /// Stores an entry: in the first slot if it holds more work than the entry there, else in
    /// the second.
    pub fn put(&mut self, e: Entry) {
        let i = 2 * (e.key as usize & self.mask);
        if e.work >= self.slots[i].work {
            self.slots[i] = e;
        } else {
            self.slots[i + 1] = e;
        }
    }
}
