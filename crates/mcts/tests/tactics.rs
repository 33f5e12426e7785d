//! The search finds decisive moves: a capture in Go, a flip in Loose, a two-decision turn
//! in Sligo, and the right side's choice in a toy game whose player moves twice in a row.
//!
//! Rollout evaluations are seeded, so every run of these tests is the same search.

mod common;

use common::{action, assert_rows, from_rows, name, position};
use hane_engine::score::Score;
use hane_engine::{Action, Color, Game, Outcome, PlayError};
use hane_mcts::{RolloutEvaluator, Search, SearchConfig, UniformEvaluator};

/// Black to move. White's three stones A3-C3 have one liberty, D3, which is also where they
/// would join White's living group on the right (eyes at E5 and E1). Black D3 takes them and
/// keeps the whole left side (16 points to 9.5); anywhere else, White D3 connects, splits
/// Black in two and wins.
///
/// ```text
///  5  . . X O .
///  4  X X X O O
///  3  O O O . O
///  2  X X X O O
///  1  . . X O .
///     A B C D E
/// ```
#[test]
fn go_finds_the_capture_that_decides_the_game() {
    let rows = ["..XO.", "XXXOO", "OOO.O", "XXXOO", "..XO."];
    let g = from_rows("ttakji,size=5,komi=0.5", &rows, Color::Black);
    let d3 = action(&g, "D3");
    for seed in 0..3 {
        let mut s = Search::new(g.clone(), SearchConfig::for_board(5), seed);
        s.run(&mut RolloutEvaluator::new(seed), 800, 1);
        assert_eq!(s.select_action(0.0), d3, "seed {seed}");
        assert!(s.root_value().wdl[0] > 0.9, "seed {seed}: {:?}", s.root_value());
    }
    let mut after = g.clone();
    after.play(d3).unwrap();
    assert_eq!(after.board().stone_count(Color::White), 10 - 3);
}

/// Loose, Black to move. White's group along the bottom (A1-D1, A2, C2) has one true
/// liberty left, E1: B2 touches both colours and no empty point, so it is false. Black E1
/// makes the group's last liberty false and flips all six stones.
///
/// ```text
///  5  X O O . .
///  4  X X . . .
///  3  X X X . .
///  2  O . O X O
///  1  O O O O .
///     A B C D E
/// ```
#[test]
fn loose_finds_the_flip_that_wins() {
    let g = position(
        "loose,size=5",
        &["C1", "A4", "B4", "D1", "C3", "B5", "B3", "C5", "A3", "B1", "A5", "E2", "D2", "C2", "A1", "A2"],
    );
    assert_rows(&g, &["XOO..", "XX...", "XXX..", "O.OXO", "OOOO."]);
    assert_eq!(g.to_move(), Color::Black);
    let e1 = action(&g, "E1");
    for seed in 0..3 {
        let mut s = Search::new(g.clone(), SearchConfig::for_board(5), seed);
        s.run(&mut RolloutEvaluator::new(seed), 800, 1);
        assert_eq!(s.select_action(0.0), e1, "seed {seed}");
    }
    let mut after = g.clone();
    after.play(e1).unwrap();
    assert_eq!(after.board().stone_count(Color::Black), g.board().stone_count(Color::Black) + 7);
}

/// Sligo (komi 3.5), Black to move after White passed. White's ten stones have one
/// liberty, A1; Black wins by a turn whose placement is A1 (with or without a slide first),
/// and loses by passing now (14 points to 14.5). The turn is two decisions by Black: the
/// search must value the placement node for Black, not for the opponent.
///
/// ```text
///  5  X X X . X
///  4  O X X X X
///  3  O O O X .
///  2  O O X X X
///  1  . O O O O
///     A B C D E
/// ```
#[test]
fn sligo_finds_the_winning_turn() {
    let history = "noslide,B2,noslide,D3,B2>B3,D4,D3>C2,A4,B3>A2,D3,A4>A5,E4,A2>B3,B1,A5>B4,A2,\
        B1>A1,B5,C2>D1,E3,B3>C3,D2,B4>B3,B2,C3>C2,D5,B2>A3,C5,D5>C4,B4,D1>E2,C3,C2>B1,A5,\
        noslide,A4,noslide,D5,E4>E5,E1,C4>C5,E4,E2>D1,B2,C5>C4,E2,B3>C2,C1,D5>E5,B1,A2>B3,\
        C5,B1>A1,D5,C2>B1,A2,D5>C5,C2,pass";
    let moves: Vec<&str> = history.split(',').map(str::trim).collect();
    let g = position("sligo,size=5", &moves);
    assert_rows(&g, &["XXX.X", "OXXXX", "OOOX.", "OOXXX", ".OOOO"]);
    assert_eq!((g.to_move(), g.passes()), (Color::Black, 1));
    let mut passed = g.clone();
    passed.play(Action::Pass).unwrap();
    assert!(passed.is_over() && passed.score().winner == Outcome::White);

    let a1 = action(&g, "A1");
    for seed in 0..2 {
        let mut s = Search::new(g.clone(), SearchConfig::for_board(5), seed);
        let mut ev = RolloutEvaluator::new(seed);
        s.run(&mut ev, 300, 1);
        assert!(s.root_value().wdl[0] > 0.75, "seed {seed}: {:?}", s.root_value());
        let first = s.select_action(0.0);
        assert!(matches!(first, Action::NoSlide | Action::Slide(..)), "seed {seed}");
        s.advance(first);
        assert_eq!(s.root().to_move(), Color::Black, "the placement is Black's too");
        assert!(s.root_value().wdl[0] > 0.75, "seed {seed}: {:?}", s.root_value());
        s.run(&mut ev, 300, 1);
        let place = s.select_action(0.0);
        assert_eq!(place, a1, "seed {seed}: {} then {}", name(&g, first), name(&g, place));
        s.advance(place);
        assert_eq!(s.root().to_move(), Color::White);
        assert_eq!(s.root().board().stone_count(Color::White), 0, "seed {seed}");
    }
}

/// A toy game whose first player decides twice in a row, like a Sligo turn: Black picks
/// `a`, then `b`, then White picks `c` (each 0, 1 or 2), and Black wins by `a * b - c`
/// points if that is positive. White will answer 2, so only `a = b = 2` wins.
#[derive(Clone, Debug, Default)]
struct TwoStep(Vec<u8>);

impl Game for TwoStep {
    type Action = u8;
    fn to_move(&self) -> Color {
        if self.0.len() < 2 {
            Color::Black
        } else {
            Color::White
        }
    }
    fn legal_actions(&self, out: &mut Vec<u8>) {
        if !self.is_over() {
            out.extend([0, 1, 2]);
        }
    }
    fn play(&mut self, a: u8) -> Result<(), PlayError> {
        if self.is_over() {
            return Err(PlayError::GameOver);
        }
        if a > 2 {
            return Err(PlayError::WrongPhase(format!("{a} is not 0, 1 or 2")));
        }
        self.0.push(a);
        Ok(())
    }
    fn play_unchecked(&mut self, a: u8) {
        self.0.push(a);
    }
    fn is_over(&self) -> bool {
        self.0.len() == 3
    }
    fn score(&self) -> Score {
        let v = |i: usize| f64::from(self.0.get(i).copied().unwrap_or(0));
        let (black, white) = (v(0) * v(1), v(2));
        let winner = match black.partial_cmp(&white).unwrap() {
            std::cmp::Ordering::Greater => Outcome::Black,
            std::cmp::Ordering::Less => Outcome::White,
            std::cmp::Ordering::Equal => Outcome::Draw,
        };
        Score { black, white, winner }
    }
    fn state_hash(&self) -> u64 {
        self.0.iter().fold(1, |h, &a| h * 4 + u64::from(a))
    }
    fn action_index(&self, a: u8) -> usize {
        a as usize
    }
    fn action_space(&self) -> usize {
        3
    }
}

#[test]
fn a_player_deciding_twice_in_a_row_is_valued_from_its_own_side() {
    let mut s = Search::new(TwoStep::default(), SearchConfig::default(), 0);
    s.run(&mut UniformEvaluator, 400, 1);
    assert_eq!(s.select_action(0.0), 2);
    let v = s.root_value();
    assert!(v.wdl[0] > 0.8, "{v:?}");
    s.advance(2);
    assert_eq!(s.root().to_move(), Color::Black);
    assert_eq!(s.select_action(0.0), 2);
    s.advance(2);
    assert_eq!(s.root().to_move(), Color::White);
    // White's choice minimises Black's margin: every answer loses, 2 loses least.
    assert_eq!(s.select_action(0.0), 2);
    for c in s.root_children() {
        assert_eq!(c.wdl, [0.0, 0.0, 1.0], "{c:?}");
        assert_eq!(c.score, f32::from(c.action) - 4.0);
    }
}
