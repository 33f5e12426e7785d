//! `hane analysis`: KataGo's JSON analysis protocol (`Analysis_Engine.md` in KataGo's
//! repository) on stdin and stdout, for KaTrain and analysis scripts.
//!
//! Each input line is one JSON query; each analysed turn gets one response line when its
//! search ends (and, with `reportDuringSearchEvery`, partial ones with `isDuringSearch`
//! true). Queries queue while a search runs and are answered in order of `priority` (higher
//! first; in order of arrival on a tie). A query that does not parse gets `{"error": ...,
//! "field": ..., "id": ...}` (with the id as given when it has one, even when the rest of the
//! line does not parse) and the engine goes on: nothing a client sends ends it but the end of
//! its input, after which the queued turns are still answered.
//!
//! Query fields: `id` (a string), `moves` (`[["B", "C3"], ...]`; `pass`; Sligo turns in
//! hane's notation, `E5>F6+D4`), `initialStones` (Black's only, as a handicap),
//! `initialPlayer`, `rules`, `komi`, `boardXSize` and `boardYSize` (equal), `analyzeTurns`
//! (default: the last), `maxVisits`, `maxTime` (seconds), `includeOwnership`,
//! `includeOwnershipStdev`, `includeMovesOwnership` (the net's ownership after each candidate
//! move, in final responses; a warning without a net), `includePolicy` (in partial responses
//! too), `includePVVisits`, `reportDuringSearchEvery`, `priority`, `avoidMoves` and
//! `allowMoves` (`[{"player": "B", "moves": ["C3", ...], "untilDepth": 1}]`: the search
//! leaves out, or keeps only, those moves of that player over the first `untilDepth` plies),
//! and `overrideSettings` (`reportAnalysisWinratesAs`, `maxTime`, `maxVisits`; others, such
//! as `wideRootNoise`, get a warning saying they are ignored). Any other field gets a warning
//! line and is ignored. `maxVisits` may be as large as a client likes (KaTrain ponders with
//! ten million): a search stops at [`MAX_QUERY_VISITS`], which bounds its tree's memory, or
//! when `terminate`d.
//!
//! Rules are KataGo's names where a hane rule set matches or is nearest
//! ([`crate::katago_rules::from_name`]: `tromp-taylor`, `chinese`, `japanese`, `korean`,
//! `aga`, `new zealand`, `stone_scoring`, ...), else any hane rules string (`ttakji`,
//! `brainking`, `loose`, `sligo,komi=4`, ...); the board size comes from `boardXSize`. A Go
//! net answers every Go rule set of its board size: the search plays under the asked rules
//! with the net's evaluations, and a warning names the rules it was trained on
//! ([`hane_mcts::net_rules`]). Actions: `query_version`, `clear_cache` (hane keeps no cache:
//! echoed) and `terminate` (`terminateId`, optional `turnNumbers`).
//!
//! Values follow [`crate::candidates`], reported from Black's view by default (KataGo's
//! example config sets `reportAnalysisWinratesAs = BLACK`); [`Perspective`] changes it.
//! Ownership is the net's ownership head, or without a net random light playouts from the
//! position ([`crate::candidates::ownership`]). A finished game (two passes) is not searched:
//! its response has no candidates and the rules' final score, with a win rate of 1, 0 or 0.5
//! by its winner. For Sligo the candidates are the first decision of the turn (a slide,
//! `noslide` or `pass`), and policies are not reported.

use crate::brain::Brain;
use crate::candidates::{candidates, ownership, summary, Candidate, Summary, CHUNK_VISITS};
use crate::input::Line;
use crate::katago_rules;
use hane_engine::playout::Ownership;
use hane_engine::rules::Variant;
use hane_engine::score::Outcome;
use hane_engine::{Action, Color, Game, GameState, Komi, Rules, Turn};
use hane_mcts::{EvalRequest, Evaluator, Search, SearchConfig};
use serde_json::{json, Map, Value};
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::TryRecvError;
use std::time::{Duration, Instant};

/// The most visits one analysed turn searches, whatever its `maxVisits`: the tree holds a
/// node per visit and an edge per legal move of each (about 0.5 GB on 19x19).
pub const MAX_QUERY_VISITS: u32 = crate::gtp::analyze::MAX_ANALYSIS_VISITS;

/// Whose view the values are reported in (KataGo's `reportAnalysisWinratesAs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perspective {
    /// Black's.
    Black,
    /// White's.
    White,
    /// The side to move's.
    SideToMove,
}

impl std::str::FromStr for Perspective {
    type Err = String;
    fn from_str(s: &str) -> Result<Perspective, String> {
        match s.to_ascii_lowercase().as_str() {
            "black" => Ok(Perspective::Black),
            "white" => Ok(Perspective::White),
            "side-to-move" | "sidetomove" => Ok(Perspective::SideToMove),
            _ => Err(format!("\"{}\": allowed: black, white, side-to-move", s.escape_debug())),
        }
    }
}

/// Moves a query leaves out (`avoidMoves`) or alone allows (`allowMoves`) for one player
/// over the first plies of the search.
#[derive(Clone, Debug, PartialEq)]
struct MoveRule {
    player: Color,
    moves: Vec<Action>,
    /// Plies from the root it holds for (1: the root's move only).
    until_depth: u32,
    /// Whether `moves` are the only ones allowed (else the ones left out).
    allow: bool,
}

impl MoveRule {
    /// Whether the rule lets `player`'s `a` be searched at `depth` (0 at the root).
    fn keeps(&self, depth: u32, player: Color, a: &Action) -> bool {
        if depth >= self.until_depth || player != self.player {
            return true;
        }
        self.moves.contains(a) == self.allow
    }
}

/// What a query asks of the search of each of its turns.
#[derive(Clone, Debug)]
struct Settings {
    visits: u32,
    max_time: Option<Duration>,
    perspective: Perspective,
    ownership: bool,
    ownership_stdev: bool,
    moves_ownership: bool,
    policy: bool,
    pv_visits: bool,
    report_every: Option<Duration>,
    move_rules: Vec<MoveRule>,
}

/// One turn of a query, waiting for its search.
#[derive(Debug)]
struct Job {
    id: String,
    turn: usize,
    priority: i64,
    root: GameState,
    settings: Settings,
}

/// A query's error: the message and the field it concerns.
type Refusal = (String, &'static str);

/// A query's warnings: the message and the field each concerns.
type Warnings = Vec<(String, String)>;

fn player(v: &Value, field: &'static str) -> Result<Color, Refusal> {
    match v.as_str().map(str::to_ascii_uppercase).as_deref() {
        Some("B" | "BLACK") => Ok(Color::Black),
        Some("W" | "WHITE") => Ok(Color::White),
        _ => Err((format!("{v} is not a player (\"B\" or \"W\")"), field)),
    }
}

/// `[player, location]` pairs.
fn placements(v: &Value, field: &'static str) -> Result<Vec<(Color, String)>, Refusal> {
    let list = v.as_array().ok_or_else(|| (format!("{field} must be an array"), field))?;
    list.iter()
        .map(|m| match m.as_array().map(Vec::as_slice) {
            Some([p, loc]) => {
                let loc = loc.as_str().ok_or_else(|| (format!("{loc} is not a location string"), field))?;
                Ok((player(p, field)?, loc.to_string()))
            }
            _ => Err((format!("{m} is not a [player, location] pair"), field)),
        })
        .collect()
}

fn flag(q: &Map<String, Value>, key: &'static str) -> Result<bool, Refusal> {
    match q.get(key) {
        None => Ok(false),
        Some(v) => v.as_bool().ok_or_else(|| (format!("{key} must be true or false"), key)),
    }
}

/// Seconds in (0, 3600] as a duration.
fn seconds(v: &Value, field: &'static str) -> Result<Duration, Refusal> {
    v.as_f64()
        .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
        .map(Duration::from_secs_f64)
        .ok_or((format!("{field} must be seconds in (0, 3600]"), field))
}

/// A visit budget: a positive integer of any size (KataGo takes 64-bit ones), searched up to
/// [`MAX_QUERY_VISITS`] with a warning above it.
fn visits(v: &Value, field: &'static str, warnings: &mut Warnings) -> Result<u32, Refusal> {
    let n = v
        .as_u64()
        .map(|n| n as f64)
        .or_else(|| v.as_f64().filter(|x| x.fract() == 0.0))
        .filter(|&n| n >= 1.0)
        .ok_or((format!("{field} must be a positive integer"), field))?;
    if n > f64::from(MAX_QUERY_VISITS) {
        warnings.push((
            format!(
                "hane searches at most {MAX_QUERY_VISITS} visits per turn (its tree's memory); {n} asked"
            ),
            field.to_string(),
        ));
    }
    Ok(n.min(f64::from(MAX_QUERY_VISITS)) as u32)
}

/// The rules of a query (its `rules`, size and komi) and the name it gave them.
fn query_rules(q: &Map<String, Value>) -> Result<(Rules, String), Refusal> {
    let (name, text) = match q.get("rules") {
        Some(Value::String(s)) => (s.clone(), katago_rules::from_name(s)),
        Some(Value::Object(o)) => {
            let text = katago_rules::from_object(o).map_err(|e| (e.0, "rules"))?;
            (Value::Object(o.clone()).to_string(), text)
        }
        Some(_) => return Err(("rules must be a string or a KataGo rules object".into(), "rules")),
        None => return Err(("rules is required".into(), "rules")),
    };
    let mut rules: Rules =
        text.parse().map_err(|e| (format!("\"{}\": {e}", name.escape_debug()), "rules"))?;
    let size = |key: &'static str| {
        q.get(key)
            .ok_or_else(|| (format!("{key} is required"), key))?
            .as_u64()
            .filter(|n| (2..=19).contains(n))
            .ok_or_else(|| (format!("{key} must be an integer from 2 to 19"), key))
    };
    let (x, y) = (size("boardXSize")?, size("boardYSize")?);
    if x != y {
        return Err(("hane plays square boards only: boardYSize must equal boardXSize".into(), "boardYSize"));
    }
    rules.size = x as u8;
    if let Some(k) = q.get("komi") {
        let komi = k.as_f64().and_then(Komi::from_f64);
        rules.komi =
            komi.ok_or_else(|| ("komi must be a multiple of 0.5 within ±1000".to_string(), "komi"))?;
    }
    rules.validate().map_err(|e| (e.to_string(), "rules"))?;
    Ok((rules, name))
}

/// The positions of a query's turns 0..=moves, from its initial stones and moves.
fn positions(q: &Map<String, Value>, rules: Rules) -> Result<Vec<GameState>, Refusal> {
    let geo = hane_engine::Geometry::new(rules.size);
    let mut game = GameState::new(rules);
    if let Some(v) = q.get("initialStones") {
        let stones = placements(v, "initialStones")?;
        if !stones.is_empty() {
            if stones.iter().any(|(c, _)| *c == Color::White) {
                return Err(("only Black's stones (a handicap) are supported".into(), "initialStones"));
            }
            let pts = stones
                .iter()
                .map(|(_, loc)| geo.parse(loc))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| (e.to_string(), "initialStones"))?;
            game = GameState::with_handicap(rules, &pts).map_err(|e| (e.to_string(), "initialStones"))?;
        }
    }
    if let Some(v) = q.get("initialPlayer") {
        let c = player(v, "initialPlayer")?;
        if c != game.to_move() {
            game.pass_implied().map_err(|e| (e.to_string(), "initialPlayer"))?;
        }
    }
    let moves = placements(q.get("moves").ok_or(("moves is required".to_string(), "moves"))?, "moves")?;
    let mut out = vec![game.clone()];
    for (i, (c, loc)) in moves.iter().enumerate() {
        // KataGo's wording, which clients (KaTrain) look for.
        let bad = |e: String| {
            (format!("Illegal move {i}: {} {loc}: {e}", c.letter().to_ascii_uppercase()), "moves")
        };
        if *c != game.to_move() {
            game.pass_implied().map_err(|e| bad(e.to_string()))?;
        }
        Turn::play_named(&mut game, loc).map_err(|e| bad(e.to_string()))?;
        out.push(game.clone());
    }
    Ok(out)
}

/// The turns to analyse: `analyzeTurns`, or the last one; each must exist.
fn analyzed_turns(q: &Map<String, Value>, count: usize) -> Result<Vec<usize>, Refusal> {
    let Some(v) = q.get("analyzeTurns") else { return Ok(vec![count - 1]) };
    let list = v.as_array().ok_or(("analyzeTurns must be an array".to_string(), "analyzeTurns"))?;
    if list.is_empty() {
        return Err(("analyzeTurns is empty: there is no turn to analyse".into(), "analyzeTurns"));
    }
    list.iter()
        .map(|t| {
            t.as_u64()
                .map(|t| t as usize)
                .filter(|&t| t < count)
                .ok_or_else(|| (format!("turn {t} is not in 0..={}", count - 1), "analyzeTurns"))
        })
        .collect()
}

/// The `avoidMoves` (`allow` false) or `allowMoves` rules of a query.
fn move_rules(v: &Value, field: &'static str, allow: bool, size: u8) -> Result<Vec<MoveRule>, Refusal> {
    let geo = hane_engine::Geometry::new(size);
    let bad = |what: &str| (format!("{field}: {what}"), field);
    let list = v.as_array().ok_or_else(|| bad("must be an array of {player, moves, untilDepth}"))?;
    list.iter()
        .map(|r| {
            let r = r.as_object().ok_or_else(|| bad("each entry must be an object"))?;
            let player = player(r.get("player").unwrap_or(&Value::Null), field)?;
            let names =
                r.get("moves").and_then(Value::as_array).ok_or_else(|| bad("moves must be an array"))?;
            let moves = names
                .iter()
                .map(|m| match m.as_str() {
                    Some(s) if s.eq_ignore_ascii_case("pass") => Ok(Action::Pass),
                    Some(s) => geo.parse(s).map(Action::Place).map_err(|e| bad(&e.to_string())),
                    None => Err(bad("moves must be strings")),
                })
                .collect::<Result<_, _>>()?;
            let until_depth = r
                .get("untilDepth")
                .and_then(Value::as_u64)
                .filter(|&d| d >= 1)
                .ok_or_else(|| bad("untilDepth must be a positive integer"))?;
            Ok(MoveRule { player, moves, until_depth: until_depth.min(u64::from(u32::MAX)) as u32, allow })
        })
        .collect()
}

/// Fields of a query the engine reads (others get a warning).
const KNOWN: [&str; 22] = [
    "id",
    "moves",
    "initialStones",
    "initialPlayer",
    "rules",
    "komi",
    "boardXSize",
    "boardYSize",
    "analyzeTurns",
    "maxVisits",
    "maxTime",
    "includeOwnership",
    "includeOwnershipStdev",
    "includeMovesOwnership",
    "includePolicy",
    "includePVVisits",
    "reportDuringSearchEvery",
    "whiteHandicapBonus",
    "priority",
    "avoidMoves",
    "allowMoves",
    "overrideSettings",
];

/// The settings of `overrideSettings` hane has; the others get a warning.
fn apply_overrides(o: &Value, s: &mut Settings, warnings: &mut Warnings) -> Result<(), Refusal> {
    const FIELD: &str = "overrideSettings";
    let o = o.as_object().ok_or((format!("{FIELD} must be an object"), FIELD))?;
    for (key, v) in o {
        match key.as_str() {
            "reportAnalysisWinratesAs" => {
                let text = v.as_str().ok_or((format!("{key} must be a string"), FIELD))?;
                s.perspective = text.parse().map_err(|e| (format!("{key} {e}"), FIELD))?;
            }
            "maxTime" => s.max_time = Some(seconds(v, FIELD)?),
            "maxVisits" => s.visits = visits(v, FIELD, warnings)?,
            "wideRootNoise" if v.as_f64() == Some(0.0) => {}
            _ => warnings.push((format!("hane does not implement {key}; it is ignored"), FIELD.into())),
        }
    }
    Ok(())
}

/// The search settings of a query.
fn settings(
    q: &Map<String, Value>,
    an: &Analyzer,
    rules: &Rules,
    warnings: &mut Warnings,
) -> Result<Settings, Refusal> {
    let mut s = Settings {
        visits: an.brain.visits(),
        max_time: an.max_time,
        perspective: an.perspective,
        ownership: flag(q, "includeOwnership")?,
        ownership_stdev: flag(q, "includeOwnershipStdev")?,
        moves_ownership: flag(q, "includeMovesOwnership")?,
        policy: flag(q, "includePolicy")?,
        pv_visits: flag(q, "includePVVisits")?,
        report_every: q
            .get("reportDuringSearchEvery")
            .map(|v| seconds(v, "reportDuringSearchEvery"))
            .transpose()?,
        move_rules: Vec::new(),
    };
    if let Some(v) = q.get("maxVisits") {
        s.visits = visits(v, "maxVisits", warnings)?;
    }
    if let Some(v) = q.get("maxTime") {
        s.max_time = Some(seconds(v, "maxTime")?);
    }
    if let Some(o) = q.get("overrideSettings") {
        apply_overrides(o, &mut s, warnings)?;
    }
    for (field, allow) in [("avoidMoves", false), ("allowMoves", true)] {
        if let Some(v) = q.get(field) {
            s.move_rules.extend(move_rules(v, field, allow, rules.size)?);
        }
    }
    if s.moves_ownership && !an.brain.has_net() {
        let why = "per-move ownership needs a net's ownership head; without a net it is not reported";
        warnings.push((why.into(), "includeMovesOwnership".into()));
        s.moves_ownership = false;
    }
    Ok(s)
}

/// The jobs of an analysis query and its warnings, or why it is refused.
fn jobs(q: &Map<String, Value>, id: &str, an: &Analyzer) -> Result<(Vec<Job>, Warnings), Refusal> {
    let mut warnings: Warnings = q
        .keys()
        .filter(|k| !KNOWN.contains(&k.as_str()))
        .map(|k| ("hane does not implement this field; it is ignored".to_string(), k.clone()))
        .collect();
    let (rules, name) = query_rules(q)?;
    let note = an
        .brain
        .check_rules(&rules)
        .map_err(|e| (format!("rules \"{}\": {}", name.escape_debug(), e.0), "rules"))?;
    for note in [katago_rules::nearest(&name).map(str::to_string), note].into_iter().flatten() {
        warnings.push((format!("rules \"{}\": {note}", name.escape_debug()), "rules".into()));
    }
    let states = positions(q, rules)?;
    let turns = analyzed_turns(q, states.len())?;
    let priority = match q.get("priority") {
        None => 0,
        Some(v) => v.as_i64().ok_or(("priority must be an integer".to_string(), "priority"))?,
    };
    let settings = settings(q, an, &rules, &mut warnings)?;
    let jobs = turns
        .into_iter()
        .map(|turn| Job {
            id: id.to_string(),
            turn,
            priority,
            root: states[turn].clone(),
            settings: settings.clone(),
        })
        .collect();
    Ok((jobs, warnings))
}

/// Adds `jobs` to `queue` after every job of the same or a higher priority.
fn enqueue(queue: &mut VecDeque<Job>, jobs: Vec<Job>) {
    for job in jobs {
        let at = queue.iter().position(|j| j.priority < job.priority).unwrap_or(queue.len());
        queue.insert(at, job);
    }
}

/// Values of the side to move turned into the reported view.
struct View {
    /// Whose view is reported.
    viewer: Color,
    /// Whether that is not the side to move's.
    flip: bool,
}

impl View {
    fn of(root: &GameState, p: Perspective) -> View {
        let viewer = match p {
            Perspective::Black => Color::Black,
            Perspective::White => Color::White,
            Perspective::SideToMove => root.to_move(),
        };
        View { viewer, flip: viewer != root.to_move() }
    }

    /// A Black's-view owner (+1 Black) in the reported view.
    fn owner(&self, black_view: f32) -> f64 {
        f64::from(if self.viewer == Color::Black { black_view } else { -black_view })
    }

    fn value(&self, x: f32) -> f64 {
        f64::from(if self.flip { -x } else { x })
    }

    fn rate(&self, w: f32) -> f64 {
        f64::from(if self.flip { 1.0 - w } else { w })
    }

    fn move_info(&self, c: &Candidate, order: usize, root: &GameState, pv_visits: bool) -> Value {
        let geo = root.geo();
        let w = self.rate(c.winrate);
        let lcb = if c.visits == 0 { 0.0 } else { w - f64::from(c.margin) };
        let u = self.value(c.utility);
        let mut info = json!({
            "move": c.action.name(geo),
            "visits": c.visits,
            "winrate": w,
            "scoreMean": self.value(c.score),
            "scoreLead": self.value(c.score),
            "scoreSelfplay": self.value(c.score),
            "scoreStdev": c.score_stdev,
            "prior": c.prior,
            "utility": u,
            "lcb": lcb,
            "utilityLcb": u - 2.0 * f64::from(c.margin),
            "order": order,
            "pv": c.pv.iter().map(|a| a.name(geo)).collect::<Vec<_>>(),
        });
        if pv_visits {
            info["pvVisits"] = json!(c.pv_visits);
        }
        info
    }

    fn root_info(&self, s: &Summary, root: &GameState) -> Value {
        json!({
            "visits": s.visits,
            "winrate": self.rate(s.winrate),
            "scoreLead": self.value(s.score),
            "scoreSelfplay": self.value(s.score),
            "scoreStdev": s.score_stdev,
            "utility": self.value(s.utility),
            "currentPlayer": if root.to_move() == Color::Black { "B" } else { "W" },
            "thisHash": format!("{:016X}", root.state_hash()),
        })
    }
}

/// The summary of a finished game, as one visit that knows the result: the rules' final
/// score and its winner, from the side to move's view.
fn final_summary(root: &GameState) -> Summary {
    let score = root.score();
    let me = root.to_move();
    let margin = score.margin_black() as f32;
    let winrate = match (score.winner, me) {
        (Outcome::Draw, _) => 0.5,
        (Outcome::Black, Color::Black) | (Outcome::White, Color::White) => 1.0,
        _ => 0.0,
    };
    Summary {
        visits: 1,
        winrate,
        utility: 2.0 * winrate - 1.0,
        score: if me == Color::Black { margin } else { -margin },
        score_stdev: 0.0,
    }
}

/// The engine: a brain to search with and the defaults of its queries.
#[derive(Debug)]
pub struct Analyzer {
    brain: Brain,
    perspective: Perspective,
    max_time: Option<Duration>,
    /// Leaves a search evaluates per net call.
    leaves_per_call: usize,
}

impl Analyzer {
    /// An engine searching with `brain` (its visits are the default `maxVisits`), reporting
    /// from `perspective`, with no time limit unless [`Analyzer::with_max_time`].
    pub fn new(brain: Brain, perspective: Perspective) -> Analyzer {
        Analyzer { brain, perspective, max_time: None, leaves_per_call: 8 }
    }

    /// The same engine bounding each search to `max_time` unless a query says otherwise
    /// (KataGo's `maxTime`).
    pub fn with_max_time(self, max_time: Option<Duration>) -> Analyzer {
        Analyzer { max_time, ..self }
    }

    /// The same engine evaluating `n` leaves per net call (default 8).
    pub fn with_leaves_per_call(self, n: usize) -> Analyzer {
        Analyzer { leaves_per_call: n.max(1), ..self }
    }

    /// The net's raw policy at `root` in KataGo's layout: the points row-major from the
    /// top-left, then pass; -1 for illegal moves (all of them in a finished game).
    fn policy(&mut self, root: &GameState) -> Vec<f64> {
        let mut legal = Vec::new();
        root.legal_actions(&mut legal);
        let area = root.geo().area();
        let mut out = vec![-1.0; area + 1];
        if legal.is_empty() {
            return out;
        }
        let e = self.brain.evaluator().evaluate(&[EvalRequest { state: root.clone(), legal: legal.clone() }]);
        for (a, p) in legal.iter().zip(&e[0].policy) {
            match a {
                Action::Place(pt) => out[root.geo().dense(*pt)] = f64::from(*p),
                Action::Pass => out[area] = f64::from(*p),
                _ => {}
            }
        }
        out
    }

    /// The net's ownership after each of `moves` from `root`, in `view`.
    fn moves_ownership(&mut self, root: &GameState, moves: &[Candidate], view: &View) -> Vec<Value> {
        moves
            .iter()
            .map(|c| {
                let mut next = root.clone();
                let own = next.play(c.action).ok().and_then(|()| self.brain.evaluator().ownership(&next));
                json!(own.unwrap_or_default().iter().map(|&x| view.owner(x)).collect::<Vec<_>>())
            })
            .collect()
    }

    /// The response to a finished (or partial) search `r`.
    fn response(&mut self, r: &Running, during: bool) -> Value {
        let (job, s) = (&r.job, &r.job.settings);
        let view = View::of(&job.root, s.perspective);
        let over = job.root.is_over();
        let moves = if over { Vec::new() } else { candidates(&r.search, 0, 0) };
        let mut infos: Vec<Value> =
            moves.iter().enumerate().map(|(i, c)| view.move_info(c, i, &job.root, s.pv_visits)).collect();
        if s.moves_ownership && !during {
            for (info, own) in infos.iter_mut().zip(self.moves_ownership(&job.root, &moves, &view)) {
                info["ownership"] = own;
            }
        }
        let root = if over { final_summary(&job.root) } else { summary(&r.search) };
        let mut out = json!({
            "id": job.id,
            "turnNumber": job.turn,
            "isDuringSearch": during,
            "moveInfos": infos,
            "rootInfo": view.root_info(&root, &job.root),
        });
        if let Some(own) = &r.own {
            if s.ownership {
                out["ownership"] = json!(own.mean.iter().map(|&x| view.owner(x)).collect::<Vec<_>>());
            }
            if s.ownership_stdev {
                out["ownershipStdev"] = json!(own.stdev);
            }
        }
        if let Some(p) = &r.policy {
            out["policy"] = json!(p);
        }
        out
    }

    /// Starts the search of `job`.
    fn start(&mut self, job: Job) -> Running {
        let seed = self.brain.seed() ^ job.root.state_hash();
        let s = &job.settings;
        let own =
            (s.ownership || s.ownership_stdev).then(|| ownership(self.brain.evaluator(), &job.root, seed));
        let policy = (s.policy && job.root.rules().variant != Variant::Sligo).then(|| self.policy(&job.root));
        let mut search = Search::new(job.root.clone(), SearchConfig::for_board(job.root.geo().size()), seed);
        if !s.move_rules.is_empty() {
            let rules = s.move_rules.clone();
            search.set_move_filter(Box::new(move |depth, g: &GameState, a| {
                rules.iter().all(|r| r.keeps(depth, g.to_move(), a))
            }));
        }
        let now = Instant::now();
        Running { job, search, own, policy, started: now, last_report: now, terminated: false }
    }
}

fn write_json(out: &mut impl Write, v: &Value) -> io::Result<()> {
    writeln!(out, "{v}")?;
    out.flush()
}

/// The search of one job in progress.
struct Running {
    job: Job,
    search: Search<GameState>,
    own: Option<Ownership>,
    /// The net's policy at the root, when asked for.
    policy: Option<Vec<f64>>,
    started: Instant,
    last_report: Instant,
    terminated: bool,
}

impl Running {
    /// Whether the search is over: terminated, a finished game, its visits or its time spent.
    fn done(&self) -> bool {
        let s = &self.job.settings;
        self.terminated
            || self.job.root.is_over()
            || self.search.root_visits() >= s.visits
            || s.max_time.is_some_and(|t| self.started.elapsed() >= t)
    }
}

/// Answers the queries of `input` on `output` until the input ends and every queued turn is
/// answered (see the module docs).
pub fn serve(
    an: &mut Analyzer,
    input: impl BufRead + Send + 'static,
    mut output: impl Write,
) -> io::Result<()> {
    let lines = crate::input::read_lines(input);
    let mut queue: VecDeque<Job> = VecDeque::new();
    let mut running: Option<Running> = None;
    let mut open = true;
    loop {
        // Read what has arrived; wait for input only when there is nothing to search.
        while open {
            let idle = running.is_none() && queue.is_empty();
            let next =
                if idle { lines.recv().map_err(|_| TryRecvError::Disconnected) } else { lines.try_recv() };
            match next {
                Ok(line) => match line? {
                    // Answered with an error; nothing of it is parsed.
                    line if line.too_long => {
                        write_json(&mut output, &error(&Line::too_long_message(), None, None))?
                    }
                    line => handle(an, &line.bytes, &mut queue, running.as_mut(), &mut output)?,
                },
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => open = false,
            }
        }
        if running.is_none() {
            let Some(job) = queue.pop_front() else {
                if open {
                    continue;
                }
                return Ok(());
            };
            running = Some(an.start(job));
        }
        let r = running.as_mut().expect("a running search");
        if !r.done() {
            let target = (r.search.root_visits() + CHUNK_VISITS).min(r.job.settings.visits);
            r.search.run(an.brain.evaluator(), target, an.leaves_per_call);
            if r.job.settings.report_every.is_some_and(|every| r.last_report.elapsed() >= every) {
                let v = an.response(r, true);
                write_json(&mut output, &v)?;
                r.last_report = Instant::now();
            }
            continue;
        }
        let r = running.take().expect("a running search");
        let v = an.response(&r, false);
        write_json(&mut output, &v)?;
    }
}

/// The `id` of a line that is not valid JSON, when one can still be read: the first value
/// after a `"id":` that parses on its own (a line with `"komi": 1e400` keeps its id).
fn salvage_id(text: &str) -> Option<Value> {
    text.match_indices("\"id\"").find_map(|(at, key)| {
        let rest = text[at + key.len()..].trim_start().strip_prefix(':')?;
        serde_json::Deserializer::from_str(rest).into_iter::<Value>().next()?.ok()
    })
}

/// An error response, with the id as given when there is one.
fn error(message: &str, field: Option<&str>, id: Option<&Value>) -> Value {
    let mut v = json!({ "error": message });
    if let Some(f) = field {
        v["field"] = json!(f);
    }
    if let Some(id) = id {
        v["id"] = id.clone();
    }
    v
}

/// Handles one input line: a query (its turns join the queue) or an action.
fn handle(
    an: &mut Analyzer,
    raw: &[u8],
    queue: &mut VecDeque<Job>,
    running: Option<&mut Running>,
    out: &mut impl Write,
) -> io::Result<()> {
    let text = String::from_utf8_lossy(raw);
    if text.trim().is_empty() {
        return Ok(());
    }
    let q = match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(q)) => q,
        Ok(_) => return write_json(out, &error("a query must be a JSON object", None, None)),
        Err(e) => {
            let message = format!("could not parse the query: {e}");
            return write_json(out, &error(&message, None, salvage_id(&text).as_ref()));
        }
    };
    let id = match q.get("id") {
        Some(Value::String(id)) => id.clone(),
        given => return write_json(out, &error("id is required and must be a string", Some("id"), given)),
    };
    let refuse = |out: &mut _, (message, field): Refusal| {
        write_json(out, &json!({"error": message, "field": field, "id": id}))
    };
    match q.get("action").map(|a| a.as_str()) {
        None => match jobs(&q, &id, an) {
            Ok((jobs, warnings)) => {
                for (message, field) in &warnings {
                    write_json(out, &json!({"warning": message, "field": field, "id": id}))?;
                }
                enqueue(queue, jobs);
                Ok(())
            }
            Err(r) => refuse(out, r),
        },
        Some(Some("query_version")) => {
            let mut echo = q.clone();
            echo.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
            echo.insert("git_hash".into(), json!("<omitted>"));
            write_json(out, &Value::Object(echo))
        }
        Some(Some("clear_cache")) => write_json(out, &Value::Object(q)),
        Some(Some("terminate")) => match terminate(&q, queue, running, out) {
            Ok(()) => write_json(out, &Value::Object(q)),
            Err(TerminateError::Io(e)) => Err(e),
            Err(TerminateError::Refused(r)) => refuse(out, r),
        },
        Some(_) => refuse(out, ("unknown action".into(), "action")),
    }
}

/// Why a `terminate` did not complete.
enum TerminateError {
    Io(io::Error),
    Refused(Refusal),
}

impl From<io::Error> for TerminateError {
    fn from(e: io::Error) -> TerminateError {
        TerminateError::Io(e)
    }
}

/// Carries out `terminate` query `q`: queued turns of its target get a `noResults` response,
/// a running one stops and is answered with what it found.
fn terminate(
    q: &Map<String, Value>,
    queue: &mut VecDeque<Job>,
    running: Option<&mut Running>,
    out: &mut impl Write,
) -> Result<(), TerminateError> {
    let refused = |m: &str, f| TerminateError::Refused((m.to_string(), f));
    let target = q
        .get("terminateId")
        .and_then(Value::as_str)
        .ok_or_else(|| refused("terminateId is required and must be a string", "terminateId"))?;
    let turns: Option<Vec<u64>> = match q.get("turnNumbers") {
        None => None,
        Some(v) => Some(
            v.as_array()
                .and_then(|a| a.iter().map(Value::as_u64).collect())
                .ok_or_else(|| refused("turnNumbers must be an array of integers", "turnNumbers"))?,
        ),
    };
    let hit = |j: &Job| j.id == target && turns.as_ref().is_none_or(|t| t.contains(&(j.turn as u64)));
    let mut kept = VecDeque::new();
    for j in queue.drain(..) {
        if hit(&j) {
            write_json(
                out,
                &json!({"id": j.id, "turnNumber": j.turn, "isDuringSearch": false, "noResults": true}),
            )?;
        } else {
            kept.push_back(j);
        }
    }
    *queue = kept;
    if let Some(r) = running.filter(|r| hit(&r.job)) {
        r.terminated = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(text: &str) -> Map<String, Value> {
        match serde_json::from_str(text).unwrap() {
            Value::Object(q) => q,
            _ => unreachable!(),
        }
    }

    #[test]
    fn katago_rule_names_map_onto_hane_presets() {
        let q = query(r#"{"rules":"chinese-kgs","boardXSize":9,"boardYSize":9,"komi":7}"#);
        let (r, name) = query_rules(&q).unwrap();
        assert_eq!(
            (r, name.as_str()),
            ("chinese,ko=positional,size=9,komi=7".parse::<Rules>().unwrap(), "chinese-kgs")
        );
        let q = query(r#"{"rules":"loose","boardXSize":5,"boardYSize":5}"#);
        assert_eq!(query_rules(&q).unwrap().0.variant, Variant::Loose);
        let q = query(
            r#"{"rules":{"ko":"POSITIONAL","scoring":"AREA","tax":"NONE","suicide":true,"hasButton":false,"whiteHandicapBonus":"0"},"boardXSize":9,"boardYSize":9,"komi":7.5}"#,
        );
        assert_eq!(
            query_rules(&q).unwrap().0,
            "chinese,ko=positional,suicide=allow,size=9".parse::<Rules>().unwrap(),
            "Tromp-Taylor's fields, with Chinese dead stones"
        );
        for bad in [
            r#"{"ko":"SITUATIONAL"}"#,
            r#"{"hasButton":true}"#,
            r#"{"scoring":"TERRITORY","tax":"ALL"}"#,
            r#"{"whiteHandicapBonus":"N"}"#,
        ] {
            let q = query(&format!(r#"{{"rules":{bad},"boardXSize":9,"boardYSize":9}}"#));
            assert_eq!(query_rules(&q).unwrap_err().1, "rules", "{bad}");
        }
        for (bad, field) in [
            (r#"{"rules":"ing","boardXSize":9,"boardYSize":9}"#, "rules"),
            (r#"{"rules":"chinese","boardXSize":9,"boardYSize":7}"#, "boardYSize"),
            (r#"{"rules":"chinese","boardXSize":9}"#, "boardYSize"),
            (r#"{"rules":"loose","boardXSize":5,"boardYSize":5,"komi":3}"#, "rules"),
            (r#"{"rules":"chinese","boardXSize":9,"boardYSize":9,"komi":0.3}"#, "komi"),
        ] {
            assert_eq!(query_rules(&query(bad)).unwrap_err().1, field, "{bad}");
        }
    }

    #[test]
    fn moves_replay_with_implied_passes_and_handicaps() {
        let rules: Rules = "chinese,size=9".parse().unwrap();
        let q = query(r#"{"initialStones":[["B","C3"],["B","G7"]],"moves":[["W","E5"],["W","D4"]]}"#);
        let p = positions(&q, rules).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p[0].to_move(), Color::White, "a handicap is Black's first move");
        assert_eq!(p[2].to_move(), Color::Black, "W twice implies a Black pass");
        let q = query(r#"{"moves":[["B","E5"],["W","E5"]]}"#);
        assert_eq!(positions(&q, rules).unwrap_err().1, "moves");
        let q = query(r#"{"initialStones":[["W","C3"]],"moves":[]}"#);
        assert_eq!(positions(&q, rules).unwrap_err().1, "initialStones");
    }
    #[test]
    fn a_line_past_the_limit_gets_one_error_and_the_next_query_is_answered() {
        let mut an = Analyzer::new(Brain::with_rollouts(16, 1).unwrap(), Perspective::Black);
        let mut input = vec![b' '; crate::input::MAX_LINE_BYTES + 1];
        input.extend_from_slice(b"\n{\"id\":\"b\",\"action\":\"query_version\"}\n");
        let mut out = Vec::new();
        serve(&mut an, io::Cursor::new(input), &mut out).unwrap();
        let lines: Vec<Value> =
            String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert_eq!(lines[0]["error"], Line::too_long_message());
        assert_eq!(lines[1]["id"], "b");
    }

    /// The responses of a rollout engine (16 visits by default) to `queries`, one per line.
    fn answers(queries: &[Value]) -> Vec<Value> {
        let mut an = Analyzer::new(Brain::with_rollouts(16, 1).unwrap(), Perspective::Black);
        let text: String = queries.iter().map(|q| format!("{q}\n")).collect();
        let mut out = Vec::new();
        serve(&mut an, io::Cursor::new(text.into_bytes()), &mut out).unwrap();
        String::from_utf8(out).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
    }

    /// A 5x5 query of `id` with `extra` fields.
    fn q5(id: &str, extra: Value) -> Value {
        let mut q = json!({"id": id, "moves": [["B", "C3"]], "rules": "japanese", "komi": 6.5,
                           "boardXSize": 5, "boardYSize": 5, "maxVisits": 24});
        q.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        q
    }

    fn of<'a>(rs: &'a [Value], id: &str) -> Vec<&'a Value> {
        rs.iter().filter(|r| r["id"] == id).collect()
    }

    #[test]
    fn malformed_queries_are_answered_with_their_id() {
        let rs = answers(&[
            q5("empty", json!({"analyzeTurns": []})),
            json!({"id": 5, "moves": []}),
            json!({"id": {"n": 1}, "moves": []}),
            q5("illegal", json!({"moves": [["B", "C3"], ["W", "C3"]]})),
        ]);
        let raw = "{\"id\": \"huge\", \"komi\": 1e400, \"moves\": []}\n";
        let mut an = Analyzer::new(Brain::with_rollouts(16, 1).unwrap(), Perspective::Black);
        let mut out = Vec::new();
        serve(&mut an, io::Cursor::new(raw.as_bytes().to_vec()), &mut out).unwrap();
        let huge: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!((huge["id"].as_str(), huge["error"].is_string()), (Some("huge"), true), "{huge}");
        assert_eq!(of(&rs, "empty")[0]["field"], "analyzeTurns");
        assert!(rs.iter().any(|r| r["id"] == 5 && r["field"] == "id"), "{rs:?}");
        assert!(rs.iter().any(|r| r["id"] == json!({"n": 1}) && r["error"].is_string()), "{rs:?}");
        let illegal = &of(&rs, "illegal")[0]["error"];
        assert!(illegal.as_str().unwrap().contains("Illegal move"), "{illegal}");
        assert_eq!(salvage_id(r#"{"komi": 1e400, "id" : 7}"#), Some(json!(7)));
        assert_eq!(salvage_id(r#"{"komi": 1e400}"#), None);
    }

    #[test]
    fn a_finished_game_is_scored_not_searched() {
        // Black's lone stone wins the whole board under Japanese rules: 24 points - 6.5 komi.
        let end = json!({"moves": [["B", "C3"], ["W", "pass"], ["B", "pass"]], "includePolicy": true});
        let mut white = end.clone();
        white["overrideSettings"] = json!({"reportAnalysisWinratesAs": "WHITE"});
        let rs = answers(&[q5("black", end), q5("white", white)]);
        let b = of(&rs, "black")[0];
        assert_eq!(b["moveInfos"], json!([]));
        assert!(b["policy"].as_array().unwrap().iter().all(|p| p == -1.0), "no legal move: {b}");
        assert_eq!(
            (b["rootInfo"]["scoreLead"].as_f64(), b["rootInfo"]["winrate"].as_f64()),
            (Some(17.5), Some(1.0))
        );
        let w = of(&rs, "white")[0];
        assert_eq!(
            (w["rootInfo"]["scoreLead"].as_f64(), w["rootInfo"]["winrate"].as_f64()),
            (Some(-17.5), Some(0.0))
        );
    }

    #[test]
    fn avoid_and_allow_moves_bound_the_root() {
        let avoid = json!([{"player": "W", "moves": ["B2", "B3", "B4", "C2", "C4", "D2", "D3", "D4"], "untilDepth": 1}]);
        let allow = json!([{"player": "W", "moves": ["A1", "E5"], "untilDepth": 1}]);
        let other = json!([{"player": "B", "moves": ["A1"], "untilDepth": 1}]);
        let rs = answers(&[
            q5("avoid", json!({"avoidMoves": avoid, "maxVisits": 60})),
            q5("allow", json!({"allowMoves": allow})),
            q5("other", json!({"allowMoves": other})),
        ]);
        let moves = |id| -> Vec<String> {
            of(&rs, id)[0]["moveInfos"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m["move"].as_str().unwrap().to_string())
                .collect()
        };
        let avoided = moves("avoid");
        assert!(
            !avoided.is_empty()
                && avoided.iter().all(|m| !avoid[0]["moves"].as_array().unwrap().contains(&json!(m))),
            "{avoided:?}"
        );
        let allowed = moves("allow");
        assert!(!allowed.is_empty() && allowed.iter().all(|m| m == "A1" || m == "E5"), "{allowed:?}");
        assert!(moves("other").len() > 2, "a rule for the other player leaves White's root alone");
    }

    #[test]
    fn budgets_time_and_settings_are_honoured_or_warned_about() {
        let t = Instant::now();
        let rs = answers(&[
            q5(
                "ponder",
                json!({"maxVisits": 10_000_000_000u64, "maxTime": 0.3, "includeMovesOwnership": true,
                                "overrideSettings": {"wideRootNoise": 0.04, "antiMirror": true}}),
            ),
            q5("partial", json!({"maxVisits": 400, "reportDuringSearchEvery": 0.001, "includePolicy": true})),
            q5("stones", json!({"rules": "stone_scoring", "priority": 5})),
        ]);
        assert!(t.elapsed() < Duration::from_secs(20));
        let ponder = of(&rs, "ponder");
        let warned: Vec<&str> = ponder.iter().filter_map(|r| r["warning"].as_str()).collect();
        assert_eq!(
            warned.len(),
            4,
            "maxVisits, wideRootNoise, antiMirror, includeMovesOwnership: {ponder:?}"
        );
        let last = ponder.last().unwrap();
        assert!(
            last["rootInfo"]["visits"].as_u64().unwrap() < u64::from(MAX_QUERY_VISITS),
            "maxTime: {last}"
        );
        let partial = of(&rs, "partial");
        assert!(partial.iter().any(|r| r["isDuringSearch"] == true), "{partial:?}");
        assert!(partial
            .iter()
            .filter(|r| r.get("rootInfo").is_some())
            .all(|r| r["policy"].as_array().is_some_and(|p| p.len() == 26)));
        let stones = of(&rs, "stones");
        assert!(
            stones.iter().all(|r| r.get("error").is_none())
                && stones.last().unwrap()["moveInfos"].as_array().is_some(),
            "{stones:?}"
        );
    }

    #[test]
    fn higher_priorities_go_first_and_ties_keep_their_order() {
        let g = GameState::new("ttakji,size=5".parse().unwrap());
        let settings = Settings {
            visits: 1,
            max_time: None,
            perspective: Perspective::Black,
            ownership: false,
            ownership_stdev: false,
            moves_ownership: false,
            policy: false,
            pv_visits: false,
            report_every: None,
            move_rules: Vec::new(),
        };
        let job = |id: &str, priority| Job {
            id: id.into(),
            turn: 0,
            priority,
            root: g.clone(),
            settings: settings.clone(),
        };
        let mut queue = VecDeque::new();
        enqueue(&mut queue, vec![job("a", 0), job("b", 0)]);
        enqueue(&mut queue, vec![job("c", 5), job("d", -1), job("e", 0)]);
        let order: Vec<&str> = queue.iter().map(|j| j.id.as_str()).collect();
        assert_eq!(order, ["c", "a", "b", "e", "d"]);
    }
}
