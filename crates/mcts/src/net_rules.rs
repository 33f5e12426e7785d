//! A net trained under one Go rule set answering positions of another.
//!
//! hane's nets are trained per rule set, but a GUI offers every Go rule set (Japanese,
//! Chinese, Tromp-Taylor, ...). Legality, ko, scoring and komi are the engine's, so a search
//! under the rules the user asked for is exact in everything but its evaluations; those come
//! from a net of the same board size trained under other Go rules. The net is shown each
//! position as if it were played under its own rules with the asked-for komi
//! ([`AsTrained`]): it has never seen the rule flags of another rule set among its inputs.
//! Loose and Sligo nets answer their own game only, and a net answers only the board sizes it
//! was trained on ([`check`]). Loading a checkpoint so is the pipeline's
//! (`hane_pipeline::net_rules::load`), for every command that searches with a net under rules
//! the user names: `hane gtp`, `hane analysis`, `hane play`, `hane match` and `hane komi`.

use crate::{EvalRequest, Evaluation, Evaluator};
use hane_engine::range::Invalid;
use hane_engine::rules::Variant;
use hane_engine::{GameState, Rules};

/// Whether a net trained under `net` on the board `sizes` can evaluate games under `asked`:
/// `Ok(None)` for its own game (komi and turn cap aside) on one of its sizes, `Ok(Some(note))`
/// for other Go rules there (the note says which rules the net was trained on), else an error
/// saying why not.
pub fn check(net: &Rules, sizes: &[u8], asked: &Rules) -> Result<Option<String>, Invalid> {
    let at_size = Rules { size: asked.size, ..*net };
    let fits = sizes.contains(&asked.size);
    if fits && at_size.same_game(asked) {
        return Ok(None);
    }
    if net.variant != asked.variant || net.variant != Variant::Go || !fits {
        let boards: Vec<String> = sizes.iter().map(|s| format!("{s}x{s}")).collect();
        let boards = boards.join(", ");
        let may = if net.variant == Variant::Go {
            format!("any Go rules on {boards}, komi and turn cap included")
        } else {
            format!("on {boards}; komi and the turn cap may change")
        };
        return Err(Invalid(format!("the loaded net plays only {net} ({may}), not {asked}")));
    }
    Ok(Some(format!(
        "the net was trained on {at_size}: the search plays under the rules asked for (legality, ko, \
         scoring and komi exact) with the evaluations of a net trained on other rules"
    )))
}

/// An evaluator of a net trained under `trained` (a Go rule set) that shows it positions of
/// other Go rules as positions of its own rules on their board, with their komi.
#[derive(Debug)]
pub struct AsTrained<E> {
    /// The net's evaluator.
    pub inner: E,
    /// The rules the net was trained under.
    pub trained: Rules,
    /// The board sizes it plays.
    pub sizes: Vec<u8>,
}

impl<E> AsTrained<E> {
    /// `state` as the net is shown it: under its own rules with `state`'s komi, when they
    /// are another game of the same shape; else as it is.
    fn shown<'a>(&self, state: &'a GameState) -> std::borrow::Cow<'a, GameState> {
        let own = Rules { size: state.rules().size, ..self.trained };
        if own.same_game(state.rules()) {
            return std::borrow::Cow::Borrowed(state);
        }
        let rules = Rules { komi: state.rules().komi, ..own };
        match state.with_rules(rules) {
            Ok(g) => std::borrow::Cow::Owned(g),
            Err(_) => std::borrow::Cow::Borrowed(state),
        }
    }
}

impl<E: Evaluator<GameState>> Evaluator<GameState> for AsTrained<E> {
    fn evaluate(&mut self, batch: &[EvalRequest<GameState>]) -> Vec<Evaluation> {
        let own = |r: &Rules| Rules { size: r.size, ..self.trained };
        if batch.iter().all(|r| own(r.state.rules()).same_game(r.state.rules())) {
            return self.inner.evaluate(batch);
        }
        let shown: Vec<EvalRequest<GameState>> = batch
            .iter()
            .map(|r| EvalRequest { state: self.shown(&r.state).into_owned(), legal: r.legal.clone() })
            .collect();
        self.inner.evaluate(&shown)
    }

    fn ownership(&mut self, state: &GameState) -> Option<Vec<f32>> {
        let shown = self.shown(state).into_owned();
        self.inner.ownership(&shown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hane_engine::Game;

    /// Records the rules of the positions it is shown.
    struct Spy(Vec<Rules>);

    impl Evaluator<GameState> for Spy {
        fn evaluate(&mut self, batch: &[EvalRequest<GameState>]) -> Vec<Evaluation> {
            self.0.extend(batch.iter().map(|r| *r.state.rules()));
            crate::UniformEvaluator.evaluate(batch)
        }
    }

    #[test]
    fn a_go_net_answers_every_go_rule_set_of_its_size() {
        let net: Rules = "ttakji,size=5".parse().unwrap();
        assert_eq!(check(&net, &[5], &"ttakji,size=5,komi=3".parse().unwrap()).unwrap(), None);
        for other in ["japanese,size=5", "chinese,size=5", "tromp-taylor,size=5", "brainking,size=5"] {
            let note = check(&net, &[5], &other.parse().unwrap()).unwrap().expect("a note");
            assert!(note.contains("trained on ttakji,size=5"), "{other}: {note}");
        }
        for refused in ["ttakji,size=7", "loose,size=5", "sligo,size=5"] {
            assert!(check(&net, &[5], &refused.parse().unwrap()).is_err(), "{refused}");
        }
        let loose: Rules = "loose,size=5".parse().unwrap();
        assert!(check(&loose, &[5], &"chinese,size=5".parse().unwrap())
            .unwrap_err()
            .0
            .contains("plays only loose"));
    }

    #[test]
    fn a_net_of_several_sizes_answers_each_of_them() {
        let net: Rules = "ttakji,size=7".parse().unwrap();
        assert_eq!(check(&net, &[5, 7], &"ttakji,size=5".parse().unwrap()).unwrap(), None);
        let note = check(&net, &[5, 7], &"japanese,size=5".parse().unwrap()).unwrap().expect("a note");
        assert!(note.contains("trained on ttakji,size=5"), "{note}");
        let err = check(&net, &[5, 7], &"ttakji,size=6".parse().unwrap()).unwrap_err().0;
        assert!(err.contains("on 5x5, 7x7"), "{err}");
        // A 5x5 position reaches the net as its own rules on 5x5.
        let mut ev = AsTrained { inner: Spy(Vec::new()), trained: net, sizes: vec![5, 7] };
        let g = GameState::new("japanese,size=5".parse().unwrap());
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        ev.evaluate(&[EvalRequest { state: g, legal }]);
        assert!(ev.inner.0[0].same_game(&"ttakji,size=5".parse().unwrap()), "{}", ev.inner.0[0]);
    }

    #[test]
    fn the_net_sees_its_own_rules_with_the_asked_komi() {
        let net: Rules = "ttakji,size=5".parse().unwrap();
        let mut ev = AsTrained { inner: Spy(Vec::new()), trained: net, sizes: vec![net.size] };
        let mut g = GameState::new("japanese,size=5,komi=0.5".parse().unwrap());
        g.play(hane_engine::Action::Pass).unwrap();
        let mut legal = Vec::new();
        g.legal_actions(&mut legal);
        let e = ev.evaluate(&[EvalRequest { state: g.clone(), legal: legal.clone() }]);
        assert_eq!(e[0].policy.len(), legal.len(), "one prior per legal move of the real rules");
        let seen = ev.inner.0[0];
        assert!(seen.same_game(&net), "{seen}");
        assert_eq!(seen.komi.as_f64(), 0.5);
    }
}
