//! The positions of a game so far, for the ko rules (simple ko's previous position,
//! positional superko's every position) and Sligo's repetition count.

/// Words of the history filter (4096 bits: a 9x9 playout's hundred-odd positions set under
/// 3% of them).
const SEEN_WORDS: usize = 64;

/// The stone hashes of the positions so far, with a one-bit-per-bucket filter in front: a
/// clear bit proves a position is new, so most lookups never scan the list. A clone keeps
/// the capacity, so a playout from a cloned state does not grow the list step by step.
pub(super) struct History {
    hashes: Vec<u64>,
    filter: [u64; SEEN_WORDS],
}

impl Default for History {
    fn default() -> Self {
        History { hashes: Vec::new(), filter: [0; SEEN_WORDS] }
    }
}

impl Clone for History {
    fn clone(&self) -> Self {
        let mut hashes = Vec::with_capacity(self.hashes.capacity().max(2 * self.hashes.len()).max(64));
        hashes.extend_from_slice(&self.hashes);
        History { hashes, filter: self.filter }
    }

    fn clone_from(&mut self, src: &Self) {
        self.hashes.clear();
        self.hashes.extend_from_slice(&src.hashes);
        self.filter = src.filter;
    }
}

impl History {
    #[inline(always)]
    fn bit(h: u64) -> (usize, u64) {
        ((h as usize >> 6) & (SEEN_WORDS - 1), 1 << (h & 63))
    }

    /// Appends a position.
    pub(super) fn push(&mut self, h: u64) {
        self.hashes.push(h);
        let (w, b) = History::bit(h);
        self.filter[w] |= b;
    }

    /// Whether the position occurred so far.
    #[inline]
    pub(super) fn contains(&self, h: u64) -> bool {
        let (w, b) = History::bit(h);
        self.filter[w] & b != 0 && self.hashes.contains(&h)
    }

    /// The position before the last one (simple ko's reference), if any.
    pub(super) fn before_last(&self) -> Option<u64> {
        self.hashes.len().checked_sub(2).map(|i| self.hashes[i])
    }
}
