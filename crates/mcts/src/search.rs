//! The search: PUCT selection, batched gathering with virtual loss, expansion and backup,
//! root noise, tree reuse, and the root's answers (visits, policy target, value, move).
//!
//! # One visit
//!
//! [`Search::gather`] replays the game from the root while descending: at each expanded node
//! it picks the edge with the best PUCT score for the player to move *at that node*,
//!
//! `Q(c) + c_puct * P(c) * sqrt(sum of child visits + 0.01) / (1 + N(c))`,
//!
//! where `Q` is the child's mean [`utility`] from that player's view. It stops at
//! * a terminal node: its exact value (from [`Game::score`], cached in the node) is backed
//!   up at once and `Gather::Terminal` is returned;
//! * a node never evaluated: its legal actions become edges, the path is marked in flight
//!   and `Gather::Leaf` hands out the position; [`Search::apply`] later sets the priors and
//!   backs the evaluation up;
//! * a node already handed out and not yet applied: `Gather::Busy` (a collision; nothing
//!   changes).
//!
//! # Counting
//!
//! A visit is one completed evaluation or terminal hit. The root's own first evaluation is
//! a visit of the root that no child sees, so for an evaluated, non-terminal root
//! `sum of child visits == root_visits() - 1` (with tree reuse it still holds, because the
//! new root's count already satisfied it as a child).
//!
//! # Values
//!
//! Statistics are kept in Black's view (see [`BlackValue`]) and turned into the deciding
//! player's view where PUCT compares them, so Sligo's two decisions of one player per turn
//! need no special case. First-play urgency: an unvisited child is valued at the parent's
//! utility (for the parent's mover) minus `fpu_reduction * sqrt(sum of visited children's
//! priors)`, KataGo's rule, which makes a node try its best-prior moves before wandering
//! once some of its policy mass has proved itself.
//!
//! # Batching
//!
//! Each in-flight evaluation under a child adds `virtual_loss` visits counted at the worst
//! utility for the player choosing it, so consecutive gathers spread over different leaves.
//! Results do not depend on how gathers are batched except through that order: applying
//! evaluations in gather order with a batch of 1 is exactly [`Search::run`] with batch 1.

use crate::config::{PolicyTarget, SearchConfig};
use crate::eval::{EvalRequest, Evaluation, Evaluator};
use crate::noise::dirichlet;
use crate::target::{self, ChildInfo};
use crate::tree::{Kind, Tree, NONE};
use crate::value::{utility, BlackValue, RootValue};
use hane_engine::rng::{mix64, Rng};
use hane_engine::{Color, Game};

/// Names a leaf handed out by [`Search::gather`], to give back to [`Search::apply`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LeafId(u32);

/// What one [`Search::gather`] found.
#[derive(Debug)]
pub enum Gather<G: Game> {
    /// A position to evaluate; pass the evaluation to [`Search::apply`] with this id.
    Leaf(LeafId, EvalRequest<G>),
    /// The descent ended in a finished game, whose exact value is already backed up.
    Terminal,
    /// The descent ended at a leaf that is already waiting for its evaluation; apply the
    /// outstanding evaluations before gathering more.
    Busy,
}

/// Statistics of one root action, for analysis and tests.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildStats<A> {
    /// The action.
    pub action: A,
    /// Its prior as the search uses it (root noise included).
    pub prior: f32,
    /// Completed visits.
    pub visits: u32,
    /// Mean win/draw/loss for the root player (zeros before the first visit).
    pub wdl: [f32; 3],
    /// Mean score margin for the root player.
    pub score: f32,
    /// Standard deviation of the score margin over the visits (0 before the first).
    pub score_stdev: f32,
    /// Mean utility for the root player.
    pub utility: f32,
}

/// A search tree over positions of `G`, rooted at the current position of a game.
pub struct Search<G: Game> {
    root: G,
    cfg: SearchConfig,
    rng: Rng,
    tree: Tree<G::Action>,
    /// The root's priors as selection uses them (noise, temperature); empty until the root
    /// is evaluated.
    root_priors: Vec<f32>,
    /// Score center of the utility, Black's view.
    center_black: f32,
    /// Leaves gathered and not yet applied.
    pending: u32,
    /// Salt of the tie-break between edges with exactly equal PUCT scores (see
    /// [`Search::tie_rank`]), derived from the seed.
    tie_salt: u64,
    /// Which legal actions the search may consider (see [`Search::set_move_filter`]).
    filter: Option<MoveFilter<G>>,
    /// A root action to search whatever the net thinks of it, and the share of the root's
    /// prior it gets (see [`Search::set_root_hint`]).
    hint: Option<(G::Action, f32)>,
}

/// Whether the search may consider an action: called with the node's depth (0 at the
/// root), its position and one of its legal actions.
pub type MoveFilter<G> = Box<dyn Fn(u32, &G, &<G as Game>::Action) -> bool + Send + Sync>;

/// The search's size and settings (the tree itself is left out).
impl<G: Game> std::fmt::Debug for Search<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.debug_struct("Search")
            .field("cfg", &self.cfg)
            .field("root_visits", &self.root_visits())
            .field("pending", &self.pending)
            .finish_non_exhaustive()
    }
}

impl<G: Game> Search<G> {
    /// A search from `root`; `seed` drives the root noise and move sampling.
    pub fn new(root: G, cfg: SearchConfig, seed: u64) -> Self {
        let tree = Tree::new(root.to_move(), node_kind(&root));
        Search {
            root,
            cfg,
            rng: Rng::new(seed),
            tree,
            root_priors: Vec::new(),
            center_black: 0.0,
            pending: 0,
            tie_salt: mix64(seed ^ 0x7E1E_B4EA_C0FF_EE00),
            filter: None,
            hint: None,
        }
    }

    /// Restricts the actions the search considers to those `filter` keeps, at every node
    /// expanded from now on (KataGo's `avoidMoves` and `allowMoves`). A node where it keeps
    /// none keeps all its legal actions. Set it before the first visit for the root's
    /// actions to follow it.
    pub fn set_move_filter(&mut self, filter: MoveFilter<G>) {
        self.filter = Some(filter);
    }

    /// Makes the search look at root action `action` whatever the net thinks of it (KataGo's
    /// hint positions, e.g. an opening book's move): its prior at the root becomes
    /// `(1 - share) * p + share`, the others `(1 - share) * p`, so the search tries it early
    /// and often; the visits then say whether it is good. Only the current root: moving on
    /// ([`Search::advance`]) clears it. Set it before the first visit.
    pub fn set_root_hint(&mut self, action: G::Action, share: f32) {
        self.hint = Some((action, share.clamp(0.0, 1.0)));
        self.refresh_root_priors();
    }

    /// The root position.
    pub fn root(&self) -> &G {
        &self.root
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.cfg
    }

    /// Switches self-play exploration at the root on or off (playout cap randomization
    /// turns it off for fast searches); fresh noise is drawn when switching on.
    pub fn set_noise(&mut self, on: bool) {
        if self.cfg.use_noise != on {
            self.cfg.use_noise = on;
            self.refresh_root_priors();
        }
    }

    /// Sets the root prior's temperature ([`SearchConfig::root_policy_temperature`]) from the
    /// next time the root's priors are computed: when the root is first expanded, after
    /// [`Search::advance`], or when exploration is switched on.
    pub fn set_root_policy_temperature(&mut self, t: f32) {
        self.cfg.root_policy_temperature = t;
    }

    /// Completed visits of the root.
    pub fn root_visits(&self) -> u32 {
        self.tree.nodes[0].visits
    }

    /// Nodes in the tree (the root included).
    pub fn tree_size(&self) -> usize {
        self.tree.nodes.len()
    }

    /// Leaves handed out by [`Search::gather`] and not yet applied.
    pub fn pending(&self) -> u32 {
        self.pending
    }

    /// Descends to the next leaf (see the module docs).
    pub fn gather(&mut self) -> Gather<G> {
        let mut state = self.root.clone();
        let mut n = 0u32;
        let mut depth = 0u32;
        loop {
            match self.tree.nodes[n as usize].kind {
                Kind::Terminal(v) => {
                    self.tree.backup(n, v, false);
                    return Gather::Terminal;
                }
                Kind::Pending => return Gather::Busy,
                Kind::Unexpanded => {
                    let mut legal = Vec::new();
                    state.legal_actions(&mut legal);
                    if self.cfg.prune_premature_pass {
                        state.drop_premature_pass(&mut legal);
                    }
                    if let Some(keep) = &self.filter {
                        if legal.iter().any(|a| keep(depth, &state, a)) {
                            legal.retain(|a| keep(depth, &state, a));
                        }
                    }
                    if legal.is_empty() {
                        // Not over, yet nothing to do: score it as it stands.
                        let v = BlackValue::from_score(&state.score());
                        self.tree.nodes[n as usize].kind = Kind::Terminal(v);
                        self.tree.backup(n, v, false);
                        return Gather::Terminal;
                    }
                    self.tree.add_edges(n, &legal);
                    self.tree.nodes[n as usize].kind = Kind::Pending;
                    self.tree.add_in_flight(n);
                    self.pending += 1;
                    return Gather::Leaf(LeafId(n), EvalRequest { state, legal });
                }
                Kind::Expanded => {
                    let e = self.select_edge(n);
                    let edge = self.tree.edges[e];
                    state.play_unchecked(edge.action);
                    depth += 1;
                    n = if edge.child != NONE {
                        edge.child
                    } else {
                        let c = self.tree.add_node(n, state.to_move(), node_kind(&state));
                        self.tree.edges[e].child = c;
                        c
                    };
                }
            }
        }
    }

    /// Expands the gathered leaf `id` with evaluation `e` and backs its value up, removing
    /// the leaf's virtual loss.
    ///
    /// # Panics
    /// If `id` is not a leaf waiting for an evaluation, or `e.policy` does not have one
    /// entry per legal action of the leaf.
    pub fn apply(&mut self, id: LeafId, e: &Evaluation) {
        let n = id.0;
        let node = self.tree.nodes.get(n as usize).unwrap_or_else(|| panic!("apply: unknown leaf {n}"));
        assert!(node.kind == Kind::Pending, "apply: leaf {n} is not waiting for an evaluation");
        let to_move = node.to_move;
        let range = self.tree.edge_range(n);
        assert_eq!(e.policy.len(), range.len(), "apply: the policy needs one entry per legal action");
        let clean = |p: f32| if p.is_finite() && p > 0.0 { p } else { 0.0 };
        let sum: f32 = e.policy.iter().map(|&p| clean(p)).sum();
        let uniform = 1.0 / range.len() as f32;
        for (edge, &p) in self.tree.edges[range].iter_mut().zip(&e.policy) {
            edge.prior = if sum > 0.0 { clean(p) / sum } else { uniform };
        }
        self.tree.nodes[n as usize].kind = Kind::Expanded;
        self.pending -= 1;

        let wdl = e.wdl.map(clean);
        let wsum: f32 = wdl.iter().sum();
        let wdl = if wsum > 0.0 { wdl.map(|x| x / wsum) } else { [0.0, 1.0, 0.0] };
        let score = if e.score.is_finite() { e.score } else { 0.0 };
        self.tree.backup(n, BlackValue::from_player(to_move, wdl, score), true);

        if n == 0 {
            self.refresh_root_priors();
            self.refresh_center();
        }
    }

    /// Runs the search until the root has `visits` completed visits (visits kept from an
    /// earlier move count, like KataGo's `maxVisits`), evaluating up to `batch` leaves per
    /// evaluator call. Does nothing when the game is over at the root.
    pub fn run(&mut self, ev: &mut impl Evaluator<G>, visits: u32, batch: usize) {
        if matches!(self.tree.nodes[0].kind, Kind::Terminal(_)) {
            return;
        }
        let batch = batch.max(1);
        let mut ids = Vec::with_capacity(batch);
        let mut requests = Vec::with_capacity(batch);
        while self.root_visits() < visits {
            while ids.len() < batch && self.root_visits() + (ids.len() as u32) < visits {
                match self.gather() {
                    Gather::Leaf(id, r) => {
                        ids.push(id);
                        requests.push(r);
                    }
                    Gather::Terminal => {}
                    Gather::Busy => break,
                }
            }
            if ids.is_empty() {
                if self.pending > 0 {
                    // Only leaves gathered outside this call block the way; their owner
                    // must apply them.
                    return;
                }
                continue;
            }
            let evals = ev.evaluate(&requests);
            assert_eq!(evals.len(), ids.len(), "the evaluator must answer every request");
            for (&id, e) in ids.iter().zip(&evals) {
                self.apply(id, e);
            }
            ids.clear();
            requests.clear();
        }
    }

    /// Visits of every root action, in legal-action order (empty before the root is
    /// evaluated).
    pub fn visit_counts(&self) -> Vec<(G::Action, u32)> {
        self.tree.edges_of(0).iter().map(|e| (e.action, self.child_visits(e.child))).collect()
    }

    /// The policy training target: the root's visit distribution, with forced playouts
    /// pruned (KataGo's policy target pruning, paper §3.2) when self-play exploration is on,
    /// or the completed-Q improved policy when exploration is on and
    /// [`SearchConfig::policy_target`] asks for it; sums to 1, in legal-action order. Empty
    /// when no child has been visited.
    pub fn policy_target(&self) -> Vec<(G::Action, f32)> {
        let w = self.policy_target_weights();
        if w.iter().all(|&x| x == 0.0) {
            return Vec::new();
        }
        self.tree.edges_of(0).iter().zip(target::normalized(&w)).map(|(e, p)| (e.action, p)).collect()
    }

    /// How far a policy target (in legal-action order, as [`Search::policy_target`] gives it)
    /// is from the net's raw prior at the root, before noise and the root temperature: the
    /// Kullback-Leibler divergence `sum t ln(t / p)`, in nats. 0 for an empty target.
    pub fn policy_surprise(&self, target: &[(G::Action, f32)]) -> f32 {
        self.tree
            .edges_of(0)
            .iter()
            .zip(target)
            .filter(|(_, &(_, t))| t > 0.0)
            .map(|(e, &(_, t))| t * (t / e.prior.max(1e-8)).ln())
            .sum::<f32>()
            .max(0.0)
    }

    /// The move to play: the most visited at temperature 0, else sampled in proportion to
    /// `weight^(1/temperature)` over the (pruned) policy target. Before any child visit it
    /// takes the highest prior.
    ///
    /// # Panics
    /// If the game is over at the root, or the root was never evaluated.
    pub fn select_action(&mut self, temperature: f32) -> G::Action {
        assert!(
            self.tree.nodes[0].kind == Kind::Expanded,
            "select_action needs an evaluated root that is not terminal"
        );
        let w = self.target_weights();
        let i = match target::choose(&w, temperature, &mut self.rng) {
            Some(i) => i,
            None => {
                let priors: Vec<f32> = (0..w.len()).map(|i| self.root_prior(i)).collect();
                target::choose(&priors, 0.0, &mut self.rng).unwrap_or(0)
            }
        };
        self.tree.edges_of(0)[i].action
    }

    /// Moves the root to the child reached by `a`, keeping that subtree (tree reuse) and
    /// drawing fresh root noise when exploration is on.
    ///
    /// # Panics
    /// If leaves are still waiting for evaluations, or `a` is illegal at the root.
    pub fn advance(&mut self, a: G::Action) {
        assert_eq!(self.pending, 0, "advance with evaluations outstanding");
        let child = self.tree.edges_of(0).iter().find(|e| e.action == a).map_or(NONE, |e| e.child);
        self.root.play(a).unwrap_or_else(|err| panic!("advance: {a:?} is illegal: {err}"));
        self.tree = if child == NONE {
            Tree::new(self.root.to_move(), node_kind(&self.root))
        } else {
            self.tree.subtree(child)
        };
        self.hint = None;
        self.root_priors.clear();
        self.refresh_root_priors();
        self.refresh_center();
    }

    /// The root's mean value for the player to move there.
    pub fn root_value(&self) -> RootValue {
        let node = &self.tree.nodes[0];
        match node.mean() {
            None => RootValue::default(),
            Some(v) => {
                let (wdl, score) = v.for_player(node.to_move);
                RootValue {
                    wdl,
                    score,
                    utility: self.utility_for(v, node.to_move),
                    score_stdev: node.score_stdev(),
                    visits: node.visits,
                }
            }
        }
    }

    /// The root's most visited child (on a tie in visits, the better for the root player:
    /// win rate with draws as half, then score), or `None` before any child has a visit.
    /// Its statistics say what the position is worth as the search would play it; the
    /// root's mean ([`Search::root_value`]) also averages in the exploration of poor moves.
    pub fn most_visited_child(&self) -> Option<ChildStats<G::Action>> {
        let win = |c: &ChildStats<G::Action>| c.wdl[0] + 0.5 * c.wdl[1];
        self.root_children().into_iter().filter(|c| c.visits > 0).max_by(|a, b| {
            a.visits.cmp(&b.visits).then(win(a).total_cmp(&win(b))).then(a.score.total_cmp(&b.score))
        })
    }

    /// Per-action statistics of the root, in legal-action order, from the root player's
    /// view.
    pub fn root_children(&self) -> Vec<ChildStats<G::Action>> {
        let me = self.tree.nodes[0].to_move;
        self.tree
            .edges_of(0)
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let mean = (e.child != NONE).then(|| self.tree.nodes[e.child as usize].mean()).flatten();
                let (wdl, score, u) = match mean {
                    Some(v) => {
                        let (wdl, score) = v.for_player(me);
                        (wdl, score, self.utility_for(v, me))
                    }
                    None => ([0.0; 3], 0.0, 0.0),
                };
                ChildStats {
                    action: e.action,
                    prior: self.root_prior(i),
                    visits: self.child_visits(e.child),
                    wdl,
                    score,
                    score_stdev: if e.child == NONE {
                        0.0
                    } else {
                        self.tree.nodes[e.child as usize].score_stdev()
                    },
                    utility: u,
                }
            })
            .collect()
    }

    /// The principal variation that starts with root action `first`, each action with its
    /// visits: `first`, then at each node the most visited action (the first listed on a tie)
    /// while it has visits, at most `max_len` actions. Just `first` when it has no visits;
    /// empty when it is not a root action.
    pub fn principal_variation(&self, first: G::Action, max_len: usize) -> Vec<(G::Action, u32)> {
        let Some(edge) = self.tree.edges_of(0).iter().find(|e| e.action == first) else {
            return Vec::new();
        };
        let mut pv = vec![(first, self.child_visits(edge.child))];
        let mut node = edge.child;
        while node != NONE && pv.len() < max_len {
            let best = self.tree.edges_of(node).iter().fold(None::<(u32, G::Action, u32)>, |best, e| {
                let v = self.child_visits(e.child);
                match best {
                    Some((bv, _, _)) if bv >= v => best,
                    _ if v > 0 => Some((v, e.action, e.child)),
                    _ => best,
                }
            });
            let Some((v, a, child)) = best else { break };
            pv.push((a, v));
            node = child;
        }
        pv
    }

    // ---------------------------------------------------------------------------------

    fn child_visits(&self, child: u32) -> u32 {
        if child == NONE {
            0
        } else {
            self.tree.nodes[child as usize].visits
        }
    }

    /// The prior of root edge `i` as selection uses it.
    fn root_prior(&self, i: usize) -> f32 {
        self.root_priors.get(i).copied().unwrap_or_else(|| self.tree.edges_of(0)[i].prior)
    }

    /// The utility of a Black-view value for `player`, with the current score center.
    fn utility_for(&self, v: BlackValue, player: Color) -> f32 {
        let (wdl, score) = v.for_player(player);
        let center = match player {
            Color::Black => self.center_black,
            Color::White => -self.center_black,
        };
        utility(wdl[0], wdl[2], score, center, self.cfg.score_utility_weight, self.cfg.score_utility_scale)
    }

    /// Whether the root uses self-play exploration now.
    fn exploring(&self) -> bool {
        self.cfg.use_noise
    }

    /// The edge (index into `tree.edges`) PUCT picks at expanded node `n`.
    fn select_edge(&self, n: u32) -> usize {
        let node = &self.tree.nodes[n as usize];
        let me = node.to_move;
        let is_root = n == 0;
        let range = self.tree.edge_range(n);
        let edges = &self.tree.edges[range.clone()];
        let prior = |i: usize| {
            if is_root {
                self.root_prior(i)
            } else {
                edges[i].prior
            }
        };
        let vl = f64::from(self.cfg.virtual_loss);

        let mut total = 0.0f64;
        let mut total_visits = 0.0f64;
        let mut visited_mass = 0.0f64;
        for (i, e) in edges.iter().enumerate() {
            if e.child != NONE {
                let c = &self.tree.nodes[e.child as usize];
                total += f64::from(c.visits) + vl * f64::from(c.in_flight);
                total_visits += f64::from(c.visits);
                if c.visits + c.in_flight > 0 {
                    visited_mass += f64::from(prior(i));
                }
            }
        }
        let parent_u = node.mean().map_or(0.0, |v| self.utility_for(v, me));
        let reduction =
            if is_root && self.exploring() { self.cfg.root_fpu_reduction } else { self.cfg.fpu_reduction };
        let fpu = f64::from(parent_u) - f64::from(reduction) * visited_mass.sqrt();
        let explore = f64::from(self.cfg.c_puct) * (total + 0.01).sqrt();
        let worst = -(1.0 + f64::from(self.cfg.score_utility_weight));
        let force = is_root && self.exploring() && self.cfg.forced_playouts_k > 0.0;

        let mut best = (false, f64::NEG_INFINITY);
        let mut best_i = 0;
        for (i, e) in edges.iter().enumerate() {
            let p = f64::from(prior(i));
            let (q, n_eff, forced) = match (e.child != NONE).then(|| &self.tree.nodes[e.child as usize]) {
                Some(c) if c.visits + c.in_flight > 0 => {
                    let visits = f64::from(c.visits);
                    let virtual_visits = vl * f64::from(c.in_flight);
                    let n_eff = visits + virtual_visits;
                    let u = c.mean().map_or(0.0, |v| f64::from(self.utility_for(v, me)));
                    let q = if n_eff > 0.0 { (visits * u + virtual_visits * worst) / n_eff } else { u };
                    let forced = force
                        && c.visits > 0
                        && f64::from(c.visits + c.in_flight)
                            < (f64::from(self.cfg.forced_playouts_k) * p * total_visits).sqrt();
                    (q, n_eff, forced)
                }
                _ => (fpu, 0.0, false),
            };
            let key = (forced, q + explore * p / (1.0 + n_eff));
            // Forced children first, then the higher score; an exact tie goes to the
            // higher tie rank, not to the earlier edge.
            let better = match (key.0, best.0) {
                (true, false) => true,
                (false, true) => false,
                _ if key.1 == best.1 => self.tie_rank(range.start + i) > self.tie_rank(range.start + best_i),
                _ => key.1 > best.1,
            };
            if better {
                best = key;
                best_i = i;
            }
        }
        range.start + best_i
    }

    /// The rank of edge `e` (an index into `tree.edges`) among edges with exactly equal
    /// PUCT scores: a hash of the edge and the search's salt. With equal priors (a uniform
    /// evaluator, an untrained net) and few visits exact ties are the rule, and keeping the
    /// earlier edge made self-play open in the first row of the board in 96 games of 120;
    /// the hash picks uniformly among the tied edges and stays the same for a given seed.
    fn tie_rank(&self, e: usize) -> u64 {
        mix64(self.tie_salt ^ e as u64)
    }

    /// What the root knows of each of its edges, in legal-action order.
    fn root_children_info(&self) -> Vec<ChildInfo> {
        let me = self.tree.nodes[0].to_move;
        self.tree
            .edges_of(0)
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let node = (e.child != NONE).then(|| &self.tree.nodes[e.child as usize]);
                ChildInfo {
                    prior: self.root_prior(i),
                    raw_prior: e.prior,
                    visits: node.map_or(0, |c| c.visits),
                    utility: node.and_then(|c| c.mean()).map_or(0.0, |v| self.utility_for(v, me)),
                }
            })
            .collect()
    }

    /// Weights over root edges for the move choice (and the target, unless it is the
    /// completed-Q one).
    fn target_weights(&self) -> Vec<f32> {
        let kids = self.root_children_info();
        if self.exploring() && self.cfg.forced_playouts_k > 0.0 {
            target::pruned_weights(&kids, self.cfg.c_puct, self.cfg.forced_playouts_k)
        } else {
            kids.iter().map(|c| c.visits as f32).collect()
        }
    }

    /// Weights over root edges for the policy training target.
    fn policy_target_weights(&self) -> Vec<f32> {
        if !(self.exploring() && self.cfg.policy_target == PolicyTarget::CompletedQ) {
            return self.target_weights();
        }
        let me = self.tree.nodes[0].to_move;
        let root = self.tree.nodes[0].mean().map_or(0.0, |v| self.utility_for(v, me));
        target::completed_q_weights(&self.root_children_info(), root, 1.0 + self.cfg.score_utility_weight)
    }

    /// Recomputes the root priors from the raw ones: unchanged without exploration, else
    /// softened by the root policy temperature and mixed with fresh Dirichlet noise of
    /// total concentration `dirichlet_alpha` spread over the legal actions.
    fn refresh_root_priors(&mut self) {
        self.root_priors.clear();
        if self.tree.nodes[0].kind != Kind::Expanded || !(self.exploring() || self.hint.is_some()) {
            return;
        }
        let raw: Vec<f32> = self.tree.edges_of(0).iter().map(|e| e.prior).collect();
        let n = raw.len();
        let t = if self.exploring() { self.cfg.root_policy_temperature } else { 1.0 };
        let mut p: Vec<f32> =
            if t > 0.0 && t != 1.0 { raw.iter().map(|&x| x.powf(1.0 / t)).collect() } else { raw };
        let sum: f32 = p.iter().sum();
        if sum > 0.0 {
            p.iter_mut().for_each(|x| *x /= sum);
        }
        let w = if self.exploring() { self.cfg.noise_weight } else { 0.0 };
        if w > 0.0 && n > 1 {
            let alpha = f64::from(self.cfg.dirichlet_alpha) / n as f64;
            let eta = dirichlet(&mut self.rng, alpha, n);
            for (x, e) in p.iter_mut().zip(eta) {
                *x = (1.0 - w) * *x + w * e;
            }
        }
        if let Some((a, share)) = self.hint {
            if let Some(i) = self.tree.edges_of(0).iter().position(|e| e.action == a) {
                p.iter_mut().for_each(|x| *x *= 1.0 - share);
                p[i] += share;
            }
        }
        self.root_priors = p;
    }

    /// Sets the score center from the root's mean score (Black's view), pulled towards 0.
    fn refresh_center(&mut self) {
        self.center_black =
            self.tree.nodes[0].mean().map_or(0.0, |v| (1.0 - self.cfg.score_center_zero_weight) * v.score);
    }
}

/// A new node's kind: terminal with its exact value if the game is over there.
fn node_kind<G: Game>(g: &G) -> Kind {
    if g.is_over() {
        Kind::Terminal(BlackValue::from_score(&g.score()))
    } else {
        Kind::Unexpanded
    }
}
