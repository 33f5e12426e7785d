//! The game state: a [`Board`] plus rules, whose turn it is, history, passes and the turn
//! count. This is where the four rule sets differ; the search is generic over the [`Game`]
//! trait that [`GameState`] implements.

use crate::action::Action;
use crate::board::{Board, Color, PointSet, EMPTY, WALL};
use crate::point::{Dir, Geometry, Point};
use crate::rules::{KoRule, Komi, Rules, RulesError, Variant};
use crate::score::{self, Score};
use crate::zobrist;
use std::fmt;

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

/// Who won a finished (or hypothetically finished) game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Black won.
    Black,
    /// White won.
    White,
    /// Equal totals where the rules allow a draw.
    Draw,
}

impl Outcome {
    /// `b`, `w` or `draw`.
    pub fn letter(self) -> &'static str {
        match self {
            Outcome::Black => "b",
            Outcome::White => "w",
            Outcome::Draw => "draw",
        }
    }

    /// +1 for a win of `c`, -1 for a loss, 0 for a draw.
    pub fn value_for(self, c: Color) -> f32 {
        match (self, c) {
            (Outcome::Draw, _) => 0.0,
            (Outcome::Black, Color::Black) | (Outcome::White, Color::White) => 1.0,
            _ => -1.0,
        }
    }
}

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

    /// Checks a Go placement without playing it (no allocation: this is on the hot path).
    #[inline]
    fn go_violation(&self, p: Point) -> Option<GoViolation> {
        if self.board.at(p) != EMPTY {
            return Some(GoViolation::Occupied);
        }
        self.go_violation_empty(p)
    }

    /// [`GameState::go_violation`] for a point known to be empty.
    #[inline(always)]
    fn go_violation_empty(&self, p: Point) -> Option<GoViolation> {
        // A never-vacated point with an empty neighbour: the stone survives and the position
        // is new, so no rule can forbid it (the common case, decided without a probe, and
        // inlined into the callers' loops).
        if self.board.fresh_with_empty_neighbour(p) {
            return None;
        }
        self.go_violation_probed(p)
    }

    /// Go light playouts: whether placing on the empty point `p` is legal and does not fill
    /// the mover's own true eye.
    #[inline(always)]
    pub(crate) fn go_light_candidate(&self, p: Point) -> bool {
        // The fast path of `go_violation_empty` first, as one branch: a point with an empty
        // neighbour is no eye either.
        if self.board.fresh_with_empty_neighbour(p) {
            return true;
        }
        !is_true_eye(&self.board, p, self.to_move) && self.go_violation_probed(p).is_none()
    }

    /// Go: places on `p`, a legal point, or passes (`None`); the playout loop's
    /// [`Game::play_unchecked`], without its dispatch on the rules and the action.
    #[inline(always)]
    pub(crate) fn play_go_unchecked(&mut self, p: Option<Point>) {
        match p {
            Some(p) => self.apply_go(p),
            None => self.finish_turn(None),
        }
    }

    /// The rest of [`GameState::go_violation`], for an empty `p` that was vacated before or
    /// has no empty neighbour: the probe and the suicide test here, the ko rules out of line.
    #[inline(always)]
    fn go_violation_probed(&self, p: Point) -> Option<GoViolation> {
        let c = self.to_move;
        let fresh = !self.board.was_vacated(p);
        let has_empty = self.board.has_empty_neighbour(p);
        // With an empty neighbour and no enemy one, the stone survives and captures nothing.
        let (no_suicide, captured) = if has_empty && !self.board.has_neighbour(p, c.opp()) {
            (true, 0)
        } else {
            self.board.go_probe(p, c)
        };
        if !self.rules.suicide && !no_suicide {
            return Some(GoViolation::Suicide);
        }
        if fresh && no_suicide {
            return None;
        }
        self.go_ko_violation(p, no_suicide, captured)
    }

    /// The ko part of [`GameState::go_violation_probed`], given what the probe found (the
    /// chains captured as a mask from [`Board::go_probe`]).
    fn go_ko_violation(&self, p: Point, no_suicide: bool, captured: u32) -> Option<GoViolation> {
        let c = self.to_move;
        match self.rules.ko {
            KoRule::None => {}
            KoRule::Simple => {
                // Without a capture the new position has the mover's stone on p where the
                // position before the opponent's last move had none, so only captures can
                // recreate it.
                if captured != 0
                    && Some(self.board.hash_after_captures(p, c, captured)) == self.history.before_last()
                {
                    return Some(GoViolation::Ko);
                }
            }
            KoRule::Positional => {
                let h = if !no_suicide {
                    self.board.go_hash_after(p, c)
                } else if captured == 0 {
                    self.board.hash_with_stone(p, c)
                } else {
                    self.board.hash_after_captures(p, c, captured)
                };
                if self.history.contains(h) {
                    return Some(GoViolation::Superko);
                }
            }
        }
        None
    }

    /// Checks a Go placement, with a descriptive error.
    fn check_go(&self, p: Point) -> Result<(), PlayError> {
        let name = self.name(p);
        match self.go_violation(p) {
            None => Ok(()),
            Some(GoViolation::Occupied) => Err(PlayError::Occupied(name)),
            Some(GoViolation::Suicide) => Err(PlayError::Suicide(name)),
            Some(GoViolation::Ko) => Err(PlayError::Ko(name)),
            Some(GoViolation::Superko) => Err(PlayError::Superko(name)),
        }
    }

    #[inline]
    fn apply_go(&mut self, p: Point) {
        let c = self.to_move;
        let (n, lost) = self.board.play_go_counted(p, c);
        self.captured[c.opp().index()] += n as u32;
        // A suicide (where allowed) removes the mover's own chain: those count as captured too.
        self.captured[c.index()] += lost as u32;
        self.finish_turn(Some(p));
    }

    /// Loose: plays `p` on a copy of the board; `Err` if the turn is illegal.
    fn loose_after(&self, p: Point) -> Result<Board, Refusal> {
        if self.board.at(p) != EMPTY {
            return Err(Refusal::Occupied);
        }
        let mut b = self.board.clone();
        loose_place(&mut b, self.to_move, p)?;
        Ok(b)
    }

    /// Loose: whether placing on the empty-or-not `p` is legal; [`GameState::loose_after`]
    /// without its copy of the board where no enemy group would flip. Never inlined: the
    /// board it may get back would give every caller, the Go hot path included, a stack
    /// frame of several pages to probe.
    #[inline(never)]
    fn loose_legal(&self, p: Point) -> bool {
        self.board.at(p) == EMPTY
            && loose_without_flips(&self.board, p, self.to_move)
                .unwrap_or_else(|| self.loose_after(p).is_ok())
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

    /// Sligo: the board after placing at `q` (the slide, if any, is already on `self.board`).
    fn sligo_after(&self, q: Point) -> Result<Board, Refusal> {
        let Phase::Place(slide) = self.phase else {
            return Err(Refusal::WrongPhase);
        };
        let mut b = self.board.clone();
        sligo_place(&mut b, self.to_move, slide, q)?;
        Ok(b)
    }

    /// Sligo, in a placement phase: whether placing at `q` completes a legal turn, worked out
    /// on `scratch` (any board of this size; overwritten) instead of a fresh copy.
    pub(crate) fn sligo_placement_is_legal_on(&self, q: Point, scratch: &mut Board) -> bool {
        let Phase::Place(slide) = self.phase else {
            return false;
        };
        sligo_placement_ok(&self.board, self.to_move, slide, q, scratch)
    }

    /// Sligo: whether some placement completes a legal turn in the current placement phase.
    fn sligo_any_placement(&self) -> bool {
        self.sligo_any_placement_on(&mut self.board.clone())
    }

    /// [`GameState::sligo_any_placement`] worked out on `scratch` (any board of this size).
    pub(crate) fn sligo_any_placement_on(&self, scratch: &mut Board) -> bool {
        let Phase::Place(slide) = self.phase else {
            return false;
        };
        sligo_placement_exists(&self.board, self.to_move, slide, scratch)
    }

    /// Sligo: a state in the placement phase after the given first action (unchecked).
    pub(crate) fn sligo_start(&self, a: Action) -> GameState {
        let mut g = self.clone();
        g.begin_sligo_turn(a);
        g
    }

    /// Sligo: enters the placement phase after the given first action (unchecked).
    pub(crate) fn begin_sligo_turn(&mut self, a: Action) {
        match a {
            Action::NoSlide => self.phase = Phase::Place(None),
            Action::Slide(f, d) => {
                let t = self.geo().step(f, d).expect("slide target on board");
                self.board.slide(f, t);
                self.phase = Phase::Place(Some((f, t)));
            }
            _ => unreachable!("begin_sligo_turn takes NoSlide or Slide"),
        }
    }

    fn check_slide(&self, f: Point, d: Dir) -> Result<Point, PlayError> {
        let geo = self.geo();
        if !geo.on_board(f) {
            return Err(PlayError::OffBoard);
        }
        if self.board.color(f) != Some(self.to_move) {
            return Err(PlayError::NotOwnStone(self.name(f)));
        }
        self.slide_target(f, d).ok_or_else(|| PlayError::SlideBlocked(Action::Slide(f, d).name(geo)))
    }

    /// Where the mover's stone on the on-board `f` lands when it slides in direction `d`, if
    /// that point is on the board and empty (no strings and no division: the candidate lists
    /// call this for every stone and direction).
    fn slide_target(&self, f: Point, d: Dir) -> Option<Point> {
        let t = self.geo().king_neighbour(f, d);
        (d.0 < 8 && self.board.at(t) == EMPTY).then_some(t)
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
            Err(PlayError::WrongPhase(format!("{a:?} is not an action of this rule set")))
        }
    }

    /// Canonical Sligo actions for a turn given as an optional slide and a placement:
    /// placing on the vacated point is the plain placement, and a swapped slide/placement
    /// pair is normalised to the one listed by `legal_actions`.
    pub fn sligo_turn(&self, slide: Option<(Point, Point)>, place: Point) -> Result<[Action; 2], PlayError> {
        let geo = self.geo();
        let points = slide.map_or([place; 3], |(f, t)| [place, f, t]);
        if !points.iter().all(|&p| geo.on_board(p)) {
            return Err(PlayError::OffBoard);
        }
        match slide {
            None => Ok([Action::NoSlide, Action::Place(place)]),
            Some((f, t)) if place == f => {
                let _ = t;
                Ok([Action::NoSlide, Action::Place(t)])
            }
            Some((f, t)) => {
                let (t, q) = if king_adjacent(geo, f, place) && place < t { (place, t) } else { (t, place) };
                let (fx, fy) = geo.xy(f);
                let (tx, ty) = geo.xy(t);
                let d = Dir::from_delta(tx as i32 - fx as i32, ty as i32 - fy as i32)
                    .ok_or_else(|| PlayError::SlideBlocked(format!("{}>{}", geo.name(f), geo.name(t))))?;
                Ok([Action::Slide(f, d), Action::Place(q)])
            }
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
            Variant::Go => self.go_violation(p).is_none(),
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

    /// Sligo: whether placing on `p` completes a legal turn. Never inlined, like
    /// [`GameState::loose_legal`].
    #[inline(never)]
    fn sligo_legal(&self, p: Point) -> bool {
        self.sligo_placement_is_legal_on(p, &mut self.board.clone())
    }

    /// Sligo: `NoSlide` and every slide of an own stone to an empty point, before checking
    /// that a placement completes the turn.
    pub fn first_action_candidates(&self, out: &mut Vec<Action>) {
        out.push(Action::NoSlide);
        for f in self.geo().points().filter(|&f| self.board.color(f) == Some(self.to_move)) {
            for d in Dir::ALL {
                if self.slide_target(f, d).is_some() {
                    out.push(Action::Slide(f, d));
                }
            }
        }
    }

    /// The winner and score if the game ended now (see [`score::score`]).
    pub fn outcome(&self) -> Outcome {
        self.score().winner
    }
}

/// Words of the history filter (4096 bits: a 9x9 playout's hundred-odd positions set under
/// 3% of them).
const SEEN_WORDS: usize = 64;

/// The stone hashes of the positions so far, with a one-bit-per-bucket filter in front: a
/// clear bit proves a position is new, so most lookups never scan the list. A clone keeps
/// the capacity, so a playout from a cloned state does not grow the list step by step.
struct History {
    hashes: Vec<u64>,
    filter: [u64; SEEN_WORDS],
}

impl Default for History {
    fn default() -> Self {
        History { hashes: Vec::new(), filter: [0; SEEN_WORDS] }
    }
}

impl Clone for History {
    fn clone(&self) -> Self {
        let mut hashes = Vec::with_capacity(self.hashes.capacity().max(2 * self.hashes.len()).max(64));
        hashes.extend_from_slice(&self.hashes);
        History { hashes, filter: self.filter }
    }

    fn clone_from(&mut self, src: &Self) {
        self.hashes.clear();
        self.hashes.extend_from_slice(&src.hashes);
        self.filter = src.filter;
    }
}

impl History {
    #[inline(always)]
    fn bit(h: u64) -> (usize, u64) {
        ((h as usize >> 6) & (SEEN_WORDS - 1), 1 << (h & 63))
    }

    fn push(&mut self, h: u64) {
        self.hashes.push(h);
        let (w, b) = History::bit(h);
        self.filter[w] |= b;
    }

    #[inline]
    fn contains(&self, h: u64) -> bool {
        let (w, b) = History::bit(h);
        self.filter[w] & b != 0 && self.hashes.contains(&h)
    }

    /// The position before the last one (simple ko's reference), if any.
    fn before_last(&self) -> Option<u64> {
        self.hashes.len().checked_sub(2).map(|i| self.hashes[i])
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

/// Why a Go placement is illegal, without the allocation of a [`PlayError`].
#[derive(Clone, Copy)]
enum GoViolation {
    Occupied,
    Suicide,
    Ko,
    Superko,
}

/// Loose, for `c` placing on the empty `p`: `None` if some enemy group would flip, else
/// whether the placement is legal. Decided on the board before the placement: only `p` and
/// its empty neighbours change their true-liberty status (see [`true_liberty_after`]), the
/// mover's chains next to `p` join `p`'s group, and with no flip only the groups touching
/// `p` or its empty neighbours can lose their last true liberty.
fn loose_without_flips(b: &Board, p: Point, c: Color) -> Option<bool> {
    let chain_ok = |q: Point| {
        b.chain_stones(q)
            .any(|s| b.adj(s).into_iter().any(|x| b.at(x) == EMPTY && true_liberty_after(b, x, p, c)))
    };
    let enemy = c.opp().cell();
    let touches_p = |q: Point| b.adj(p).into_iter().any(|r| b.at(r) == c.cell() && b.chain(r) == b.chain(q));
    // p's group: p with the mover's chains next to it.
    let group_ok = b.adj(p).into_iter().any(|x| b.at(x) == EMPTY && true_liberty_after(b, x, p, c))
        || b.adj(p).into_iter().any(|q| b.at(q) == c.cell() && chain_ok(q));
    let mut legal = group_ok;
    for q in b.adj(p) {
        match b.at(q) {
            v if v == enemy && !chain_ok(q) => return None,
            EMPTY => {
                for r in b.adj(q) {
                    let v = b.at(r);
                    if v == enemy && !chain_ok(r) {
                        return None;
                    }
                    if v == c.cell() && !touches_p(r) && !chain_ok(r) {
                        legal = false;
                    }
                }
            }
            _ => {}
        }
    }
    Some(legal)
}

/// Loose: whether the empty `x` is a true liberty once `c` is placed on the empty `p` and
/// nothing else changes.
fn true_liberty_after(b: &Board, x: Point, p: Point, c: Color) -> bool {
    if x == p {
        return false;
    }
    if !b.adj(x).contains(&p) {
        return score::is_true_liberty(b, x);
    }
    let empty = b.adj(x).into_iter().any(|y| y != p && b.at(y) == EMPTY);
    let black = c == Color::Black || b.has_neighbour(x, Color::Black);
    let white = c == Color::White || b.has_neighbour(x, Color::White);
    empty || !(black && white)
}

/// Loose: places `c`'s stone on the empty `p` of `b` with its flips, and checks that every
/// group of the mover keeps a true liberty. `b` is changed even when the placement is refused.
fn loose_place(b: &mut Board, c: Color, p: Point) -> Result<(), Refusal> {
    b.put(p, c);
    // Enemy groups that can newly lack a true liberty touch p or an empty neighbour of p:
    // at most 4 + 4 * 3 chains.
    let mut candidates = [Point(0); 16];
    let mut n = 0;
    let mut seen = PointSet::default();
    let enemy = c.opp().cell();
    let mut consider = |q: Point, b: &Board| {
        if b.at(q) == enemy && seen.insert(b.chain(q)) {
            candidates[n] = q;
            n += 1;
        }
    };
    for q in b.adj(p) {
        consider(q, b);
        if b.at(q) == EMPTY {
            for r in b.adj(q) {
                consider(r, b);
            }
        }
    }
    // Decide every candidate before flipping any: a flip can change the others' test.
    let mut doomed = [false; 16];
    for (d, &q) in doomed.iter_mut().zip(&candidates[..n]) {
        *d = !score::has_true_liberty(b, q);
    }
    for (&d, &q) in doomed.iter().zip(&candidates[..n]) {
        if d {
            b.flip_chain(q);
        }
    }
    // Only the mover's groups at p or next to p's empty neighbours can lack one now.
    if !score::has_true_liberty(b, p) {
        return Err(Refusal::NoTrueLiberty);
    }
    for q in b.adj(p) {
        if b.at(q) == EMPTY {
            for r in b.adj(q) {
                if b.at(r) == c.cell() && !score::has_true_liberty(b, r) {
                    return Err(Refusal::NoTrueLiberty);
                }
            }
        }
    }
    Ok(())
}

/// Sligo: places the mover `c`'s stone at `q` on `b` (the board after the turn's slide, if
/// any) with captures, and checks the turn: no duplicate of another action sequence, no
/// suicide of the placed or the slid stone, no weak pair. `b` is changed even when the
/// placement is refused.
fn sligo_place(b: &mut Board, c: Color, slide: Option<(Point, Point)>, q: Point) -> Result<(), Refusal> {
    let changed = sligo_precheck(b, slide, q)?;
    b.put(q, c);
    b.capture_around(q, c.opp());
    if let Some((_, t)) = slide {
        b.capture_around(t, c.opp());
        if b.has_no_libs(t) {
            return Err(Refusal::Suicide);
        }
    }
    if b.has_no_libs(q) {
        return Err(Refusal::Suicide);
    }
    if changed.iter().any(|&x| weak_pair_near(b, x, c)) {
        return Err(Refusal::WeakPair);
    }
    Ok(())
}

/// Sligo: the checks of a placement at `q` that come before the stone is placed (an empty
/// point, not a duplicate of another action sequence); returns the points whose 2x2 squares
/// the turn changes (the placement, and the slide's origin and target).
fn sligo_precheck(b: &Board, slide: Option<(Point, Point)>, q: Point) -> Result<[Point; 3], Refusal> {
    if b.at(q) != EMPTY {
        return Err(Refusal::Occupied);
    }
    let Some((f, t)) = slide else {
        return Ok([q, q, q]);
    };
    if q == f {
        return Err(Refusal::SameAsNoSlide(t));
    }
    if king_adjacent(b.geo(), f, q) && q < t {
        return Err(Refusal::SameAsSlide(f, q, t));
    }
    Ok([q, f, t])
}

/// Sligo: whether [`sligo_place`] would accept placing `c` at `q` on `board`, without changing
/// `board` and mostly without a copy: captures remove only the other colour's stones, so
/// weak pairs can be judged before them; a placed stone with an empty neighbour survives, and
/// so does the slid stone's chain if it has a liberty now (it keeps it) or joins the placed
/// stone (which brings one). Other cases are played out on `scratch` (any board of this size).
fn sligo_placement_ok(
    board: &Board,
    c: Color,
    slide: Option<(Point, Point)>,
    q: Point,
    scratch: &mut Board,
) -> bool {
    let Ok(changed) = sligo_precheck(board, slide, q) else {
        return false;
    };
    if changed.iter().any(|&x| weak_pair_near_with(board, x, c, Some(q))) {
        return false;
    }
    if board.has_empty_neighbour(q) && slide.is_none_or(|(_, t)| !board.has_no_libs(t)) {
        return true;
    }
    scratch.clone_from(board);
    sligo_place(scratch, c, slide, q).is_ok()
}

/// Sligo: whether some placement of `c` on `board` (after the slide, if any) completes a
/// legal turn ([`sligo_placement_ok`]).
fn sligo_placement_exists(
    board: &Board,
    c: Color,
    slide: Option<(Point, Point)>,
    scratch: &mut Board,
) -> bool {
    board.empties().any(|q| sligo_placement_ok(board, c, slide, q, scratch))
}

/// Whether two points are one king step apart.
fn king_adjacent(geo: Geometry, a: Point, b: Point) -> bool {
    let (ax, ay) = geo.xy(a);
    let (bx, by) = geo.xy(b);
    a != b && ax.abs_diff(bx) <= 1 && ay.abs_diff(by) <= 1
}

/// Whether any 2x2 square with a corner at `x` holds a weak pair of colour `c`: two diagonal
/// stones of `c` whose two other corners hold no stone of `c`.
pub fn weak_pair_near(b: &Board, x: Point, c: Color) -> bool {
    weak_pair_near_with(b, x, c, None)
}

/// [`weak_pair_near`] with a stone of `c` also on `also` (a placement not yet made).
fn weak_pair_near_with(b: &Board, x: Point, c: Color, also: Option<Point>) -> bool {
    let s = b.geo().stride() as u16;
    [x.0 - s - 1, x.0 - s, x.0 - 1, x.0].into_iter().any(|tl| weak_square(b, Point(tl), c, also))
}

/// Whether the 2x2 square with top-left cell `tl` holds a weak pair of `c` (counting a stone
/// of `c` on `also`).
#[inline]
fn weak_square(b: &Board, tl: Point, c: Color, also: Option<Point>) -> bool {
    let s = b.geo().stride() as u16;
    let m = |i: u16| b.at(Point(i)) == c.cell() || also == Some(Point(i));
    let (a, bb, cc, d) = (m(tl.0), m(tl.0 + 1), m(tl.0 + s), m(tl.0 + s + 1));
    (a && d && !bb && !cc) || (bb && cc && !a && !d)
}

/// Whether the board holds a weak pair of `c` anywhere.
pub fn has_weak_pair(b: &Board, c: Color) -> bool {
    let geo = b.geo();
    (0..geo.size() - 1).any(|y| (0..geo.size() - 1).any(|x| weak_square(b, geo.point(x, y), c, None)))
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
                    self.board.empties().filter(|&p| self.go_violation(p).is_none()).map(Action::Place),
                );
                out.push(Action::Pass);
            }
            (Variant::Loose, _) => {
                out.extend(self.board.empties().filter(|&p| self.loose_legal(p)).map(Action::Place));
                out.push(Action::Pass);
            }
            (Variant::Sligo, Phase::Start) => {
                let c = self.to_move;
                let mut slid = self.board.clone();
                let mut scratch = self.board.clone();
                out.push(Action::Pass);
                if sligo_placement_exists(&self.board, c, None, &mut scratch) {
                    out.push(Action::NoSlide);
                }
                for f in geo.points().filter(|&f| self.board.color(f) == Some(c)) {
                    for d in Dir::ALL {
                        let Some(t) = self.slide_target(f, d) else { continue };
                        slid.clone_from(&self.board);
                        slid.slide(f, t);
                        if sligo_placement_exists(&slid, c, Some((f, t)), &mut scratch) {
                            out.push(Action::Slide(f, d));
                        }
                    }
                }
            }
            (Variant::Sligo, Phase::Place(_)) => {
                let mut scratch = self.board.clone();
                out.extend(
                    self.board
                        .empties()
                        .filter(|&q| self.sligo_placement_is_legal_on(q, &mut scratch))
                        .map(Action::Place),
                );
            }
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
            (Variant::Sligo, Action::NoSlide) => {
                let g = self.sligo_start(a);
                if !g.sligo_any_placement() {
                    return Err(PlayError::NoLegalPlacement("noslide".into()));
                }
                *self = g;
            }
            (Variant::Sligo, Action::Slide(f, d)) => {
                self.check_slide(f, d)?;
                let g = self.sligo_start(a);
                if !g.sligo_any_placement() {
                    return Err(PlayError::NoLegalPlacement(a.name(self.geo())));
                }
                *self = g;
            }
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
        match self.rules.variant {
            Variant::Sligo => Action::space(self.geo().size()),
            _ => self.geo().area() + 1,
        }
    }

    fn drop_premature_pass(&self, legal: &mut Vec<Action>) {
        crate::settled::drop_premature_pass(self, legal);
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

/// Whether the empty point is a true (single-point) eye of `c` for light playouts: every
/// orthogonal neighbour is `c` or wall, and at most one diagonal (none on the edge) is the
/// opponent's.
#[inline]
pub fn is_true_eye(b: &Board, p: Point, c: Color) -> bool {
    if !b.is_eye_shape(p, c) {
        return false;
    }
    let s = b.geo().stride() as u16;
    // Counted without branches: the diagonals of a random position are unpredictable.
    let mut enemy = 0;
    let mut wall = 0;
    for d in [p.0 - s - 1, p.0 - s + 1, p.0 + s - 1, p.0 + s + 1] {
        let v = b.at(Point(d));
        wall |= u32::from(v == WALL);
        enemy += u32::from(v == c.opp().cell());
    }
    enemy + wall < 2
}
