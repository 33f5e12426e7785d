//! Is a book's minimax pulled towards one side by picking the best of several noisy
//! estimates (the winner's curse)? For the nodes of one colour with two or more unsettled
//! book children, every child is searched afresh, once as the book saw it and once in
//! another orientation of the board (so the net, which sees each position in a symmetry
//! picked by its hash, looks at it differently), and the fresh values are printed beside the
//! book's, for the child the node's minimax picks and for the others (docs/lab-notes.md).
//!
//! `cargo run --release -p hane-pipeline --example book_selection -- BOOK MODEL VISITS NODES
//! black|white`; one line per child: node, ply, child, picked, leaf, the book's lead, and the
//! fresh searches' root mean and best move's lead in the book's orientation, then in another.

use hane_book::Book;
use hane_engine::symmetry::Symmetry;
use hane_engine::{Color, Game, GameState, Rules};
use hane_mcts::{Evaluator, Precision, Search, SearchConfig};
use std::path::Path;

/// Black's lead after a search of `state`: the root's mean and its most visited move's.
fn fresh(
    state: &GameState,
    ev: &mut impl Evaluator<GameState>,
    visits: u32,
    cfg: SearchConfig,
) -> (f32, f32) {
    let mut s = Search::new(state.clone(), cfg, 7);
    s.run(ev, visits, 16);
    let sign = if state.to_move() == Color::Black { 1.0 } else { -1.0 };
    let mean = sign * s.root_value().score;
    (mean, s.most_visited_child().map_or(mean, |c| sign * c.score))
}

fn main() -> Result<(), String> {
    let a: Vec<String> = std::env::args().collect();
    let [_, book, model, visits, max_nodes, side] = &a[..] else {
        return Err("usage: book_selection BOOK MODEL VISITS NODES black|white".into());
    };
    let book = Book::read(Path::new(book)).map_err(|e| e.to_string())?;
    let visits: u32 = visits.parse().map_err(|_| "VISITS: a number")?;
    let max_nodes: usize = max_nodes.parse().map_err(|_| "NODES: a number")?;
    let side = if side == "black" { Color::Black } else { Color::White };
    let rules: Rules = book.header.rules.parse().map_err(|e| format!("the book's rules: {e}"))?;
    let (mut ev, _) = hane_pipeline::net_rules::load(Path::new(model), &rules, Precision::Fp32)
        .map_err(|e| e.to_string())?;
    let mut cfg = SearchConfig::for_board(rules.size as usize).with_noise(false);
    cfg.prune_premature_pass = false;
    // The mover's view of "better" for Black's lead: the picked child is the best by it.
    let sign = if side == Color::Black { 1.0 } else { -1.0 };
    let nodes = &book.nodes;
    println!("node ply child picked leaf book same_mean same_best other_mean other_best");
    let chosen = nodes.iter().enumerate().filter(|(_, n)| n.state.to_move() == side && n.exact.is_none());
    let mut done = 0;
    for (i, n) in chosen {
        let mut kids: Vec<u32> = n.children.iter().map(|e| e.child).collect();
        kids.sort_unstable();
        kids.dedup();
        kids.retain(|&c| nodes[c as usize].exact.is_none());
        let Some(&picked) = kids.iter().max_by(|&&x, &&y| {
            (sign * nodes[x as usize].value.lead).total_cmp(&(sign * nodes[y as usize].value.lead))
        }) else {
            continue;
        };
        if kids.len() < 2 {
            continue;
        }
        for &c in &kids {
            let cn = &nodes[c as usize];
            let same = fresh(&cn.state, &mut ev, visits, cfg);
            let sym = Symmetry::from_index(1 + c as usize % 7).ok_or("a symmetry")?;
            let mut g = GameState::new(rules);
            let geo = g.geo();
            for &m in &cn.moves {
                g.play(sym.apply_action(geo, m)).map_err(|e| e.to_string())?;
            }
            let other = fresh(&g, &mut ev, visits, cfg);
            println!(
                "{i} {} {c} {} {} {:.3} {:.3} {:.3} {:.3} {:.3}",
                cn.moves.len(),
                u8::from(c == picked),
                u8::from(!cn.searched),
                cn.value.lead,
                same.0,
                same.1,
                other.0,
                other.1
            );
        }
        done += 1;
        if done >= max_nodes {
            break;
        }
    }
    Ok(())
}
