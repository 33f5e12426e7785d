//! The network's input encoding: feature planes and global features of a position, from the
//! view of the player to move. Versioned: [`ENCODER_VERSION`] is stored in every shard and
//! checkpoint, and the tables of docs/data-format.md document each channel.

use hane_engine::board::{Board, PointSet, EMPTY};
use hane_engine::rules::{KoRule, Scoring, Variant};
use hane_engine::score::is_true_liberty;
use hane_engine::{Action, Color, Game, GameState, Phase};

/// Version of the encoding below; bump on any change of meaning or order.
pub const ENCODER_VERSION: u32 = 2;
/// Number of feature planes.
pub const PLANES: usize = 19;
/// The plane that is 1 on every point of the board: where a batch holds a smaller board
/// than the net's, the points outside it are 0 there (`crate::batch`).
pub const ON_BOARD_PLANE: usize = 2;
/// Number of global features.
pub const GLOBALS: usize = 13;
/// Index of the komi among the global features, the only one outside 0..=1: the side to
/// move's komi (positive for White) divided by [`KOMI_SCALE`].
pub const KOMI_GLOBAL: usize = 1;
/// Points of komi per unit of the komi feature.
pub const KOMI_SCALE: f32 = 15.0;
/// Encodes `g` into `PLANES * N * N` plane values (0/1) and `GLOBALS` floats. The recent-move
/// planes come from the state itself ([`GameState::recent_placements`]), so self-play rows
/// and the positions a search evaluates are encoded alike.
pub fn encode(g: &GameState) -> (Vec<u8>, Vec<f32>) {
    let geo = g.geo();
    let n2 = geo.area();
    let b = g.board();
    let me = g.to_move();
    let rules = g.rules();
    let mut planes = vec![0u8; PLANES * n2];
    let mut set = |plane: usize, i: usize| planes[plane * n2 + i] = 1;

    for p in geo.points() {
        let i = geo.dense(p);
        set(ON_BOARD_PLANE, i);
        match b.color(p) {
            Some(c) => {
                let mine = c == me;
                set(if mine { 0 } else { 1 }, i);
                let libs = if rules.variant == Variant::Loose { true_liberties(b, p) } else { b.libs(p) };
                let bucket = libs.clamp(1, 3) - 1;
                set(if mine { 5 } else { 8 } + bucket, i);
            }
            None => {
                if rules.variant == Variant::Loose && !is_true_liberty(b, p) {
                    set(11, i);
                }
            }
        }
    }
    for p in legal_placements(g) {
        set(3, geo.dense(p));
    }
    if rules.variant == Variant::Go && rules.ko != KoRule::None {
        for p in b.empties() {
            if !g.placement_is_legal(p) && b.go_legal_no_suicide(p, me) {
                set(4, geo.dense(p));
            }
        }
    }
    if let Phase::Place(Some((from, to))) = g.phase() {
        set(12, geo.dense(to));
        set(13, geo.dense(from));
    }
    for (k, p) in g.recent_placements().enumerate() {
        set(14 + k, geo.dense(p));
    }

    let komi = rules.komi.as_f64() as f32;
    let komi_me = if me == Color::White { komi } else { -komi };
    let flag = |b: bool| if b { 1.0 } else { 0.0 };
    let globals = vec![
        flag(me == Color::White),
        komi_me / KOMI_SCALE,
        flag(rules.variant == Variant::Go),
        flag(rules.variant == Variant::Loose),
        flag(rules.variant == Variant::Sligo),
        flag(rules.scoring == Scoring::Territory),
        flag(rules.ko == KoRule::Positional),
        flag(rules.ko == KoRule::Simple),
        flag(rules.suicide),
        flag(matches!(g.phase(), Phase::Place(_))),
        flag(g.passes() > 0),
        g.turns() as f32 / rules.max_turns() as f32,
        komi_parity(rules),
    ];
    (planes, globals)
}

/// Under area scoring, where a finished board's score difference moves in steps of 2 (every
/// point is Black's or White's), whether a komi can end in a draw or is half a step from
/// one matters as much as its size: KataGo's komi/board-parity input (global 18 of its
/// `fillRowV7`, `docs/references.md`) for the same reason. A triangle wave of period 2 points in
/// `komi - area`: 0 when the komi equals the area modulo 2 (a filled board can be drawn),
/// 1 when it is one point off (no draw; the komi splits a step), linear in between. Zero
/// under other scoring.
fn komi_parity(rules: &hane_engine::Rules) -> f32 {
    if rules.scoring != Scoring::Area {
        return 0.0;
    }
    let area = f64::from(rules.size) * f64::from(rules.size);
    let x = (rules.komi.as_f64() - area).rem_euclid(2.0);
    (1.0 - (x - 1.0).abs()) as f32
}

/// Loose: the number of distinct true liberties of the chain through `p`.
fn true_liberties(b: &Board, p: hane_engine::Point) -> usize {
    let mut seen = PointSet::default();
    b.chain_stones(p)
        .flat_map(|s| b.adj(s))
        .filter(|&e| b.at(e) == EMPTY && is_true_liberty(b, e) && seen.insert(e))
        .count()
}

/// Points where the player to move can complete a placement now (Sligo at the start of a
/// turn: the placements legal without a slide).
fn legal_placements(g: &GameState) -> Vec<hane_engine::Point> {
    let mut actions = Vec::new();
    if g.rules().variant == Variant::Sligo && g.phase() == Phase::Start {
        let mut next = g.clone();
        if next.play(Action::NoSlide).is_ok() {
            next.legal_actions(&mut actions);
        }
    } else {
        g.legal_actions(&mut actions);
    }
    actions.into_iter().filter_map(|a| if let Action::Place(p) = a { Some(p) } else { None }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use hane_engine::Rules;

    #[test]
    fn planes_follow_the_side_to_move() {
        let mut g = GameState::new("ttakji,size=5".parse::<Rules>().unwrap());
        let geo = g.geo();
        let c3 = geo.parse("C3").unwrap();
        g.play(Action::Place(c3)).unwrap();
        let (planes, globals) = encode(&g);
        let n2 = 25;
        let i = geo.dense(c3);
        assert_eq!(planes[n2 + i], 1, "Black's stone is the opponent's for White");
        assert_eq!(planes[i], 0);
        assert_eq!(planes[2 * n2..3 * n2].iter().map(|&v| v as usize).sum::<usize>(), 25);
        assert_eq!(planes[3 * n2 + i], 0, "occupied point is not legal");
        assert_eq!(planes[3 * n2..4 * n2].iter().map(|&v| v as usize).sum::<usize>(), 24);
        assert_eq!(planes[(8 + 2) * n2 + i], 1, "4 liberties -> the >=3 bucket");
        assert_eq!(planes[14 * n2 + i], 1, "most recent move");
        g.play(Action::Pass).unwrap();
        let d2 = geo.parse("D2").unwrap();
        g.play(Action::Place(d2)).unwrap();
        let (planes, _) = encode(&g);
        assert_eq!(planes[14 * n2 + geo.dense(d2)], 1, "most recent placement");
        assert_eq!(planes[15 * n2 + i], 1, "the one before (passes are not placements)");
        assert_eq!(planes[16 * n2..19 * n2].iter().map(|&v| v as usize).sum::<usize>(), 0);
        assert_eq!(globals[0], 1.0);
        assert!((globals[KOMI_GLOBAL] - 7.0 / KOMI_SCALE).abs() < 1e-6);
        assert_eq!(globals.len(), GLOBALS);
        assert_eq!(planes.len(), PLANES * n2);
    }

    #[test]
    fn komi_parity_marks_the_komi_that_can_be_drawn() {
        let parity = |spec: &str| komi_parity(&spec.parse::<Rules>().unwrap());
        // 5x5 (area 25): komi 25 and 7 can be drawn on a filled board, 24 and 6.5 cannot.
        assert_eq!(parity("ttakji,size=5,komi=25"), 0.0);
        assert_eq!(parity("ttakji,size=5,komi=7"), 0.0);
        assert_eq!(parity("ttakji,size=5,komi=24"), 1.0);
        assert_eq!(parity("ttakji,size=5,komi=26"), 1.0);
        assert_eq!(parity("ttakji,size=5,komi=-1"), 0.0);
        assert_eq!(parity("ttakji,size=5,komi=6.5"), 0.5);
        // 4x4 (area 16): the even komi can be drawn.
        assert_eq!(parity("ttakji,size=4,komi=2"), 0.0);
        assert_eq!(parity("ttakji,size=4,komi=3"), 1.0);
        // Not under territory or stone scoring.
        assert_eq!(parity("brainking,size=5,komi=0.5"), 0.0);
        assert_eq!(parity("loose,size=5"), 0.0);
    }
}
