//! `hane analysis`: KataGo's JSON analysis protocol (`Analysis_Engine.md` in KataGo's
//! repository) on stdin and stdout, for KaTrain and analysis scripts.
//!
//! Each input line is one JSON query; each analysed turn gets one response line when its
//! search ends (and, with `reportDuringSearchEvery`, partial ones with `isDuringSearch`
//! true). Queries queue while a search runs and are answered in order. A query that does not
//! parse gets `{"error": ..., "field": ..., "id": ...}` (with the id when it has one) and the
//! engine goes on: nothing a client sends ends it but the end of its input, after which the
//! queued turns are still answered.
//!
//! Query fields: `id`, `moves` (`[["B", "C3"], ...]`; `pass`; Sligo turns in hane's notation,
//! `E5>F6+D4`), `initialStones` (Black's only, as a handicap), `initialPlayer`, `rules`,
//! `komi`, `boardXSize` and `boardYSize` (equal), `analyzeTurns` (default: the last),
//! `maxVisits`, `includeOwnership`, `includeOwnershipStdev`, `includePolicy`,
//! `includePVVisits`, `reportDuringSearchEvery`. Fields hane does not implement (`priority`,
//! `avoidMoves`, `overrideSettings`, ...) get a warning line and are ignored. Rules are
//! KataGo's names where a hane rule set matches (`tromp-taylor`, `chinese`, `chinese-ogs`,
//! `chinese-kgs`, `japanese`, `korean`, `stone-scoring`), else any hane rules string
//! (`ttakji`, `brainking`, `loose`, `sligo,komi=4`, ...); the board size comes from
//! `boardXSize`. Actions: `query_version`, `clear_cache` (hane keeps no cache: echoed) and
//! `terminate` (`terminateId`, optional `turnNumbers`).
//!
//! Values follow [`crate::candidates`], reported from Black's view by default (KataGo's
//! example config sets `reportAnalysisWinratesAs = BLACK`); [`Perspective`] changes it.
//! Ownership is the net's ownership head, or without a net random light playouts from the
//! position ([`crate::candidates::ownership`]). For Sligo the candidates
//! are the first decision of the turn (a slide, `noslide` or `pass`), and policies are not
//! reported.

use crate::candidates::{candidates, ownership, summary, Candidate, Summary, CHUNK_VISITS};
use crate::gtp::Brain;
use crate::katago_rules;
use hane_engine::playout::Ownership;
use hane_engine::rules::Variant;
use hane_engine::{Action, Color, Game, GameState, Komi, Rules, Turn};
use hane_mcts::{EvalRequest, Evaluator, Search, SearchConfig, MAX_VISITS};
use serde_json::{json, Map, Value};
use std::collections::VecDeque;
use std::io::{self, BufRead, Write};
use std::sync::mpsc::TryRecvError;
use std::time::{Duration, Instant};

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
            _ => Err(format!("{s:?}: allowed: black, white, side-to-move")),
        }
    }
}

/// One turn of a query, waiting for its search.
#[derive(Debug)]
struct Job {
    id: String,
    turn: usize,
    root: GameState,
    visits: u32,
    ownership: bool,
    ownership_stdev: bool,
    policy: bool,
    pv_visits: bool,
    report_every: Option<Duration>,
}

/// A query's error: the message and the field it concerns.
type Refusal = (String, &'static str);

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

/// The rules of a query: its `rules`, size and komi.
fn query_rules(q: &Map<String, Value>) -> Result<Rules, Refusal> {
    let (name, text) = match q.get("rules") {
        Some(Value::String(s)) => (s.clone(), katago_rules::from_name(s)),
        Some(Value::Object(o)) => {
            let text = katago_rules::from_object(o).map_err(|e| (e, "rules"))?;
            (Value::Object(o.clone()).to_string(), text)
        }
        Some(_) => return Err(("rules must be a string or a KataGo rules object".into(), "rules")),
        None => return Err(("rules is required".into(), "rules")),
    };
    let mut rules: Rules = text.parse().map_err(|e| (format!("{name:?}: {e}"), "rules"))?;
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
    Ok(rules)
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
        let bad = |e: String| (format!("move {i} ({c:?} {loc}): {e}"), "moves");
        if *c != game.to_move() {
            game.pass_implied().map_err(|e| bad(e.to_string()))?;
        }
        Turn::play_named(&mut game, loc).map_err(|e| bad(e.to_string()))?;
        out.push(game.clone());
    }
    Ok(out)
}

/// The jobs of an analysis query, or why it is refused.
fn jobs(q: &Map<String, Value>, id: &str, brain: &Brain) -> Result<(Vec<Job>, Vec<Value>), Refusal> {
    const KNOWN: [&str; 16] = [
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
        "includeOwnership",
        "includeOwnershipStdev",
        "includePolicy",
        "includePVVisits",
        "reportDuringSearchEvery",
        "whiteHandicapBonus",
    ];
    let warnings = q
        .keys()
        .filter(|k| !KNOWN.contains(&k.as_str()))
        .map(
            |k| json!({"warning": "hane does not implement this field; it is ignored", "field": k, "id": id}),
        )
        .collect();
    let rules = query_rules(q)?;
    brain.check_rules(&rules).map_err(|e| (e.0, "rules"))?;
    let states = positions(q, rules)?;
    let turns: Vec<usize> = match q.get("analyzeTurns") {
        None => vec![states.len() - 1],
        Some(v) => {
            v.as_array()
                .ok_or(("analyzeTurns must be an array".to_string(), "analyzeTurns"))?
                .iter()
                .map(|t| {
                    t.as_u64().map(|t| t as usize).filter(|&t| t < states.len()).ok_or_else(|| {
                        (format!("turn {t} is not in 0..={}", states.len() - 1), "analyzeTurns")
                    })
                })
                .collect::<Result<_, _>>()?
        }
    };
    let visits = match q.get("maxVisits") {
        None => brain.visits(),
        Some(v) => v
            .as_u64()
            .filter(|v| (1..=u64::from(MAX_VISITS)).contains(v))
            .ok_or((format!("maxVisits must be an integer from 1 to {MAX_VISITS}"), "maxVisits"))?
            as u32,
    };
    let report_every = match q.get("reportDuringSearchEvery") {
        None => None,
        Some(v) => Some(
            v.as_f64()
                .filter(|s| s.is_finite() && *s > 0.0 && *s <= 3600.0)
                .map(Duration::from_secs_f64)
                .ok_or((
                    "reportDuringSearchEvery must be seconds in (0, 3600]".to_string(),
                    "reportDuringSearchEvery",
                ))?,
        ),
    };
    let (ownership, ownership_stdev) = (flag(q, "includeOwnership")?, flag(q, "includeOwnershipStdev")?);
    let (policy, pv_visits) = (flag(q, "includePolicy")?, flag(q, "includePVVisits")?);
    let jobs = turns
        .into_iter()
        .map(|turn| Job {
            id: id.to_string(),
            turn,
            root: states[turn].clone(),
            visits,
            ownership,
            ownership_stdev,
            policy,
            pv_visits,
            report_every,
        })
        .collect();
    Ok((jobs, warnings))
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

/// The engine: a brain to search with and the view to report in.
#[derive(Debug)]
pub struct Analyzer {
    brain: Brain,
    perspective: Perspective,
}

impl Analyzer {
    /// An engine searching with `brain` (its visits are the default `maxVisits`), reporting
    /// from `perspective`.
    pub fn new(brain: Brain, perspective: Perspective) -> Analyzer {
        Analyzer { brain, perspective }
    }

    /// The net's raw policy at `root` in KataGo's layout: the points row-major from the
    /// top-left, then pass; -1 for illegal moves.
    fn policy(&mut self, root: &GameState) -> Vec<f64> {
        let mut legal = Vec::new();
        root.legal_actions(&mut legal);
        let area = root.geo().area();
        let mut out = vec![-1.0; area + 1];
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

    /// The response to a finished (or partial) search of `job`.
    fn response(
        &mut self,
        job: &Job,
        search: &Search<GameState>,
        own: Option<&Ownership>,
        during: bool,
    ) -> Value {
        let view = View::of(&job.root, self.perspective);
        let infos: Vec<Value> = candidates(search, 0, 0)
            .iter()
            .enumerate()
            .map(|(i, c)| view.move_info(c, i, &job.root, job.pv_visits))
            .collect();
        let mut r = json!({
            "id": job.id,
            "turnNumber": job.turn,
            "isDuringSearch": during,
            "moveInfos": infos,
            "rootInfo": view.root_info(&summary(search), &job.root),
        });
        if let Some(own) = own {
            if job.ownership {
                r["ownership"] = json!(own.mean.iter().map(|&x| view.owner(x)).collect::<Vec<_>>());
            }
            if job.ownership_stdev {
                r["ownershipStdev"] = json!(own.stdev);
            }
        }
        if job.policy && job.root.rules().variant != Variant::Sligo && !during {
            r["policy"] = json!(self.policy(&job.root));
        }
        r
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
    last_report: Instant,
    terminated: bool,
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
                Ok(line) => handle(an, &line?, &mut queue, running.as_mut(), &mut output)?,
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
            let seed = an.brain.seed() ^ job.root.state_hash();
            let own = (job.ownership || job.ownership_stdev)
                .then(|| ownership(an.brain.evaluator(), &job.root, seed));
            let search = Search::new(job.root.clone(), SearchConfig::for_board(job.root.geo().size()), seed);
            running = Some(Running { job, search, own, last_report: Instant::now(), terminated: false });
        }
        let r = running.as_mut().expect("a running search");
        let done = r.terminated || r.job.root.is_over() || r.search.root_visits() >= r.job.visits;
        if !done {
            let target = (r.search.root_visits() + CHUNK_VISITS).min(r.job.visits);
            r.search.run(an.brain.evaluator(), target, 8);
            if r.job.report_every.is_some_and(|every| r.last_report.elapsed() >= every) {
                let v = an.response(&r.job, &r.search, r.own.as_ref(), true);
                write_json(&mut output, &v)?;
                r.last_report = Instant::now();
            }
            continue;
        }
        let r = running.take().expect("a running search");
        let v = an.response(&r.job, &r.search, r.own.as_ref(), false);
        write_json(&mut output, &v)?;
    }
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
        Ok(_) => return write_json(out, &json!({"error": "a query must be a JSON object"})),
        Err(e) => return write_json(out, &json!({"error": format!("could not parse the query: {e}")})),
    };
    let Some(id) = q.get("id").and_then(Value::as_str).map(str::to_string) else {
        return write_json(out, &json!({"error": "id is required and must be a string", "field": "id"}));
    };
    let refuse = |out: &mut _, (message, field): Refusal| {
        write_json(out, &json!({"error": message, "field": field, "id": id}))
    };
    match q.get("action").map(|a| a.as_str()) {
        None => match jobs(&q, &id, &an.brain) {
            Ok((jobs, warnings)) => {
                for w in &warnings {
                    write_json(out, w)?;
                }
                queue.extend(jobs);
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
        Some(Some("terminate")) => {
            let Some(target) = q.get("terminateId").and_then(Value::as_str) else {
                return refuse(out, ("terminateId is required and must be a string".into(), "terminateId"));
            };
            let turns: Option<Vec<u64>> = match q.get("turnNumbers") {
                None => None,
                Some(v) => match v.as_array().and_then(|a| a.iter().map(Value::as_u64).collect()) {
                    Some(t) => Some(t),
                    None => {
                        return refuse(
                            out,
                            ("turnNumbers must be an array of integers".into(), "turnNumbers"),
                        )
                    }
                },
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
            write_json(out, &Value::Object(q))
        }
        Some(_) => refuse(out, ("unknown action".into(), "action")),
    }
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
        let r = query_rules(&q).unwrap();
        assert_eq!(r, "chinese,ko=positional,size=9,komi=7".parse::<Rules>().unwrap());
        let q = query(r#"{"rules":"loose","boardXSize":5,"boardYSize":5}"#);
        assert_eq!(query_rules(&q).unwrap().variant, Variant::Loose);
        let q = query(
            r#"{"rules":{"ko":"POSITIONAL","scoring":"AREA","tax":"NONE","suicide":true,"hasButton":false,"whiteHandicapBonus":"0"},"boardXSize":9,"boardYSize":9,"komi":7.5}"#,
        );
        assert_eq!(
            query_rules(&q).unwrap(),
            "chinese,ko=positional,suicide=allow,size=9".parse::<Rules>().unwrap(),
            "Tromp-Taylor's fields, with Chinese dead stones"
        );
        for bad in [
            r#"{"ko":"SITUATIONAL"}"#,
            r#"{"hasButton":true}"#,
            r#"{"scoring":"TERRITORY","tax":"NONE"}"#,
            r#"{"whiteHandicapBonus":"N"}"#,
        ] {
            let q = query(&format!(r#"{{"rules":{bad},"boardXSize":9,"boardYSize":9}}"#));
            assert_eq!(query_rules(&q).unwrap_err().1, "rules", "{bad}");
        }
        for (bad, field) in [
            (r#"{"rules":"aga","boardXSize":9,"boardYSize":9}"#, "rules"),
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
}
