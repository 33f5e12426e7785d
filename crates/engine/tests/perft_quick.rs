use hane_engine::perft::perft;
use hane_engine::{GameState, Rules};

#[test]
fn quick() {
    for (spec, want) in [
        (
            "tromp-taylor,size=2",
            vec![1u64, 5, 21, 68, 156, 316, 604, 1088],
        ),
        (
            "tromp-taylor,size=3",
            vec![1, 10, 91, 738, 5281, 33384, 180768],
        ),
        ("ttakji,size=3", vec![1, 10, 91, 738, 5281, 33384, 179712]),
    ] {
        let g = GameState::new(spec.parse::<Rules>().unwrap());
        for (d, w) in want.iter().enumerate() {
            assert_eq!(perft(&g, d as u32), *w, "{spec} depth {d}");
        }
    }
}
