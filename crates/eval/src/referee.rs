//! Games between two players refereed by hane: moves are checked and played on hane's own
//! board under hane's rules, the game ends by hane's rules, and hane's scoring decides it.
//! An external GTP engine that makes an illegal move loses by forfeit, and so does one that
//! does not answer in time or without end ([`GtpError::Unresponsive`]): it was killed, and it
//! is started again for the next game.

use crate::gtp::{failed, GtpEngine, GtpError};
use hane_engine::rules::Variant;
use hane_engine::score::dead_stones;
use hane_engine::{Action, Color, Game, GameState, Outcome, PlayError, Rules, Turn};
use hane_mcts::{Evaluator, Search, SearchConfig};

/// Searches `game` with `visits` visits per decision and returns the whole turn of the side
/// to move (two decisions for a Sligo turn; nothing when the game is over) and the game after
/// it, each decision the most visited action of a search seeded with `seed` and the turn
/// number. With `cleanup` (Go) it does not pass while the opponent still has dead stones on
/// the board: the move a GTP engine must make before a referee that removes no dead stones.
pub fn search_turn<E: Evaluator<GameState>>(
    evaluator: &mut E,
    game: &GameState,
    visits: u32,
    seed: u64,
    cleanup: bool,
) -> Result<(Vec<Action>, GameState), PlayError> {
    let c = game.to_move();
    let mut next = game.clone();
    let cfg = SearchConfig::for_board(next.geo().size());
    let mut actions = Vec::new();
    while !next.is_over() && (actions.is_empty() || next.to_move() == c) {
        let mut search = Search::new(next.clone(), cfg, seed ^ u64::from(next.turns()));
        search.run(evaluator, visits, 8);
        let mut a = search.select_action(0.0);
        if cleanup && a == Action::Pass && next.rules().variant == Variant::Go {
            let b = next.board();
            let dead = dead_stones(&next, b);
            if next.geo().points().any(|p| dead.contains(p) && b.color(p) == Some(c.opp())) {
                let moves = search.root_children().into_iter().filter(|s| s.action != Action::Pass);
                if let Some(best) = moves.max_by_key(|s| s.visits) {
                    a = best.action;
                }
            }
        }
        actions.push(a);
        next.play(a)?;
    }
    Ok((actions, next))
}

/// Someone who chooses moves.
pub trait Player {
    /// A name for reports.
    fn name(&self) -> String;
    /// Starts a new game.
    fn new_game(&mut self, rules: &Rules) -> Result<(), GtpError>;
    /// Chooses the next turn of `g.to_move()`.
    fn choose(&mut self, g: &GameState) -> Result<Turn, GtpError>;
    /// Learns the opponent's turn, played from `before`.
    fn observe(&mut self, before: &GameState, turn: Turn) -> Result<(), GtpError>;
}

/// hane's search with an evaluator, playing in-process.
#[derive(Debug)]
pub struct SearchPlayer<E: Evaluator<GameState>> {
    /// Evaluator (a net, or a stand-in).
    pub evaluator: E,
    /// Visits per decision.
    pub visits: u32,
    /// Seed of the search.
    pub seed: u64,
    /// Name for reports.
    pub label: String,
}

impl<E: Evaluator<GameState>> Player for SearchPlayer<E> {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn new_game(&mut self, _: &Rules) -> Result<(), GtpError> {
        Ok(())
    }

    fn choose(&mut self, g: &GameState) -> Result<Turn, GtpError> {
        self.seed = self.seed.wrapping_add(1);
        let (actions, _) = search_turn(&mut self.evaluator, g, self.visits, self.seed, false)
            .map_err(|e| failed(format!("search chose an illegal action: {e}")))?;
        let names = || actions.iter().map(|a| a.name(g.geo())).collect::<Vec<_>>().join(" ");
        Turn::of_actions(g, &actions).ok_or_else(|| failed(format!("search made no turn: {}", names())))
    }

    fn observe(&mut self, _: &GameState, _: Turn) -> Result<(), GtpError> {
        Ok(())
    }
}

/// An external engine over GTP (Go rule sets only).
#[derive(Debug)]
pub struct GtpPlayer {
    /// The engine.
    pub engine: GtpEngine,
}

fn letter(c: Color) -> &'static str {
    match c {
        Color::Black => "b",
        Color::White => "w",
    }
}

impl Player for GtpPlayer {
    fn name(&self) -> String {
        self.engine.name().to_string()
    }

    fn new_game(&mut self, rules: &Rules) -> Result<(), GtpError> {
        if rules.variant != Variant::Go {
            return Err(failed("external GTP engines only play the Go rule sets"));
        }
        self.engine.restart()?;
        self.engine.send(&format!("boardsize {}", rules.size))?;
        self.engine.send("clear_board")?;
        self.engine.send(&format!("komi {}", rules.komi))?;
        Ok(())
    }

    fn choose(&mut self, g: &GameState) -> Result<Turn, GtpError> {
        let reply = self.engine.send(&format!("genmove {}", letter(g.to_move())))?;
        let m = reply.trim().to_ascii_lowercase();
        if m == "pass" || m == "resign" {
            // Resignation is treated as a pass; hane's rules decide the game.
            return Ok(Turn::Pass);
        }
        let p = g.geo().parse(&m).map_err(|e| failed(format!("{}: {e}", self.name())))?;
        Ok(Turn::Place(p))
    }

    fn observe(&mut self, before: &GameState, turn: Turn) -> Result<(), GtpError> {
        let c = letter(before.to_move());
        self.engine.send(&format!("play {c} {}", turn.name(before.geo()))).map(|_| ())
    }
}

/// How one game went.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct GameResult {
    /// Name of the Black player.
    pub black: String,
    /// Name of the White player.
    pub white: String,
    /// `b`, `w` or `draw`.
    pub winner: String,
    /// Black's total minus White's (komi included), by hane's scoring.
    pub margin_black: f64,
    /// Turns played.
    pub turns: u32,
    /// Set when a player forfeited (an illegal move, no answer in time): who, and why.
    pub forfeit: Option<String>,
    /// Every action played, in order (GTP coordinates, `pass`, Sligo sub-actions).
    pub moves: Vec<String>,
}

/// How a game ended before its rules ended it.
enum Ended {
    /// The player of this colour forfeited, for this reason (its name included).
    Forfeit(Color, String),
    /// The game could not go on.
    Error(GtpError),
}

/// What an exchange with `player` (of colour `c`) that failed with `e` means for the game:
/// an engine that did not answer forfeits it.
fn ended(player: &dyn Player, c: Color, e: GtpError) -> Ended {
    match e {
        GtpError::Unresponsive(why) => Ended::Forfeit(c, format!("{} ({}): {why}", player.name(), letter(c))),
        e => Ended::Error(e),
    }
}

/// Plays one game from the empty board; `black` moves first. The `opening` turns are played
/// by the referee and shown to both players (see [`crate::arena::opening`]). A player that
/// makes an illegal move, or does not answer in time, loses by forfeit.
pub fn play_game(
    rules: Rules,
    black: &mut dyn Player,
    white: &mut dyn Player,
    opening: &[Turn],
) -> Result<GameResult, GtpError> {
    let mut g = GameState::new(rules);
    let mut moves = Vec::new();
    let forfeit = match play_out(&mut g, &mut moves, black, white, opening) {
        Ok(()) => None,
        Err(Ended::Forfeit(c, why)) => Some((c, why)),
        Err(Ended::Error(e)) => return Err(e),
    };
    let (winner, margin) = match &forfeit {
        Some((Color::Black, _)) => (Outcome::White, 0.0),
        Some((Color::White, _)) => (Outcome::Black, 0.0),
        None => {
            let s = g.score();
            (s.winner, s.margin_black())
        }
    };
    Ok(GameResult {
        black: black.name(),
        white: white.name(),
        winner: winner.letter().into(),
        margin_black: margin,
        turns: g.turns(),
        forfeit: forfeit.map(|(_, why)| why),
        moves,
    })
}

/// Plays the game `g` (from the empty board) to its end or a forfeit, adding the actions to
/// `moves`.
fn play_out(
    g: &mut GameState,
    moves: &mut Vec<String>,
    black: &mut dyn Player,
    white: &mut dyn Player,
    opening: &[Turn],
) -> Result<(), Ended> {
    let rules = *g.rules();
    black.new_game(&rules).map_err(|e| ended(black, Color::Black, e))?;
    white.new_game(&rules).map_err(|e| ended(white, Color::White, e))?;
    for &turn in opening {
        let before = g.clone();
        let actions =
            turn.play(g).map_err(|e| Ended::Error(failed(format!("opening turn is illegal: {e}"))))?;
        black.observe(&before, turn).map_err(|e| ended(black, Color::Black, e))?;
        white.observe(&before, turn).map_err(|e| ended(white, Color::White, e))?;
        moves.extend(actions.iter().map(|a| a.name(g.geo())));
    }
    while !g.is_over() {
        let c = g.to_move();
        let (mover, other): (&mut dyn Player, &mut dyn Player) =
            if c == Color::Black { (&mut *black, &mut *white) } else { (&mut *white, &mut *black) };
        let turn = mover.choose(g).map_err(|e| ended(mover, c, e))?;
        let before = g.clone();
        match turn.play(g) {
            Ok(actions) => moves.extend(actions.iter().map(|a| a.name(g.geo()))),
            Err(e) => return Err(Ended::Forfeit(c, format!("{} ({}): {e}", mover.name(), letter(c)))),
        }
        other.observe(&before, turn).map_err(|e| ended(other, c.opp(), e))?;
    }
    Ok(())
}
