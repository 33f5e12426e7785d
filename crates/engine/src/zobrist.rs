//! Zobrist keys, built at compile time from a fixed seed so hashes are stable across runs,
//! machines and versions (they end up in datasets and transposition tables).

use crate::point::{MAX_CELLS, SLOTS};

const fn splitmix(state: u64) -> (u64, u64) {
    (state.wrapping_add(0x9E37_79B9_7F4A_7C15), crate::rng::mix64(state))
}

const fn table() -> [[u64; SLOTS]; 2] {
    // Keys for the padded indices of the largest board; the slots beyond stay 0 (no point
    // has them).
    let mut t = [[0u64; SLOTS]; 2];
    let mut state = 0x6861_6E65u64; // "hane"
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < MAX_CELLS {
            let (s, z) = splitmix(state);
            state = s;
            t[c][i] = z;
            i += 1;
        }
        c += 1;
    }
    t
}

/// Key of a stone of colour index `c` (0 black, 1 white) at padded index `i`.
pub static STONE: [[u64; SLOTS]; 2] = table();

/// Key mixed into a game hash when White is to move.
pub const WHITE_TO_MOVE: u64 = 0x2F4E_1D3C_5B6A_7988;

/// Key mixed into a game hash for Sligo's placement phase, per slide destination index.
pub fn phase_key(slid_to: usize) -> u64 {
    splitmix(0x5_11D0 ^ (slid_to as u64) << 17).1
}
