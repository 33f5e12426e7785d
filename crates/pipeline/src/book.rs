//! A minimax opening book with a net, for `hane book` and the loop's book phase: the book
//! (`hane_book`) grown to a number of expansions, saved as it grows, written as an SGF tree,
//! and summed up in a [`BookReport`]: Black's minimaxed margin with its bracket (the fair
//! komi where the rule set draws at an equal count), the main line, the share of nodes where
//! the raw policy picks the book's move, and the cost.

use crate::{write_file, write_json, Error, Stop};
use hane_book::{Book, BookError, Builder, Checkpoints, EvaluatorFactory, Event, FairKomi, Figure, Settings};
use hane_engine::{Action, Game, GameState, Rules, Turn};
use hane_eval::gtp::GtpError;
use hane_eval::komi::KomiEstimate;
use hane_eval::referee::Player;
use hane_selfplay::starts::{StartPosition, StartPositions};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What to build.
#[derive(Clone, Debug)]
pub struct BookJob {
    /// The rules, with the book's komi.
    pub rules: Rules,
    /// The book file (continued when it exists).
    pub file: PathBuf,
    /// Where to write the SGF tree, and the report as JSON, when the job ends.
    pub sgf: Option<PathBuf>,
    /// The report's JSON file.
    pub json: Option<PathBuf>,
    /// Grow the book to this many expansions in all.
    pub expansions: u64,
    /// How it grows.
    pub settings: Settings,
}

/// What a book says.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BookReport {
    /// The rule set, with the book's komi.
    pub rules: String,
    /// The book's komi.
    pub komi: f64,
    /// The net (its file name and checksum) or stand-in that built it.
    pub net: String,
    /// Black's margin at the root under the book's minimax, with its bracket.
    pub fair: FairKomi,
    /// Nodes in the book.
    pub nodes: usize,
    /// Expansions, over every run of the book.
    pub expansions: u64,
    /// Net evaluations, over every run.
    pub evaluations: u64,
    /// Seconds of expansion, over every run.
    pub seconds: f64,
    /// The main line from the empty board.
    pub main_line: Vec<String>,
    /// The share of searched nodes with book moves where the raw policy's favourite is the
    /// best book move, and how many such nodes there are.
    pub policy_agreement: f64,
    /// How many nodes that share is of.
    pub agreement_nodes: usize,
    /// Black's margin with its bracket at every twentieth of the last quarter of the
    /// expansions that this build went through, after that point's refinement: what says
    /// whether the figure is still moving.
    #[serde(default)]
    pub last_quarter: Vec<(u64, FairKomi)>,
    /// Where the margin comes from: the line to the entry that sets it.
    #[serde(default)]
    pub margin_from: Option<String>,
    /// Where the bracket's lower end comes from.
    #[serde(default)]
    pub lower_from: Option<String>,
    /// Where its upper end comes from.
    #[serde(default)]
    pub upper_from: Option<String>,
}

impl BookReport {
    /// The komi values of the book's rule set.
    fn komi_domain(&self) -> Option<hane_engine::KomiDomain> {
        self.rules.parse::<Rules>().ok().map(|r| hane_engine::KomiDomain::of(&r))
    }

    /// The report's lines for people.
    pub fn lines(&self) -> String {
        let mut out = format!(
            "book of {} with {}: {} nodes, {} expansions, {} evaluations in {:.0} s\n\
             komi {}: {}\nmain line: {}\nthe raw policy picks the book's move at {:.1}% of {} searched nodes",
            self.rules,
            self.net,
            self.nodes,
            self.expansions,
            self.evaluations,
            self.seconds,
            self.komi,
            self.fair,
            self.main_line.join(" "),
            100.0 * self.policy_agreement,
            self.agreement_nodes
        );
        if let (Some(margin), Some(low), Some(up), false) =
            (&self.margin_from, &self.lower_from, &self.upper_from, self.fair.proven)
        {
            out += &format!(
                "\nthe margin comes from {margin}\nthe bracket's lower end from {low}\nits upper end from {up}"
            );
        }
        out
    }
}

fn book_error(e: BookError) -> Error {
    match e {
        BookError::Io(path, source) => Error::Io { path, source },
        other => Error::Input(other.to_string()),
    }
}

/// Grows the book of `job` with evaluators from `factory` (the net named `net`) to its expansions, reporting
/// through `on`; a stop ends it after the expansion under way with [`Error::Interrupted`]
/// (the book is saved; the same job continues it).
pub fn build(
    job: &BookJob,
    factory: &EvaluatorFactory,
    net: &str,
    stop: &Stop,
    on: &mut dyn FnMut(&Event),
) -> Result<(Book, BookReport), Error> {
    let mut book = Book::open(&job.file, &job.rules, net).map_err(book_error)?;
    if let Some(dir) = job.file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    let mut settings = job.settings.clone();
    settings.save = Some(job.file.clone());
    let checkpoints = Checkpoints::of(job.expansions);
    let mut last_quarter: Vec<(u64, FairKomi)> = Vec::new();
    let mut track = |e: &Event| {
        match e {
            Event::Expanded(s) if checkpoints.holds(s.expansions) => {
                last_quarter.push((s.expansions, s.fair))
            }
            Event::Refined(r) => {
                if let Some(point) = last_quarter.last_mut() {
                    point.1 = r.fair;
                }
            }
            _ => {}
        }
        on(e)
    };
    let finished = Builder::new(settings)
        .grow(&mut book, factory, job.expansions, stop, &mut track)
        .map_err(book_error)?;
    let report = BookReport { last_quarter, ..report(&book) };
    if let Some(path) = &job.sgf {
        write_file(path, hane_book::sgf::write(&book, 60, 50_000).as_bytes())?;
    }
    if let Some(path) = &job.json {
        write_json(path, &report)?;
    }
    if !finished {
        return Err(Error::Interrupted);
    }
    Ok((book, report))
}

/// The net of the checkpoint at `path` for a book of `rules`, computing in `precision`: checked
/// by loading it once, then a factory that loads a copy for each expansion thread, and the
/// name the book keeps of it.
pub fn net_factory<'a>(
    path: &'a std::path::Path,
    rules: &Rules,
    precision: hane_mcts::Precision,
) -> Result<(impl Fn() -> crate::players::BoxedEvaluator + Sync + 'a, String), Error> {
    drop(crate::players::net(path, rules, precision)?);
    let net = hane_book::net_id(path).map_err(|e| Error::Input(e.to_string()))?;
    let rules = *rules;
    Ok((move || crate::players::net(path, &rules, precision).expect("the net loaded a moment ago"), net))
}

/// The report of a book.
pub fn report(book: &Book) -> BookReport {
    let geo = book.nodes[0].state.geo();
    let (agree, count) = book.policy_agreement();
    let from = |f| book.source(f).map(|s| s.describe(geo, book.header.komi as f32));
    BookReport {
        rules: book.header.rules.clone(),
        komi: book.header.komi,
        net: book.header.net.clone(),
        fair: book.fair_komi(),
        nodes: book.nodes.len(),
        expansions: book.expansions,
        evaluations: book.evaluations,
        seconds: book.seconds,
        main_line: book.main_line().iter().map(|(a, _)| a.name(geo)).collect(),
        policy_agreement: agree,
        agreement_nodes: count,
        last_quarter: Vec::new(),
        margin_from: from(Figure::Margin),
        lower_from: from(Figure::Lower),
        upper_from: from(Figure::Upper),
    }
}

/// The ply from which the book tries the exact solver on new positions: turn `3/5` of the
/// board's area (turn 29 on 7x7, where the exact judge starts, 15 on 5x5).
pub fn solve_from_ply(rules: &Rules) -> u32 {
    let area = u32::from(rules.size) * u32::from(rules.size);
    2 * (area * 3 / 5)
}

/// The komi a book should be built at instead of its own: the member of the rule set's komi
/// domain nearest the book's margin, where that is another komi and the margin is not
/// proven. The searches that give the book its values play to win at the book's komi, so a
/// book reads the margin best at the komi it finds fair (the way KataGo's books are built
/// at the fair komi and checked to stay a draw there).
pub fn own_komi(report: &BookReport) -> Option<f64> {
    let own = report.komi_domain()?.nearest(report.fair.margin).as_f64();
    (!report.fair.proven && own != report.komi).then_some(own)
}

/// The komi next to a book's own on the side its margin leans (above where the margin is at
/// least the komi): where a second book cross-checks the first. `None` for a proven book.
pub fn neighbour_komi(report: &BookReport) -> Option<f64> {
    let domain = report.komi_domain()?;
    let own = hane_engine::Komi::from_f64(report.komi)?;
    let i = domain.index_floor(own);
    let next = if report.fair.margin >= report.komi { i + 1 } else { i - 1 };
    (!report.fair.proven).then(|| domain.nth(next).as_f64())
}

/// The books that answer for the fair komi, each made by `build` at a komi: the first at
/// `komi`; unless `fixed`, a second at the first one's own komi where its margin rounds to
/// another ([`own_komi`]), which is then the one reported; and with `cross_check`, the book at
/// the reported one's [`neighbour_komi`] (reused where it was the first), for the
/// [`verdict`]. `build` gets each komi with, for a further book, why it is built. Returns
/// what `build` returned for the reported book, and the neighbour's report.
pub fn fair_books<T, E>(
    komi: f64,
    fixed: bool,
    cross_check: bool,
    build: &mut dyn FnMut(f64, Option<String>) -> Result<(T, BookReport), E>,
) -> Result<((T, BookReport), Option<BookReport>), E> {
    let mut reported = build(komi, None)?;
    let mut first = None;
    if let Some(own) = own_komi(&reported.1).filter(|_| !fixed) {
        let why = format!(
            "its margin {:+.2} rounds to komi {own}, not {komi}: a second book at komi {own}",
            reported.1.fair.margin
        );
        first = Some(std::mem::replace(&mut reported, build(own, Some(why))?).1);
    }
    let mut neighbour = None;
    if let Some(next) = neighbour_komi(&reported.1).filter(|_| cross_check) {
        neighbour = match first.filter(|f| f.komi == next) {
            Some(f) => Some(f),
            None => {
                let why = format!(
                    "its margin {:+.2} leans towards komi {next}: a book there to cross-check it",
                    reported.1.fair.margin
                );
                Some(build(next, Some(why))?.1)
            }
        };
    }
    Ok((reported, neighbour))
}

/// Whether the book at the neighbouring komi agrees with `report`'s: its margin rounds back to
/// `report`'s komi, so that komi alone is its own book's answer. Where both round to their own
/// komi, each book holds its komi fair and the net cannot tell the two apart.
fn neighbour_line(report: &BookReport, neighbour: &BookReport) -> (bool, String) {
    let back = own_komi(neighbour).is_some_and(|k| k == report.komi);
    let n = &neighbour.fair;
    let reads =
        format!("the book at komi {} reads {:.2} [{:.2}, {:.2}]", neighbour.komi, n.margin, n.lower, n.upper);
    if back {
        (true, format!("{reads}, which rounds back to {}", report.komi))
    } else {
        (false, format!("{reads}, which does not round to {}: each book holds its own komi", report.komi))
    }
}

/// What the book and the komi curve say together, in one line: an answer only where the
/// book proved it, or where its bracket is narrow (at most 2 points), holds the curve's
/// estimate, its margin held still over the last quarter of the expansions (within half a
/// step of the rule set's komi, so that its rounding could not change) and, where a book at
/// the neighbouring komi was built, that book's margin rounds back to this one's komi;
/// otherwise marked unsettled, with the figures.
pub fn verdict(report: &BookReport, curve: Option<&KomiEstimate>, neighbour: Option<&BookReport>) -> String {
    let f = &report.fair;
    if f.proven {
        return format!("fair komi {}: proven by the book (every line settled exactly)", f.margin);
    }
    let bracket = format!("[{:.2}, {:.2}]", f.lower, f.upper);
    let says = format!("the book at komi {} says {:.2} {bracket}", report.komi, f.margin);
    let curve_says =
        curve.map_or("no curve estimate beside it".into(), |c| format!("the curve {:.2}", c.crossing));
    let margins = report.last_quarter.iter().map(|(_, f)| f.margin);
    let (low, high) = margins.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), m| (l.min(m), h.max(m)));
    // The domain's step is in half-points.
    let half_step = report.komi_domain().map_or(0.5, |d| d.progression().1 as f64 / 4.0);
    let mut doubts = Vec::new();
    if report.last_quarter.len() < 2 {
        doubts.push("no record of its last quarter".to_string());
    } else if high - low > half_step {
        doubts.push(format!(
            "its margin moved between {low:.2} and {high:.2} over the last quarter of the expansions"
        ));
    }
    let held = curve.is_some_and(|c| f.upper - f.lower <= 2.0 && (f.lower..=f.upper).contains(&c.crossing));
    if !held && curve.is_some() {
        doubts.push("its bracket is wider than 2 points or misses the curve".into());
    }
    let mut agreed = None;
    if let Some(n) = neighbour {
        let (agrees, line) = neighbour_line(report, n);
        if agrees {
            agreed = Some(line);
        } else {
            doubts.push(line);
        }
    }
    match curve {
        Some(c) if held && doubts.is_empty() => format!(
            "fair komi by this net about {:.2}: the book's bracket {bracket} holds the curve's {:.2} and its \
             margin held still{}; both read the same net, so the net's own errors are in neither (the \
             bracket spans the searches' spread along the book's lines; not a proof)",
            f.margin,
            c.crossing,
            agreed.map_or(String::new(), |line| format!("; {line}"))
        ),
        _ => {
            let parts: Vec<String> =
                [format!("{says}, {curve_says}")].into_iter().chain(doubts).chain(agreed).collect();
            format!("fair komi unsettled: {}; not an answer yet", parts.join("; "))
        }
    }
}

/// The book's positions as self-play start positions (KataGo's `booktoposes`): every searched
/// node with a best book move, before the solver's ply, in its own line's frame, with that
/// move as the hint. A node where the net's raw policy prefers another move weighs
/// `1 + disagree`, the others 1, so self-play goes most where the book corrected the net.
pub fn start_positions(book: &Book, disagree: f32) -> StartPositions {
    let geo = book.nodes[0].state.geo();
    let idx = |a: hane_engine::Action| a.index(geo) as u16;
    let positions = (0..book.nodes.len())
        .filter_map(|i| {
            let n = &book.nodes[i];
            let best = book.best_move(i as u32)?;
            if n.exact.is_some() || !n.searched {
                return None;
            }
            let weight = if n.raw_best == Some(best) { 1.0 } else { 1.0 + disagree };
            Some(StartPosition {
                actions: n.moves.iter().map(|&a| idx(a)).collect(),
                hint: Some(idx(best)),
                weight,
            })
        })
        .collect();
    StartPositions { rules: book.header.rules.clone(), positions }
}

/// A player that plays the book's move wherever the game is in the book (its game and
/// board, any komi), and `inner`'s choice elsewhere (`hane match --a-book`).
pub struct BookPlayer {
    book: Book,
    inner: Box<dyn Player>,
    /// The game's actions so far, as this player saw them.
    line: Vec<Action>,
    /// Turns played from the book, over every game.
    pub from_book: u64,
}

impl std::fmt::Debug for BookPlayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BookPlayer")
            .field("inner", &self.inner.name())
            .field("line", &self.line.len())
            .finish()
    }
}

impl BookPlayer {
    /// `inner` with the book at `path`, which must be of the game `rules` are (any komi).
    pub fn new(path: &std::path::Path, rules: &Rules, inner: Box<dyn Player>) -> Result<BookPlayer, Error> {
        let book = Book::read(path).map_err(book_error)?;
        let theirs = book.rules();
        if !theirs.same_game(rules) || theirs.size != rules.size {
            return Err(Error::Input(format!("{}: a book of {theirs}, not of {rules}", path.display())));
        }
        Ok(BookPlayer { book, inner, line: Vec::new(), from_book: 0 })
    }

    /// The book's turn in `g`, if the game so far is the line this player saw and the book
    /// has the position.
    fn book_turn(&self, g: &GameState) -> Option<Turn> {
        let mut replayed = GameState::new(*self.book.rules());
        for &a in &self.line {
            replayed.play(a).ok()?;
        }
        if replayed.board().hash() != g.board().hash() || replayed.turns() != g.turns() {
            return None;
        }
        let (mut line, mut st, mut actions) = (self.line.clone(), g.clone(), Vec::new());
        while st.turns() == g.turns() && !st.is_over() {
            let a = self.book.book_move(&line)?;
            st.play(a).ok()?;
            line.push(a);
            actions.push(a);
        }
        Turn::of_actions(g, &actions)
    }
}

impl Player for BookPlayer {
    fn name(&self) -> String {
        format!("{} with a book", self.inner.name())
    }

    fn new_game(&mut self, rules: &Rules) -> Result<(), GtpError> {
        self.line.clear();
        self.inner.new_game(rules)
    }

    fn choose(&mut self, g: &GameState) -> Result<Turn, GtpError> {
        let turn = match self.book_turn(g) {
            Some(t) => {
                self.from_book += 1;
                t
            }
            None => self.inner.choose(g)?,
        };
        if let Ok(actions) = turn.actions(g) {
            self.line.extend(actions);
        }
        Ok(turn)
    }

    fn observe(&mut self, before: &GameState, turn: Turn) -> Result<(), GtpError> {
        if let Ok(actions) = turn.actions(before) {
            self.line.extend(actions);
        }
        self.inner.observe(before, turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(rules: &str, komi: f64, margin: f64, proven: bool) -> BookReport {
        BookReport {
            rules: rules.into(),
            komi,
            net: "test".into(),
            fair: FairKomi { margin, lower: margin - 1.0, upper: margin + 1.0, win: 0.5, proven },
            nodes: 1,
            expansions: 1,
            evaluations: 1,
            seconds: 0.0,
            main_line: Vec::new(),
            policy_agreement: 0.0,
            agreement_nodes: 0,
            last_quarter: Vec::new(),
            margin_from: None,
            lower_from: None,
            upper_from: None,
        }
    }

    #[test]
    fn the_verdict_is_an_answer_only_for_a_narrow_bracket_that_holds_the_curve_and_stood_still() {
        let curve = |crossing: f64| KomiEstimate {
            crossing,
            fair: crossing.round(),
            black_side: crossing.floor(),
            white_side: crossing.ceil(),
            evaluations: Vec::new(),
        };
        let fair = |margin: f64| FairKomi {
            margin,
            lower: margin - 0.6,
            upper: margin + 0.6,
            win: 0.5,
            proven: false,
        };
        let steady = |r: BookReport, margins: &[f64]| BookReport {
            last_quarter: margins
                .iter()
                .enumerate()
                .map(|(i, &m)| (i as u64 * 100 + 1500, fair(m)))
                .collect(),
            ..r
        };
        let book = steady(report("ttakji,size=7,komi=8", 8.0, 8.33, false), &[8.2, 8.4, 8.33]);
        let v = verdict(&book, Some(&curve(7.99)), None);
        assert!(v.starts_with("fair komi by this net about 8.33"), "{v}");
        // Still moving: 8.16 to 8.90 over the last quarter (more than half of komi's step of 1).
        let moving = steady(book.clone(), &[8.16, 8.84, 8.90, 8.33]);
        let v = verdict(&moving, Some(&curve(7.99)), None);
        assert!(v.starts_with("fair komi unsettled") && v.contains("moved between 8.16 and 8.90"), "{v}");
        // No record of the last quarter, a curve outside the bracket, a wide bracket.
        let v = verdict(&steady(book.clone(), &[]), Some(&curve(7.99)), None);
        assert!(v.contains("no record of its last quarter"), "{v}");
        assert!(verdict(&book, Some(&curve(7.0)), None).starts_with("fair komi unsettled"));
        let wide = BookReport { fair: FairKomi { lower: 6.0, upper: 9.5, ..book.fair }, ..book.clone() };
        assert!(verdict(&wide, Some(&curve(7.99)), None).starts_with("fair komi unsettled"));
        // A proven margin is the answer.
        let proven = report("ttakji,size=3,komi=9", 9.0, 9.0, true);
        assert!(verdict(&proven, None, None).starts_with("fair komi 9: proven"));
        // No curve beside a steady book: unsettled, saying so once.
        let v = verdict(&book, None, None);
        assert!(v.ends_with("no curve estimate beside it; not an answer yet"), "{v}");
        // The book at the neighbouring komi: an answer where its margin rounds back, unsettled
        // where it holds its own komi too.
        let back = report("ttakji,size=7,komi=9", 9.0, 8.45, false);
        let v = verdict(&book, Some(&curve(7.99)), Some(&back));
        assert!(v.starts_with("fair komi by this net about 8.33") && v.contains("rounds back to 8"), "{v}");
        let own = report("ttakji,size=7,komi=9", 9.0, 8.70, false);
        let v = verdict(&book, Some(&curve(7.99)), Some(&own));
        assert!(v.starts_with("fair komi unsettled") && v.contains("each book holds its own komi"), "{v}");
    }

    #[test]
    fn the_fair_books_follow_the_margin_and_cross_check_its_lean() {
        // Stand-in books whose margins are given per komi; `built` records the komis built.
        let run = |first: f64, fixed: bool, cross: bool, margins: &[(f64, f64)]| {
            let mut built = Vec::new();
            let mut build = |k: f64, _: Option<String>| -> Result<((), BookReport), ()> {
                built.push(k);
                let m = margins.iter().find(|(at, _)| *at == k).map_or(k, |(_, m)| *m);
                Ok(((), report(&format!("ttakji,size=7,komi={k}"), k, m, false)))
            };
            let ((_, reported), neighbour) = fair_books(first, fixed, cross, &mut build).unwrap();
            (reported.komi, neighbour.map(|n| n.komi), built)
        };
        // Seed 1's books: 7.63 at komi 7 rounds to 8; 7.64 at 8 leans to 7, the first book.
        let m = [(7.0, 7.63), (8.0, 7.64)];
        assert_eq!(run(7.0, false, true, &m), (8.0, Some(7.0), vec![7.0, 8.0]));
        // Seed 2's: 8.33 at komi 8 stays, and leans to 9, which is built.
        let m = [(8.0, 8.33), (9.0, 8.70)];
        assert_eq!(run(8.0, false, true, &m), (8.0, Some(9.0), vec![8.0, 9.0]));
        // Without the cross-check, one book; at a fixed komi, no second.
        assert_eq!(run(8.0, false, false, &m), (8.0, None, vec![8.0]));
        assert_eq!(run(7.0, true, false, &[(7.0, 7.63)]), (7.0, None, vec![7.0]));
        // A margin below the komi leans down, on each rule set's own steps.
        assert_eq!(neighbour_komi(&report("ttakji,size=7,komi=9", 9.0, 8.7, false)), Some(8.0));
        assert_eq!(neighbour_komi(&report("brainking,size=7,komi=7.5", 7.5, 7.6, false)), Some(8.5));
        assert_eq!(neighbour_komi(&report("loose,size=7,komi=10", 10.0, 9.9, false)), Some(8.0));
        assert_eq!(neighbour_komi(&report("ttakji,size=3,komi=9", 9.0, 9.0, true)), None);
    }

    #[test]
    fn a_book_asks_for_its_own_komi_where_its_margin_rounds_to_another() {
        // Area scoring plays integers: 8.57 rounds to 9, 8.40 to the book's own 8.
        assert_eq!(own_komi(&report("ttakji,size=7,komi=8", 8.0, 8.57, false)), Some(9.0));
        assert_eq!(own_komi(&report("ttakji,size=7,komi=8", 8.0, 8.40, false)), None);
        // Territory scoring plays halves; Loose even integers.
        assert_eq!(own_komi(&report("brainking,size=7,komi=7.5", 7.5, 6.16, false)), Some(6.5));
        assert_eq!(own_komi(&report("loose,size=7,komi=10", 10.0, 9.75, false)), None);
        assert_eq!(own_komi(&report("loose,size=7,komi=10", 10.0, 8.9, false)), Some(8.0));
        // A proven margin is the answer whatever the komi.
        assert_eq!(own_komi(&report("ttakji,size=3,komi=0", 0.0, 9.0, true)), None);
    }
}
