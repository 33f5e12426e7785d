//! Perft: the number of legal action sequences of exactly a given length from a position.
//! A game that ends earlier (two passes) contributes nothing below its end. This is the
//! convention of `board-game-rs`'s Go perft tests, whose published counts ours reproduce.
//! For Sligo the count is over decisions (a slide and its placement are two plies), which is
//! the tree a search walks.

use crate::game::{Game, GameState};

/// Number of legal action sequences of length `depth` from `g`.
pub fn perft(g: &GameState, depth: u32) -> u64 {
    perft_limited(g, depth, u64::MAX).expect("no limit")
}

/// As [`perft`], but gives up (`None`) once more than `limit` nodes have been visited.
pub fn perft_limited(g: &GameState, depth: u32, limit: u64) -> Option<u64> {
    let mut visited = 0u64;
    let n = walk(g, depth, limit, &mut visited);
    (visited <= limit).then_some(n)
}

fn walk(g: &GameState, depth: u32, limit: u64, visited: &mut u64) -> u64 {
    *visited += 1;
    if depth == 0 || *visited > limit {
        return 1;
    }
    if g.is_over() {
        return 0;
    }
    let mut actions = Vec::new();
    g.legal_actions(&mut actions);
    if depth == 1 {
        *visited += actions.len() as u64;
        return actions.len() as u64;
    }
    let mut total = 0;
    for a in actions {
        let mut child = g.clone();
        child.play_unchecked(a);
        total += walk(&child, depth - 1, limit, visited);
    }
    total
}
