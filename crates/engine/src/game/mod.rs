//! The game state: a [`Board`] plus rules, whose turn it is, history, passes and the turn
//! count; the search is generic over the [`Game`] trait that [`GameState`] implements.
//!
//! This file holds the state and the turn flow that every rule set shares: checking the
//! kind of an action, handing it to its rule set, finishing the turn. Where the rule sets
//! differ lives in one private submodule each: `go` (occupied, suicide, ko and superko,
//! decided without allocation on the playout hot path), `loose` (flips and true liberties)
//! and `sligo` (the slide, the placement, weak pairs). `history` keeps the positions for
//! the ko rules and Sligo's repetition count; `settled` decides when a pass is premature in
//! area-scoring Go ([`GameState::pass_is_premature`]).

mod go;
mod history;
mod loose;
mod settled;
mod sligo;

use crate::action::Action;
use crate::board::{Board, Color, EMPTY};
use crate::point::{Geometry, Point};
use crate::rules::{Komi, Rules, RulesError, Variant};
use crate::score::{self, Countable, Score};
use crate::zobrist;
use history::History;
use loose::loose_place;
use sligo::sligo_place;
use std::fmt;

pub use crate::board::is_true_eye;
pub use crate::score::Outcome;
pub use sligo::{has_weak_pair, weak_pair_near};

/// Why an action was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlayError {
    /// The game is over.
    GameOver,
    /// The point is not empty.
    Occupied(String),
    /// The placed stone's chain would have no liberty (and suicide is forbidden).
    Suicide(String),
    /// Simple ko: recreates the position after the same player's previous move.
    Ko(String),
    /// Positional superko: recreates an earlier position.
    Superko(String),
    /// Loose: some group of the mover would end the turn without a true liberty.
    NoTrueLiberty(String),
    /// Sligo: the turn would leave a weak pair.
    WeakPair(String),
    /// Sligo: the slide needs an own stone.
    NotOwnStone(String),
    /// Sligo: the slide target is off the board or occupied.
    SlideBlocked(String),
    /// Sligo: no placement completes a legal turn after this slide.
    NoLegalPlacement(String),
    /// Sligo: the same turn is reached by another, canonical action sequence.
    Duplicate(String),
    /// The action does not belong to this rule set or this phase of the turn.
    WrongPhase(String),
    /// A point outside the board.
    OffBoard,
    /// Handicap stones can only be set before the first move of a Go game.
    Handicap(String),
}

impl fmt::Display for PlayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayError::GameOver => write!(f, "the game is over"),
            PlayError::Occupied(p) => write!(f, "{p} is occupied"),
            PlayError::Suicide(p) => write!(f, "{p} is suicide"),
            PlayError::Ko(p) => write!(f, "{p} retakes a ko (simple ko)"),
            PlayError::Superko(p) => {
                write!(f, "{p} repeats an earlier position (positional superko)")
            }
            PlayError::NoTrueLiberty(p) => write!(f, "{p} leaves a group without a true liberty"),
            PlayError::WeakPair(p) => write!(f, "{p} leaves a weak pair"),
            PlayError::NotOwnStone(p) => write!(f, "{p} is not a stone of the player to move"),
            PlayError::SlideBlocked(s) => {
                write!(f, "slide {s} is blocked (occupied or off the board)")
            }
            PlayError::NoLegalPlacement(s) => {
                write!(f, "no placement completes a legal turn after {s}")
            }
            PlayError::Duplicate(s) => write!(f, "same turn as {s}"),
            PlayError::WrongPhase(s) => write!(f, "{s}"),
            PlayError::OffBoard => write!(f, "point is off the board"),
            PlayError::Handicap(s) => write!(f, "{s}"),
        }
    }
}

impl std::error::Error for PlayError {}

/// What a search needs from a game. [`GameState`] implements it for every rule set.
pub trait Game: Clone + Send + Sync {
    /// A decision of the player to move.
    type Action: Copy + Eq + std::hash::Hash + fmt::Debug + Send + Sync;
    /// The player who chooses the next action.
    fn to_move(&self) -> Color;
    /// Appends every legal action (in a fixed, sorted order) to `out`.
    fn legal_actions(&self, out: &mut Vec<Self::Action>);
    /// Plays a checked action.
    fn play(&mut self, a: Self::Action) -> Result<(), PlayError>;
    /// Plays an action that `legal_actions` listed for this state; anything else is a logic
    /// error whose result is unspecified (but memory-safe).
    fn play_unchecked(&mut self, a: Self::Action);
    /// Whether the game has ended.
    fn is_over(&self) -> bool;
    /// The score if the game ended now.
    fn score(&self) -> Score;
    /// Hash of the full state relevant to legality and value (stones, side, phase).
    fn state_hash(&self) -> u64;
    /// Dense index of an action in `0..action_space()`.
    fn action_index(&self, a: Self::Action) -> usize;
    /// Size of the action space.
    fn action_space(&self) -> usize;
    /// Removes a pass from `legal` (this state's legal actions, as listed) when passing now
    /// would be premature, leaving at least one action; searches call it where a node's
    /// actions become its edges. The default keeps every action. [`GameState`] drops the
    /// pass in area-scoring Go while the mover has an open placement
    /// ([`GameState::pass_is_premature`]).
    fn drop_premature_pass(&self, _legal: &mut Vec<Self::Action>) {}
}

/// Where a Sligo turn is: choosing the slide, or placing after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// The first (or only) decision of a turn.
    Start,
    /// Sligo: the placement, after `NoSlide` (`None`) or a slide from the first point to the second.
    Place(Option<(Point, Point)>),
}

/// A game in progress under some [`Rules`].
pub struct GameState {
    rules: Rules,
    board: Board,
    to_move: Color,
    phase: Phase,
    passes: u8,
    turns: u32,
    over: bool,
    /// Stone hashes after every completed turn, starting with the initial position.
    history: History,
    /// Stones of each colour captured by the opponent (Go) so far.
    captured: [u32; 2],
    last_placer: Option<Color>,
    repetitions: u32,
    /// The rules' turn cap ([`Rules::max_turns`]), looked up once.
    max_turns: u32,
    /// The points of the last [`RECENT`] placements, most recent first (`None`: fewer so far).
    recent: [Option<Point>; RECENT],
}

/// How many recent placements a [`GameState`] remembers (for the net's input features).
pub const RECENT: usize = 5;

impl Clone for GameState {
    fn clone(&self) -> GameState {
        GameState { board: self.board.clone(), history: self.history.clone(), ..*self }
    }

    /// Reuses the board's and the history's storage (see [`Board`]'s `clone_from`): a
    /// playout loop that restarts from one position copies a fraction of it.
    fn clone_from(&mut self, src: &GameState) {
        let GameState {
            rules,
            board,
            to_move,
            phase,
            passes,
            turns,
            over,
            history,
            captured,
            last_placer,
            repetitions,
            max_turns,
            recent,
        } = src;
        self.rules = *rules;
        self.board.clone_from(board);
        self.to_move = *to_move;
        self.phase = *phase;
        self.passes = *passes;
        self.turns = *turns;
        self.over = *over;
        self.history.clone_from(history);
        self.captured = *captured;
        self.last_placer = *last_placer;
        self.repetitions = *repetitions;
        self.max_turns = *max_turns;
        self.recent = *recent;
    }
}

impl GameState {
    /// A new game on an empty board; the rules must be valid.
    pub fn new(rules: Rules) -> GameState {
        rules.validate().expect("GameState::new needs valid rules");
        let board = Board::new(rules.size);
        let mut g = GameState {
            rules,
            history: History::default(),
            board,
            to_move: Color::Black,
            phase: Phase::Start,
            passes: 0,
            turns: 0,
            over: false,
            captured: [0; 2],
            last_placer: None,
            repetitions: 0,
            max_turns: rules.max_turns(),
            recent: [None; RECENT],
        };
        g.remember(g.board.hash());
        g
    }

    /// Appends a position to the history.
    fn remember(&mut self, h: u64) {
        self.history.push(h);
    }

    /// A Go game whose first Black move places the given handicap stones; White moves next.
    pub fn with_handicap(rules: Rules, stones: &[Point]) -> Result<GameState, PlayError> {
        let mut g = GameState::new(rules);
        g.set_handicap(stones)?;
        Ok(g)
    }

    /// Places handicap stones as Black's first move (Go only, before any move).
    pub fn set_handicap(&mut self, stones: &[Point]) -> Result<(), PlayError> {
        if self.rules.variant != Variant::Go || self.turns != 0 || self.board.stone_count(Color::Black) != 0 {
            return Err(PlayError::Handicap("handicap needs a Go rule set and an empty board".into()));
        }
        if stones.len() < 2 {
            return Err(PlayError::Handicap("a handicap has at least 2 stones".into()));
        }
        // Every point is checked before the first stone goes down: a refused handicap leaves
        // the board as it was.
        for (i, &p) in stones.iter().enumerate() {
            if !self.geo().on_board(p) {
                return Err(PlayError::OffBoard);
            }
            if self.board.at(p) != EMPTY || stones[..i].contains(&p) {
                return Err(PlayError::Occupied(self.name(p)));
            }
        }
        for &p in stones {
            self.board.put(p, Color::Black);
        }
        self.to_move = Color::White;
        self.turns = 1;
        self.remember(self.board.hash());
        Ok(())
    }

    /// Gives the turn to the opponent with a pass that does not bring the game closer to its
    /// end: the pass a GTP controller implies when it plays one colour twice (`play b pass`,
    /// then `play b D4` must not end the game). Like any pass it is a turn (the turn cap
    /// counts it, and simple ko's reference becomes the current position), but the count of
    /// consecutive passes stays as it was: the run of passes goes on from where the mover
    /// left it, as if the implied pass were not there.
    pub fn pass_implied(&mut self) -> Result<(), PlayError> {
        if self.over {
            return Err(PlayError::GameOver);
        }
        if self.phase != Phase::Start {
            return Err(PlayError::WrongPhase("a Sligo turn is half played".into()));
        }
        let passes = self.passes;
        self.finish_turn(None);
        self.passes = passes;
        // The game was not over, so only the turn cap can end it here.
        self.over = self.turns >= self.max_turns;
        Ok(())
    }

    /// This game with `komi` instead of the rules' komi, everything else kept (GTP's `komi`
    /// during a game: the position and its history stay). Fails, changing nothing, when the
    /// rules refuse that komi (Loose's komi is an even integer).
    pub fn with_komi(&self, komi: Komi) -> Result<GameState, RulesError> {
        let mut rules = self.rules;
        rules.komi = komi;
        rules.validate()?;
        Ok(GameState { rules, ..self.clone() })
    }

    /// This position and its history under other rules of the same variant and board size
    /// (scoring, ko, suicide, komi, dead stones and turn cap may differ): how a net trained
    /// under one Go rule set is shown a position played under another. The board, the side
    /// to move, the passes and the history stay; only the rules' fields change, so a
    /// position reached by a move the new rules forbid (a suicide) is kept as it is.
    pub fn with_rules(&self, rules: Rules) -> Result<GameState, RulesError> {
        rules.validate()?;
        if (rules.variant, rules.size) != (self.rules.variant, self.rules.size) {
            return Err(RulesError(format!("{rules} is another game than {}", self.rules)));
        }
        Ok(GameState { rules, max_turns: rules.max_turns(), ..self.clone() })
    }

    /// The rules.
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// The current board (in a Sligo placement phase: with the slide applied).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Board geometry.
    pub fn geo(&self) -> Geometry {
        self.board.geo()
    }

    /// The Sligo sub-action phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// Completed turns (passes count; a Sligo turn is one turn).
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// Consecutive passes at the end of the game so far.
    pub fn passes(&self) -> u8 {
        self.passes
    }

    /// Stones of `c` captured by the opponent so far (Go).
    pub fn captured(&self, c: Color) -> u32 {
        self.captured[c.index()]
    }

    /// Who made the last placement (Loose's tie-break).
    pub fn last_placer(&self) -> Option<Color> {
        self.last_placer
    }

    /// How often a completed turn recreated an earlier position (Sligo statistics).
    pub fn repetitions(&self) -> u32 {
        self.repetitions
    }

    /// GTP name of a point.
    pub fn name(&self, p: Point) -> String {
        self.geo().name(p)
    }

    /// The board as it was at the start of the current turn (undoes a pending Sligo slide).
    pub fn turn_start_board(&self) -> Board {
        let mut b = self.board.clone();
        if let Phase::Place(Some((f, t))) = self.phase {
            b.remove_stone(t);
            b.put(f, self.to_move);
        }
        b
    }

    /// The points of the last placements (at most [`RECENT`]), most recent first; passes are
    /// not placements, and a handicap is none.
    pub fn recent_placements(&self) -> impl Iterator<Item = Point> + '_ {
        self.recent.iter().map_while(|p| *p)
    }

    #[inline]
    fn finish_turn(&mut self, placed: Option<Point>) {
        let mover = self.to_move;
        if let Some(p) = placed {
            self.recent.copy_within(0..RECENT - 1, 1);
            self.recent[0] = Some(p);
            self.passes = 0;
            self.last_placer = Some(mover);
            let h = self.board.hash();
            if self.rules.variant == Variant::Sligo && self.history.contains(h) {
                self.repetitions += 1;
            }
            self.remember(h);
        } else {
            self.passes += 1;
            self.remember(self.board.hash());
        }
        self.turns += 1;
        self.phase = Phase::Start;
        self.to_move = mover.opp();
        if self.passes >= 2 || self.turns >= self.max_turns {
            self.over = true;
        }
    }

    /// Whether the action is of the right kind for this rule set and phase.
    fn check_kind(&self, a: Action) -> Result<(), PlayError> {
        let ok = match (self.rules.variant, self.phase, a) {
            (Variant::Sligo, Phase::Start, Action::Place(_)) => {
                return Err(PlayError::WrongPhase("a Sligo turn starts with noslide, a slide or pass".into()))
            }
            (Variant::Sligo, Phase::Start, _) => true,
            (Variant::Sligo, Phase::Place(_), Action::Place(_)) => true,
            (Variant::Sligo, Phase::Place(_), _) => {
                return Err(PlayError::WrongPhase("a Sligo slide must be followed by a placement".into()))
            }
            (_, _, Action::Place(_) | Action::Pass) => true,
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(PlayError::WrongPhase(format!("{} is not an action of this rule set", a.name(self.geo()))))
        }
    }

    /// Go and Loose, and Sligo's placement phase: whether placing at the empty-or-not point
    /// `p` is legal.
    pub fn placement_is_legal(&self, p: Point) -> bool {
        self.geo().on_board(p) && self.on_board_placement_is_legal(p)
    }

    /// [`GameState::placement_is_legal`] for a point known to be on the board (one from
    /// [`Board::empties`], say), without the bounds test.
    #[inline]
    pub fn on_board_placement_is_legal(&self, p: Point) -> bool {
        match self.rules.variant {
            Variant::Go => self.go_why_illegal(p).is_none(),
            Variant::Loose => self.loose_legal(p),
            Variant::Sligo => self.sligo_legal(p),
        }
    }

    /// The rest of [`Game::play_unchecked`]: the Loose and Sligo actions. Never inlined, like
    /// [`GameState::loose_legal`]: its fallback to `play` copies boards.
    #[inline(never)]
    fn play_unchecked_other(&mut self, a: Action) {
        let c = self.to_move;
        match (self.rules.variant, self.phase, a) {
            (Variant::Sligo, _, Action::NoSlide | Action::Slide(..)) => self.begin_sligo_turn(a),
            // A listed placement is legal: it is made on the board itself, without a copy.
            (Variant::Sligo, Phase::Place(slide), Action::Place(q)) => {
                let _ = sligo_place(&mut self.board, c, slide, q);
                self.finish_turn(Some(q));
            }
            (Variant::Loose, _, Action::Place(p)) => {
                let _ = loose_place(&mut self.board, c, p);
                self.finish_turn(Some(p));
            }
            _ => self.play(a).expect("play_unchecked with an illegal action"),
        }
    }

    /// The error for a refused placement at `p`, with names.
    fn refusal_error(&self, r: Refusal, p: Point) -> PlayError {
        let name = |q| self.name(q);
        match r {
            Refusal::Occupied => PlayError::Occupied(name(p)),
            Refusal::NoTrueLiberty => PlayError::NoTrueLiberty(name(p)),
            Refusal::Suicide => PlayError::Suicide(name(p)),
            Refusal::WeakPair => PlayError::WeakPair(name(p)),
            Refusal::WrongPhase => {
                PlayError::WrongPhase("a Sligo placement comes after noslide or a slide".into())
            }
            Refusal::SameAsNoSlide(t) => PlayError::Duplicate(format!("{} without a slide", name(t))),
            Refusal::SameAsSlide(f, q, t) => {
                PlayError::Duplicate(format!("{}>{}+{}", name(f), name(q), name(t)))
            }
        }
    }

    /// The winner and score if the game ended now (see [`score::score`]).
    pub fn outcome(&self) -> Outcome {
        self.score().winner
    }
}

/// Why a Loose or Sligo placement is refused, without the allocation of a [`PlayError`]
/// (see [`GameState::refusal_error`]).
#[derive(Clone, Copy)]
enum Refusal {
    Occupied,
    NoTrueLiberty,
    Suicide,
    WeakPair,
    WrongPhase,
    /// The same turn as placing on the slide's target without the slide.
    SameAsNoSlide(Point),
    /// The same turn as the slide from the first point to the second, then placing on the third.
    SameAsSlide(Point, Point, Point),
}

impl Game for GameState {
    type Action = Action;

    fn to_move(&self) -> Color {
        self.to_move
    }

    fn legal_actions(&self, out: &mut Vec<Action>) {
        if self.over {
            return;
        }
        let start = out.len();
        let geo = self.geo();
        match (self.rules.variant, self.phase) {
            (Variant::Go, _) => {
                out.extend(
                    self.board.empties().filter(|&p| self.go_why_illegal(p).is_none()).map(Action::Place),
                );
                out.push(Action::Pass);
            }
            (Variant::Loose, _) => {
                out.extend(self.board.empties().filter(|&p| self.loose_legal(p)).map(Action::Place));
                out.push(Action::Pass);
            }
            (Variant::Sligo, Phase::Start) => self.sligo_first_actions(out),
            (Variant::Sligo, Phase::Place(_)) => self.sligo_placements(out),
        }
        out[start..].sort_unstable_by_key(|a| a.index(geo));
    }

    fn play(&mut self, a: Action) -> Result<(), PlayError> {
        if self.over {
            return Err(PlayError::GameOver);
        }
        self.check_kind(a)?;
        if let Action::Place(p) | Action::Slide(p, _) = a {
            if !self.geo().on_board(p) {
                return Err(PlayError::OffBoard);
            }
        }
        match (self.rules.variant, a) {
            (_, Action::Pass) => self.finish_turn(None),
            (Variant::Go, Action::Place(p)) => {
                self.check_go(p)?;
                self.apply_go(p);
            }
            (Variant::Loose, Action::Place(p)) => {
                self.board = self.loose_after(p).map_err(|r| self.refusal_error(r, p))?;
                self.finish_turn(Some(p));
            }
            (Variant::Sligo, Action::Place(q)) => {
                self.board = self.sligo_after(q).map_err(|r| self.refusal_error(r, q))?;
                self.finish_turn(Some(q));
            }
            (Variant::Sligo, Action::NoSlide | Action::Slide(..)) => self.play_sligo_first(a)?,
            _ => unreachable!("check_kind filtered the rest"),
        }
        Ok(())
    }

    fn play_unchecked(&mut self, a: Action) {
        match (self.rules.variant, a) {
            (_, Action::Pass) => self.finish_turn(None),
            (Variant::Go, Action::Place(p)) => self.apply_go(p),
            _ => self.play_unchecked_other(a),
        }
    }

    fn is_over(&self) -> bool {
        self.over
    }

    fn score(&self) -> Score {
        score::score(self)
    }

    fn state_hash(&self) -> u64 {
        let mut h = self.board.hash();
        if self.to_move == Color::White {
            h ^= zobrist::WHITE_TO_MOVE;
        }
        match self.phase {
            Phase::Start => {}
            Phase::Place(None) => h ^= zobrist::phase_key(0),
            // The origin of the slide matters as much as its target: it decides which
            // placements are duplicates, and the same board after a slide can come from
            // different turn-start positions.
            Phase::Place(Some((f, t))) => {
                h ^= zobrist::phase_key(f.idx() * crate::point::MAX_CELLS + t.idx())
            }
        }
        h ^ u64::from(self.passes) << 61
    }

    fn action_index(&self, a: Action) -> usize {
        a.index(self.geo())
    }

    fn action_space(&self) -> usize {
        crate::PolicyLayout::of(&self.rules).len()
    }

    fn drop_premature_pass(&self, legal: &mut Vec<Action>) {
        settled::drop_premature_pass(self, legal);
    }
}

impl Countable for GameState {
    fn rules(&self) -> &Rules {
        &self.rules
    }

    fn turn_start_board(&self) -> Board {
        GameState::turn_start_board(self)
    }

    fn captured(&self, c: Color) -> u32 {
        self.captured[c.index()]
    }

    fn last_placer(&self) -> Option<Color> {
        self.last_placer
    }
}

/// The rules, the turn and the board (the history is left out).
impl fmt::Debug for GameState {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.debug_struct("GameState")
            .field("rules", &self.rules.to_string())
            .field("to_move", &self.to_move)
            .field("phase", &self.phase)
            .field("turns", &self.turns)
            .field("passes", &self.passes)
            .field("over", &self.over)
            .field("board", &self.board)
            .finish_non_exhaustive()
    }
}

impl fmt::Display for GameState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.board)?;
        let side = match self.to_move {
            Color::Black => "Black",
            Color::White => "White",
        };
        write!(f, "{} to move, turn {}, rules {}", side, self.turns, self.rules)?;
        if let Phase::Place(Some((a, b))) = self.phase {
            write!(f, ", slid {}>{}", self.name(a), self.name(b))?;
        }
        writeln!(f)
    }
}
