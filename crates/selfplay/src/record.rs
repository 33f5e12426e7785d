//! Turning a finished game into training rows and an SGF record.

use hane_data::features::encode;
use hane_data::shard::Row;
use hane_engine::rng::Rng;
use hane_engine::rules::Variant;
use hane_engine::score::{dead_stones, owners};
use hane_engine::sgf::{SgfError, SgfGame};
use hane_engine::{Action, Color, Game, GameState, Outcome, Point};

/// A position recorded during the game, waiting for the game's result.
#[derive(Debug)]
pub struct PendingRow {
    /// Feature planes.
    pub planes: Vec<u8>,
    /// Global features.
    pub globals: Vec<f32>,
    /// Policy target over the whole action space.
    pub policy: Vec<f32>,
    /// The side to move at that position.
    pub to_move: Color,
    /// The search's win/draw/loss for the side to move, read at its most visited move.
    pub search_wdl: [f32; 3],
    /// How far the policy target is from the net's raw prior ([`Search::policy_surprise`]).
    ///
    /// [`Search::policy_surprise`]: hane_mcts::Search::policy_surprise
    pub surprise: f32,
    /// Times the row is written ([`weigh_by_surprise`]; 1 unless weighed).
    pub copies: u32,
    /// The search's estimate at the first exploratory move played at or after this row,
    /// from the row's side to move ([`mark_exploration`]); `None` if the game went on as its
    /// searches chose.
    pub at_exploration: Option<Estimate>,
}

/// A search's estimate of a position as its best move would play it, for one side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// Win/draw/loss.
    pub wdl: [f32; 3],
    /// Score margin, komi included.
    pub score: f32,
}

impl Estimate {
    /// The same estimate from the other side.
    fn flipped(self) -> Estimate {
        Estimate { wdl: [self.wdl[2], self.wdl[1], self.wdl[0]], score: -self.score }
    }
}

/// Notes an exploratory move: `mover` played something other than its search's best move,
/// whose estimate (for `mover`) was `best`. Every row since the previous exploratory move
/// gets that estimate as what the game was worth before the exploration changed it (Watkins's
/// cut of the return at an exploratory action, Q(λ)).
pub fn mark_exploration(rows: &mut [PendingRow], mover: Color, best: Estimate) {
    for r in rows.iter_mut().rev().take_while(|r| r.at_exploration.is_none()) {
        r.at_exploration = Some(if r.to_move == mover { best } else { best.flipped() });
    }
}

/// Records the current root of a full search: its features, the search's policy target, its
/// win/draw/loss for the side to move and the target's surprise against the raw prior.
pub fn pending_row(
    g: &GameState,
    target: &[(Action, f32)],
    search_wdl: [f32; 3],
    surprise: f32,
) -> PendingRow {
    let (planes, globals) = encode(g);
    let mut policy = vec![0.0f32; g.action_space()];
    for &(a, p) in target {
        policy[g.action_index(a)] = p;
    }
    let sum: f32 = policy.iter().sum();
    if sum > 0.0 {
        policy.iter_mut().for_each(|p| *p /= sum);
    }
    PendingRow {
        planes,
        globals,
        policy,
        to_move: g.to_move(),
        search_wdl,
        surprise,
        copies: 1,
        at_exploration: None,
    }
}

/// KataGo's policy-surprise weighting (`policySurpriseDataWeight`): of a game's `n` rows'
/// total weight `n`, the share `weight` is given out in proportion to each row's surprise and
/// the rest evenly, so a row gets `1 - weight + weight * n * surprise / total surprise`. A
/// weight becomes a whole number of copies by rounding up or down at random in proportion,
/// so the game keeps `n` rows on average and the positions where the search overruled the
/// net are learned from more often. With `weight` 0, or no surprise at all, every row keeps
/// one copy and `rng` is not used.
pub fn weigh_by_surprise(rows: &mut [PendingRow], weight: f32, rng: &mut Rng) {
    let total: f64 = rows.iter().map(|r| f64::from(r.surprise)).sum();
    if weight <= 0.0 || total <= 0.0 || !total.is_finite() {
        return;
    }
    let n = rows.len() as f64;
    let w = f64::from(weight);
    for r in rows {
        let x = (1.0 - w) + w * n * f64::from(r.surprise) / total;
        let whole = x.floor();
        r.copies = whole as u32 + u32::from(rng.unit() < x - whole);
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ending {
    /// The winner.
    pub winner: Outcome,
    /// Final score margin, Black minus White (komi included). For a resigned game, the
    /// search's estimate at the resignation.
    pub margin_black: f32,
    /// The player who resigned, if any.
    pub resigned: Option<Color>,
}

impl Ending {
    /// The ending of a game played to its end.
    pub fn scored(g: &GameState) -> Ending {
        let s = g.score();
        Ending { winner: s.winner, margin_black: s.margin_black() as f32, resigned: None }
    }
}

/// Final owner of each point (dense order) under the rules: stones only for Loose, area with
/// the rules' dead stones otherwise. For a resigned game this is the position at resignation.
pub fn final_ownership(g: &GameState) -> Vec<Option<Color>> {
    let b = g.turn_start_board();
    if g.rules().variant == Variant::Loose {
        return g.geo().points().map(|p| b.color(p)).collect();
    }
    owners(&b, &dead_stones(g, &b))
}

/// Completes the pending rows with the game's result, each from its own side to move's view.
/// The value target is the result, mixed with weight `search_mix` with the search's own
/// win/draw/loss at the position: the result of one game also carries every later
/// exploratory move of both sides, while the search judges the position as the players
/// would play it (in the spirit of KataGo's targets from later searches, `docs/references.md`).
///
/// Then, with weight `cut`, a row's value and score targets are replaced by the search's
/// estimate at the first exploratory move at or after it ([`mark_exploration`]): the game's
/// result after a temperature move is the result of a game that the searches would not have
/// played, and at a knife edge such as 7x7 Go, where one side must keep every point, it
/// teaches that side's positions to be worth less than they are. Rows after the last
/// exploratory move keep the result.
///
/// A row weighed by [`weigh_by_surprise`] comes out as many times as its copies.
pub fn rows(g: &GameState, pending: Vec<PendingRow>, end: Ending, search_mix: f32, cut: f32) -> Vec<Row> {
    let own = final_ownership(g);
    pending
        .into_iter()
        .flat_map(|p| {
            let copies = p.copies as usize;
            let c = p.to_move;
            let result = match end.winner {
                Outcome::Draw => [0.0, 1.0, 0.0],
                w if w.value_for(c) > 0.0 => [1.0, 0.0, 0.0],
                _ => [0.0, 0.0, 1.0],
            };
            let mut value = blend(result, p.search_wdl, search_mix);
            let mut score = if c == Color::Black { end.margin_black } else { -end.margin_black };
            if let (Some(at), true) = (p.at_exploration, cut > 0.0) {
                value = blend(value, at.wdl, cut);
                if at.score.is_finite() {
                    score = (1.0 - cut) * score + cut * at.score;
                }
            }
            let ownership = own
                .iter()
                .map(|o| match o {
                    Some(x) if *x == c => 1,
                    Some(_) => -1,
                    None => 0,
                })
                .collect();
            let row = Row { planes: p.planes, globals: p.globals, policy: p.policy, value, score, ownership };
            std::iter::repeat_n(row, copies)
        })
        .collect()
}

/// `(1 - w) * result + w * search`, renormalised so that it sums to 1 exactly as far as
/// floats allow (the search's numbers may be off by rounding).
fn blend(result: [f32; 3], search: [f32; 3], w: f32) -> [f32; 3] {
    if w <= 0.0 {
        return result;
    }
    let clean = search.map(|x| if x.is_finite() { x.max(0.0) } else { 0.0 });
    let total: f32 = clean.iter().sum();
    if total <= 0.0 {
        return result;
    }
    let mixed: [f32; 3] = std::array::from_fn(|i| (1.0 - w) * result[i] + w * clean[i] / total);
    let sum: f32 = mixed.iter().sum();
    mixed.map(|x| x / sum)
}

/// The SGF of a game given its actions (handicap none), with the result written as SGF `RE`.
pub fn sgf(rules: hane_engine::Rules, actions: &[Action], end: Ending) -> Result<String, SgfError> {
    let handicap: [Point; 0] = [];
    let mut game = SgfGame::from_actions(rules, &handicap, actions)?;
    game.result = Some(match (end.resigned, end.winner) {
        (Some(Color::Black), _) => "W+R".into(),
        (Some(Color::White), _) => "B+R".into(),
        (None, Outcome::Draw) => "0".into(),
        (None, Outcome::Black) => format!("B+{}", end.margin_black.abs()),
        (None, Outcome::White) => format!("W+{}", end.margin_black.abs()),
    });
    game.to_sgf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_target_mixes_the_result_with_the_search() {
        let win = [1.0, 0.0, 0.0];
        assert_eq!(blend(win, [0.2, 0.0, 0.8], 0.0), win);
        let m = blend(win, [0.2, 0.0, 0.8], 0.5);
        assert!((m[0] - 0.6).abs() < 1e-6 && m[1] == 0.0 && (m[2] - 0.4).abs() < 1e-6, "{m:?}");
        assert!((m.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        // A search that says nothing usable leaves the result.
        assert_eq!(blend(win, [f32::NAN, 0.0, 0.0], 0.5), win);
        // The search's numbers are normalised first.
        let m = blend([0.0, 0.0, 1.0], [2.0, 0.0, 2.0], 0.5);
        assert!((m[0] - 0.25).abs() < 1e-6 && (m[2] - 0.75).abs() < 1e-6, "{m:?}");
    }

    fn pending(surprise: f32) -> PendingRow {
        let g = GameState::new(hane_engine::Rules::preset("ttakji").unwrap());
        pending_row(&g, &[], [0.0, 1.0, 0.0], surprise)
    }

    #[test]
    fn surprise_weighting_moves_rows_to_surprises_and_keeps_their_number() {
        let mut rng = Rng::new(7);
        let copies = |rows: &[PendingRow]| rows.iter().map(|r| r.copies).collect::<Vec<_>>();
        // Off, or nothing surprising: one copy each.
        let mut rows: Vec<PendingRow> = [0.0, 0.5, 2.0].into_iter().map(pending).collect();
        weigh_by_surprise(&mut rows, 0.0, &mut rng);
        assert_eq!(copies(&rows), [1, 1, 1]);
        let mut flat: Vec<PendingRow> = [0.0, 0.0].into_iter().map(pending).collect();
        weigh_by_surprise(&mut flat, 0.5, &mut rng);
        assert_eq!(copies(&flat), [1, 1]);
        // All the weight by surprise: 3 rows' weight of 3 goes to the one surprise.
        let mut rows: Vec<PendingRow> = [0.0, 0.0, 1.5].into_iter().map(pending).collect();
        weigh_by_surprise(&mut rows, 1.0, &mut rng);
        assert_eq!(copies(&rows), [0, 0, 3]);
        // Half: 1/2 + 1/2 * 4 * share.
        let mut rows: Vec<PendingRow> = [1.0, 1.0, 1.0, 1.0].into_iter().map(pending).collect();
        weigh_by_surprise(&mut rows, 0.5, &mut rng);
        assert_eq!(copies(&rows), [1, 1, 1, 1]);
        // Fractions round at random and keep the number of rows on average.
        let mut rows: Vec<PendingRow> = (0..2000).map(|i| pending((i % 7) as f32 * 0.1)).collect();
        weigh_by_surprise(&mut rows, 0.5, &mut rng);
        let total: u32 = copies(&rows).iter().sum();
        assert!((1900..=2100).contains(&total), "{total}");
        assert!(rows[6].copies >= 1 && rows[0].copies <= 1);
        // Copies come out as rows.
        let g = GameState::new(hane_engine::Rules::preset("ttakji").unwrap());
        let end = Ending { winner: Outcome::Black, margin_black: 1.0, resigned: None };
        let mut three: Vec<PendingRow> = [0.0, 0.0, 1.5].into_iter().map(pending).collect();
        weigh_by_surprise(&mut three, 1.0, &mut rng);
        assert_eq!(super::rows(&g, three, end, 0.0, 0.0).len(), 3);
    }

    #[test]
    fn an_exploratory_move_gives_the_rows_before_it_the_searchs_estimate() {
        let g = GameState::new(hane_engine::Rules::preset("ttakji").unwrap());
        let row = |to_move: Color| PendingRow { to_move, ..pending(0.0) };
        let mut rows: Vec<PendingRow> =
            [Color::Black, Color::White, Color::Black, Color::White, Color::Black]
                .into_iter()
                .map(row)
                .collect();
        // After the third row Black explores while its search said +9 and a win for Black;
        // after the fourth White explores at Black +7 (White's view: -7, a loss).
        let black_best = Estimate { wdl: [0.8, 0.1, 0.1], score: 9.0 };
        mark_exploration(&mut rows[..3], Color::Black, black_best);
        mark_exploration(&mut rows[..4], Color::White, Estimate { wdl: [0.0, 0.0, 1.0], score: -7.0 });
        let end = Ending { winner: Outcome::White, margin_black: -2.0, resigned: None };
        let out = super::rows(&g, rows, end, 0.0, 1.0);
        let scores: Vec<f32> = out.iter().map(|r| r.score).collect();
        // Rows 0-2 (Black, White, Black to move) take Black's +9; row 3 (White) White's -7;
        // row 4, after the last exploration, the result (Black -2).
        assert_eq!(scores, [9.0, -9.0, 9.0, -7.0, -2.0]);
        assert_eq!(out[0].value, [0.8, 0.1, 0.1]);
        assert_eq!(out[1].value, [0.1, 0.1, 0.8]);
        assert_eq!(out[3].value, [0.0, 0.0, 1.0]);
        assert_eq!(out[4].value, [0.0, 0.0, 1.0]);
        // Half weight: halfway between the result and the estimate.
        let mut two: Vec<PendingRow> = [Color::Black, Color::White].into_iter().map(row).collect();
        mark_exploration(&mut two, Color::Black, black_best);
        let half = super::rows(&g, two, end, 0.0, 0.5);
        assert_eq!((half[0].score, half[1].score), (3.5, -3.5));
        assert!((half[0].value[0] - 0.4).abs() < 1e-6 && (half[0].value[2] - 0.55).abs() < 1e-6);
        // Off: the result everywhere.
        let mut off: Vec<PendingRow> = [Color::Black].into_iter().map(row).collect();
        mark_exploration(&mut off, Color::Black, black_best);
        assert_eq!(super::rows(&g, off, end, 0.0, 0.0)[0].score, -2.0);
    }
}
