//! How far is a book estimate from what more search says? For searched nodes of a book, the
//! node is searched as the book searches it (`VISITS`), its best move is played, and the
//! position after it is searched with `VISITS` and with `DEEP` visits; each line prints the
//! estimate of the best move (Black's lead), its score spread, the two later values of the
//! same position (the searches' best moves) and the estimate's visits, so that a bracket's
//! error model can be checked against the errors it is meant to cover (docs/book.md).
//!
//! `cargo run --release -p hane-pipeline --example book_errors -- BOOK MODEL VISITS DEEP NODES`

use hane_book::Book;
use hane_engine::{Color, Game, GameState, Rules};
use hane_mcts::{ChildStats, Evaluator, Precision, Search, SearchConfig};
use std::path::Path;

/// The most visited root child after a search of `state` to `visits`.
fn search(
    state: &GameState,
    ev: &mut impl Evaluator<GameState>,
    visits: u32,
    cfg: SearchConfig,
    seed: u64,
) -> Option<ChildStats<hane_engine::Action>> {
    let mut s = Search::new(state.clone(), cfg, seed);
    s.run(ev, visits, 16);
    s.most_visited_child()
}

fn black(mover: Color, score: f32) -> f32 {
    if mover == Color::Black {
        score
    } else {
        -score
    }
}

fn main() -> Result<(), String> {
    let a: Vec<String> = std::env::args().collect();
    let [_, book, model, visits, deep, max_nodes] = &a[..] else {
        return Err("usage: book_errors BOOK MODEL VISITS DEEP NODES".into());
    };
    let book = Book::read(Path::new(book)).map_err(|e| e.to_string())?;
    let visits: u32 = visits.parse().map_err(|_| "VISITS: a number")?;
    let deep: u32 = deep.parse().map_err(|_| "DEEP: a number")?;
    let max_nodes: usize = max_nodes.parse().map_err(|_| "NODES: a number")?;
    let rules: Rules = book.header.rules.parse().map_err(|e| format!("the book's rules: {e}"))?;
    let (mut ev, _) = hane_pipeline::net_rules::load(Path::new(model), &rules, Precision::Fp32)
        .map_err(|e| e.to_string())?;
    let mut cfg = SearchConfig::for_board(rules.size as usize).with_noise(false);
    cfg.prune_premature_pass = false;
    let searched: Vec<usize> =
        (0..book.nodes.len()).filter(|&i| book.nodes[i].searched && book.nodes[i].exact.is_none()).collect();
    // An even spread over the searched nodes, in book order (roughly by cost from the root).
    let step = (searched.len() / max_nodes.max(1)).max(1);
    println!("node turn estimate spread later deep visits");
    for (k, &i) in searched.iter().step_by(step).take(max_nodes).enumerate() {
        let n = &book.nodes[i];
        let seed = 1000 + k as u64;
        let Some(best) = search(&n.state, &mut ev, visits, cfg, seed) else { continue };
        let mover = n.state.to_move();
        let mut after = n.state.clone();
        after.play(best.action).map_err(|e| e.to_string())?;
        if after.is_over() {
            continue;
        }
        let next = after.to_move();
        let Some(later) = search(&after, &mut ev, visits, cfg, seed + 7919) else { continue };
        let Some(far) = search(&after, &mut ev, deep, cfg, seed + 15_485) else { continue };
        println!(
            "{i} {} {:.3} {:.3} {:.3} {:.3} {}",
            n.moves.len(),
            black(mover, best.score),
            best.score_stdev,
            black(next, later.score),
            black(next, far.score),
            best.visits
        );
    }
    Ok(())
}
