//! The transposition table: buckets of two entries, one kept by the work behind it and one
//! always replaced (the one displaced from the first slot moves to the second, as in van der
//! Werf's two-deep scheme). It grows in place as it fills, up to a limit set by memory. Several entries may share a key with different dependencies; a probe
//! returns the first that holds for the current history. Entries are stored in the canonical
//! frame of their position (see [`super::symmetry`]); the caller maps points back.

use super::deps::{holds, Deps, Probes, Stones, PROBES_BYTES};
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
    /// The proof search skipped some of the prover's actions (see `search`): its undecided
    /// result stands in only for a search that skips them too.
    pub pruned: bool,
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

/// Bytes of one entry in a saved table ([`Entry::encode`]).
pub(super) const ENTRY_BYTES: usize =
    8 + 4 + 4 + 2 + 4 + 1 + 4 + 4 + 4 + 4 + 1 + PROBES_BYTES + 1 + 16 * MAX_FOUND;

impl Entry {
    /// The entry as bytes (little-endian fields), for a saved table.
    pub fn encode(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.key.to_le_bytes());
        out.extend_from_slice(&self.lower.to_le_bytes());
        out.extend_from_slice(&self.upper.to_le_bytes());
        out.extend_from_slice(&self.best.to_le_bytes());
        out.extend_from_slice(&self.scope.depth.to_le_bytes());
        // A pruned proof search adds 2 to its prover's byte (format 1 before pruning had
        // none, so its saves read the same).
        out.push(
            match self.scope.prover {
                None => 0,
                Some(Color::Black) => 1,
                Some(Color::White) => 2,
            } + 2 * u8::from(self.scope.pruned),
        );
        out.extend_from_slice(&self.scope.test.to_le_bytes());
        for x in [self.work, self.lo, self.hi] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.push(u8::from(self.capped));
        self.probes.encode(out);
        out.push(self.found_len);
        for s in &self.found {
            out.extend_from_slice(&s.black.to_le_bytes());
            out.extend_from_slice(&s.white.to_le_bytes());
        }
    }

    /// The entry [`Entry::encode`] wrote, or `None` if the bytes cannot be one.
    pub fn decode(b: &[u8; ENTRY_BYTES]) -> Option<Entry> {
        let mut r = Reader(b);
        let key = r.u64();
        let (lower, upper) = (r.u32() as i32, r.u32() as i32);
        let best = u16::from_le_bytes(r.take());
        let depth = r.u32();
        let (prover, pruned) = match r.u8() {
            0 => (None, false),
            1 => (Some(Color::Black), false),
            2 => (Some(Color::White), false),
            3 => (Some(Color::Black), true),
            4 => (Some(Color::White), true),
            _ => return None,
        };
        let test = r.u32() as i32;
        let (work, lo, hi) = (r.u32(), r.u32(), r.u32());
        let capped = match r.u8() {
            0 => false,
            1 => true,
            _ => return None,
        };
        let probes = Probes::decode(&r.take())?;
        let found_len = r.u8();
        let mut found = [Stones::default(); MAX_FOUND];
        for s in &mut found {
            *s = Stones { black: r.u64(), white: r.u64() };
        }
        let valid = work != 0 && lower <= upper && usize::from(found_len) <= MAX_FOUND;
        valid.then_some(Entry {
            key,
            lower,
            upper,
            best,
            scope: Scope { depth, prover, test, pruned },
            work,
            lo,
            hi,
            capped,
            probes,
            found_len,
            found,
        })
    }
}

/// Reads fixed-size fields off the front of a byte slice whose length was checked.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().expect("split at N")
    }
    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }
    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }
}

/// Buckets of one chunk of a table (65,536 entries, 11 MB): a table at least this large
/// grows a chunk at a time, so that growing copies nothing and frees nothing, and the memory
/// it holds is its size, never the old and the new table at once.
const CHUNK: usize = 1 << 15;

/// Entries a new table starts with; it grows (doubling) up to its limit as it fills.
const START_ENTRIES: usize = 2 * CHUNK;

/// A table of buckets of two entries that grows as it fills, up to a limit. A key's bucket
/// is `key * buckets / 2^64` (its high bits), so that any bucket count works and a bucket's
/// entries move only to higher buckets when the table grows: the growth happens in place.
pub(super) struct Table {
    /// Buckets in chunks of [`CHUNK`] (one smaller chunk in a table smaller than that).
    chunks: Vec<Vec<[Entry; 2]>>,
    buckets: usize,
    /// The most buckets the table may grow to.
    limit: usize,
    /// Occupied slots.
    used: usize,
}

/// A table that could not be allocated.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct AllocError {
    /// The bytes asked for.
    pub bytes: usize,
}

impl Table {
    /// A table that grows to at most `entries` entries (rounded down to a whole bucket, and
    /// above [`START_ENTRIES`] to a whole chunk); it starts with up to [`START_ENTRIES`].
    pub fn new(entries: usize) -> Result<Table, AllocError> {
        let limit = match (entries / 2).max(1) {
            b if b >= CHUNK => b / CHUNK * CHUNK,
            b => b,
        };
        let mut t = Table { chunks: Vec::new(), buckets: 0, limit, used: 0 };
        t.resize(limit.min(START_ENTRIES / 2))?;
        Ok(t)
    }

    /// Bytes of one entry in memory.
    pub const ENTRY_SIZE: usize = std::mem::size_of::<Entry>();

    /// Entries it has room for now.
    pub fn capacity(&self) -> usize {
        2 * self.buckets
    }

    /// Entries it may grow to.
    pub fn limit(&self) -> usize {
        2 * self.limit
    }

    /// Occupied entries.
    pub fn used(&self) -> usize {
        self.used
    }

    /// Every stored entry.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.chunks.iter().flatten().flatten().filter(|e| e.work != 0)
    }

    fn bucket(&self, key: u64) -> usize {
        ((u128::from(key) * self.buckets as u128) >> 64) as usize
    }

    fn at(&self, b: usize) -> &[Entry; 2] {
        &self.chunks[b / CHUNK][b % CHUNK]
    }

    fn at_mut(&mut self, b: usize) -> &mut [Entry; 2] {
        &mut self.chunks[b / CHUNK][b % CHUNK]
    }

    /// The entries stored under `key`.
    pub fn get(&self, key: u64) -> impl Iterator<Item = &Entry> {
        self.at(self.bucket(key)).iter().filter(move |e| e.work != 0 && e.key == key)
    }

    /// Stores an entry: in the first slot if it holds at least the work of the entry there
    /// (which moves to the second), else in the second. A table a quarter full grows first
    /// (doubling, up to its limit; if memory runs out it stays as it is).
    pub fn put(&mut self, e: Entry) {
        if 4 * self.used >= self.capacity() {
            self.grow();
        }
        self.insert(e);
    }

    /// Grows (as far as it may) until `n` entries would fill at most a quarter of it, as
    /// [`Table::put`] would have grown it for them. For loading a saved table, whose entries
    /// come in bucket order: put one by one into a small table, runs of them would share a
    /// bucket and overwrite each other before it grew.
    pub fn make_room(&mut self, n: usize) {
        while 4 * n > self.capacity() && self.buckets < self.limit {
            self.grow();
        }
    }

    /// Doubles the buckets, up to the limit; the limit becomes the size if memory runs out.
    fn grow(&mut self) {
        if self.buckets < self.limit {
            let more = (2 * self.buckets).min(self.limit);
            if self.resize(more).is_err() {
                self.limit = self.buckets;
            }
        }
    }

    fn insert(&mut self, e: Entry) {
        let b = self.bucket(e.key);
        let bucket = self.at_mut(b);
        let [first, second] = *bucket;
        let mut added = usize::from(if e.work >= first.work { first.work } else { second.work } == 0);
        if e.work >= first.work {
            // The entry displaced from the first slot takes the second, unless it is an older
            // result for the same key.
            if first.work != 0 && first.key != e.key {
                added += usize::from(second.work == 0);
                bucket[1] = first;
            }
            bucket[0] = e;
        } else {
            bucket[1] = e;
        }
        self.used += added;
    }

    /// Grows to `buckets` buckets in place: new chunks (or, below a chunk, a longer first
    /// one), then the old entries rehashed. An entry's new bucket is at least its old one,
    /// and a new bucket receives entries only from old buckets at or below it, so moving the
    /// old buckets' entries from the highest down never overwrites one not moved yet.
    fn resize(&mut self, buckets: usize) -> Result<(), AllocError> {
        let failed = AllocError { bytes: 2 * buckets * Self::ENTRY_SIZE };
        let empty = [Entry::default(); 2];
        if buckets <= CHUNK {
            let first = match self.chunks.first_mut() {
                Some(c) => c,
                None => {
                    self.chunks.push(Vec::new());
                    &mut self.chunks[0]
                }
            };
            first.try_reserve_exact(buckets - first.len()).map_err(|_| failed.clone())?;
            first.resize(buckets, empty);
        } else {
            let mut new = Vec::new();
            for _ in (self.buckets.max(CHUNK)..buckets).step_by(CHUNK) {
                let mut c = Vec::new();
                c.try_reserve_exact(CHUNK).map_err(|_| failed.clone())?;
                c.resize(CHUNK, empty);
                new.push(c);
            }
            // A first chunk smaller than a whole one is filled up first.
            let first = &mut self.chunks[0];
            first.try_reserve_exact(CHUNK - first.len()).map_err(|_| failed)?;
            first.resize(CHUNK, empty);
            self.chunks.extend(new);
        }
        let old = self.buckets;
        self.buckets = buckets;
        for b in (0..old).rev() {
            let entries = std::mem::replace(self.at_mut(b), empty);
            for e in entries {
                if e.work != 0 {
                    self.used -= 1;
                    self.insert(e);
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(key: u64, work: u64) -> Entry {
        Entry::new(
            key,
            (-3, 5),
            7,
            Scope { depth: 9, prover: Some(Color::White), test: 2, pruned: false },
            work,
            &Deps::none(),
        )
        .unwrap()
    }

    #[test]
    fn a_growing_table_keeps_what_fits() {
        // Keys spread over the whole range, fewer than the limit: the table grows, and keeps
        // most of them.
        let mut t = Table::new(1 << 18).unwrap();
        assert_eq!(t.capacity(), START_ENTRIES);
        let keys: Vec<u64> = (1..=60_000u64).map(hane_engine::rng::mix64).collect();
        for (i, &k) in keys.iter().enumerate() {
            t.put(entry(k, i as u64 + 1));
        }
        assert!(t.capacity() > START_ENTRIES && t.capacity() <= t.limit());
        let found = keys.iter().filter(|&&k| t.get(k).next().is_some()).count();
        assert_eq!(t.used(), t.entries().count());
        // Two slots a bucket: keys that collide three ways lose one.
        assert!(found >= 50_000 && found == t.used(), "{found} of 60000 found, {} used", t.used());
        // A table at its limit keeps replacing, in both slots of every bucket.
        let mut small = Table::new(10).unwrap();
        for &k in &keys[..100] {
            small.put(entry(k, 1));
        }
        assert_eq!((small.capacity(), small.used()), (10, 10));
    }

    #[test]
    fn entries_round_trip_through_bytes() {
        let mut deps = Deps::inner(40);
        deps.add_probe(Stones { black: 0b11, white: 0 }, Stones { black: 0b01, white: 0b100 });
        deps.add_found(Stones { black: 0b01, white: 0b1000 });
        let e = Entry::new(
            42,
            (-8, 12),
            3,
            Scope { depth: 5, prover: Some(Color::Black), test: 4, pruned: true },
            99,
            &deps,
        )
        .unwrap();
        let mut bytes = Vec::new();
        e.encode(&mut bytes);
        assert_eq!(bytes.len(), ENTRY_BYTES);
        let back = Entry::decode(bytes.as_slice().try_into().unwrap()).unwrap();
        assert_eq!((back.key, back.lower, back.upper, back.best, back.scope), (42, -8, 12, 3, e.scope));
        assert_eq!(back.deps(|m| m), deps);
        // A prover byte that is no colour, or bounds the wrong way round, is refused.
        let mut bad = bytes.clone();
        bad[22] = 7;
        assert!(Entry::decode(bad.as_slice().try_into().unwrap()).is_none());
        let mut bad = bytes;
        bad[8..12].copy_from_slice(&100i32.to_le_bytes());
        assert!(Entry::decode(bad.as_slice().try_into().unwrap()).is_none());
    }
}
