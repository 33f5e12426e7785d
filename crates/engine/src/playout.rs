//! Uniformly random light playouts: random legal moves that never fill one's own true
//! single-point eye, until two passes (or the rules' move cap). Used by `hane bench playouts`,
//! by rollout evaluators and for the ownership that analysis reports without a net.

use crate::action::Action;
use crate::board::{is_true_eye, Board, Color};
use crate::game::{Game, GameState, Phase};
use crate::point::Point;
use crate::rng::Rng;
use crate::rules::Variant;

/// Plays `g` to the end with random light moves; returns the number of turns played.
pub fn random_playout(g: &mut GameState, rng: &mut Rng) -> u32 {
    let start = g.turns();
    if g.rules().variant == Variant::Go {
        // The same moves as the general loop, without its dispatch on the rules per move.
        // The generator in a local, so that it can live in registers.
        let mut r = rng.clone();
        while !g.is_over() {
            let p = random_go_placement(g, &mut r);
            g.play_go_unchecked(p);
        }
        *rng = r;
    } else {
        while !g.is_over() {
            let a = random_light_action(g, rng);
            g.play_unchecked(a);
        }
    }
    g.turns() - start
}

/// Who owns each point at the end of random light playouts, Black's view (+1 Black, -1
/// White), in dense point order.
#[derive(Clone, Debug, PartialEq)]
pub struct Ownership {
    /// Mean owner of each point over the playouts, in [-1, 1].
    pub mean: Vec<f32>,
    /// Standard deviation of each point's owner over the playouts.
    pub stdev: Vec<f32>,
}

/// Plays `playouts` (at least 1) random playouts from `g` and averages the owner of every
/// point of each final board (its stone, or the only colour its empty region reaches; no
/// dead stones are left after a light playout, which never fills an eye).
pub fn ownership(g: &GameState, playouts: usize, rng: &mut Rng) -> Ownership {
    let area = g.geo().area();
    let (mut sum, mut sq) = (vec![0f32; area], vec![0f32; area]);
    let mut end = g.clone();
    for _ in 0..playouts.max(1) {
        end.clone_from(g);
        random_playout(&mut end, rng);
        let owners = crate::score::owners(end.board(), &Default::default());
        for (i, o) in owners.into_iter().enumerate() {
            let x = match o {
                Some(Color::Black) => 1.0,
                Some(Color::White) => -1.0,
                None => 0.0,
            };
            sum[i] += x;
            sq[i] += x * x;
        }
    }
    let n = playouts.max(1) as f32;
    let mean: Vec<f32> = sum.iter().map(|s| s / n).collect();
    let stdev = sq.iter().zip(&mean).map(|(q, m)| (q / n - m * m).max(0.0).sqrt()).collect();
    Ownership { mean, stdev }
}

/// A random legal action that does not fill the mover's own true eye (pass when none).
pub fn random_light_action(g: &GameState, rng: &mut Rng) -> Action {
    let placement = match (g.rules().variant, g.phase()) {
        (Variant::Sligo, Phase::Start) => return sligo_first_action(g, rng),
        (Variant::Sligo, Phase::Place(_)) => sligo_placement(g, rng, &mut g.board().clone()),
        (Variant::Go, _) => random_go_placement(g, rng),
        (Variant::Loose, _) => random_placement(g, rng, |g, p| {
            !is_true_eye(g.board(), p, g.to_move()) && g.on_board_placement_is_legal(p)
        }),
    };
    placement.map_or(Action::Pass, Action::Place)
}

/// Go: a random legal placement that does not fill the mover's own true eye (`None`: pass).
#[inline(always)]
fn random_go_placement(g: &GameState, rng: &mut Rng) -> Option<Point> {
    random_placement(g, rng, |g, p| g.go_legal_and_not_own_eye(p))
}

/// Scans the empty points from a random offset for the first one that `candidate` accepts
/// (a legal point that is not the mover's true eye); `None` when there is none.
#[inline(always)]
fn random_placement(
    g: &GameState,
    rng: &mut Rng,
    mut candidate: impl FnMut(&GameState, Point) -> bool,
) -> Option<Point> {
    let b = g.board();
    let n = b.empty_count();
    if n == 0 {
        return None;
    }
    // Scan off..n then 0..off (no division per candidate).
    let mut k = rng.below(n);
    for _ in 0..n {
        let p = b.empty_at(k);
        if candidate(g, p) {
            return Some(p);
        }
        k += 1;
        if k == n {
            k = 0;
        }
    }
    None
}

/// Sligo: a random first action (no-slide or a slide) after which a non-eye placement exists.
/// Never inlined: its copy of the game would give [`random_light_action`] a stack frame of
/// several pages to probe on every call.
#[inline(never)]
fn sligo_first_action(g: &GameState, rng: &mut Rng) -> Action {
    let mut firsts = Vec::new();
    g.first_action_candidates(&mut firsts);
    // One game and one scratch board for all the candidates tried, refilled by `clone_from`.
    let mut next = g.clone();
    let mut scratch = g.board().clone();
    while !firsts.is_empty() {
        let a = firsts.swap_remove(rng.below(firsts.len()));
        next.clone_from(g);
        next.begin_sligo_turn(a);
        // What `play` checks for a listed candidate (without its error strings), then whether a
        // light placement follows.
        if next.sligo_any_placement_on(&mut scratch) && sligo_placement(&next, rng, &mut scratch).is_some() {
            return a;
        }
    }
    Action::Pass
}

/// Sligo, in a placement phase: a random light placement, each candidate tried on `scratch`
/// (any board of this size) rather than on a fresh copy.
fn sligo_placement(g: &GameState, rng: &mut Rng, scratch: &mut Board) -> Option<Point> {
    random_placement(g, rng, |g, p| {
        !is_true_eye(g.board(), p, g.to_move()) && g.sligo_placement_is_legal_on(p, scratch)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;
    use crate::rules::Rules;

    /// The Go loop of [`random_playout`] plays the moves of the general one
    /// ([`random_light_action`] with the checked `play`), so each of its moves is legal, and it
    /// ends in the same state: board, captures (suicide included) and recent moves.
    #[test]
    fn the_go_loop_plays_the_general_loops_moves() {
        for preset in ["ttakji", "brainking", "tromp-taylor", "chinese"] {
            for size in [5u8, 9] {
                let rules: Rules = format!("{preset},size={size}").parse().expect("a preset");
                for seed in 0..12 {
                    let mut fast = GameState::new(rules);
                    let mut fast_rng = Rng::new(seed);
                    let turns = random_playout(&mut fast, &mut fast_rng);
                    let mut slow = GameState::new(rules);
                    let mut slow_rng = Rng::new(seed);
                    while !slow.is_over() {
                        let a = random_light_action(&slow, &mut slow_rng);
                        slow.play(a).expect("a legal light move");
                    }
                    let what = format!("{preset} {size}x{size}, seed {seed}");
                    assert!(turns > 0 && turns == slow.turns(), "{what}");
                    assert_eq!(fast.state_hash(), slow.state_hash(), "{what}");
                    for c in [Color::Black, Color::White] {
                        assert_eq!(fast.captured(c), slow.captured(c), "{what}");
                    }
                    assert!(fast.recent_placements().eq(slow.recent_placements()), "{what}");
                    assert_eq!(fast_rng.next_u64(), slow_rng.next_u64(), "{what}");
                }
            }
        }
    }
}
