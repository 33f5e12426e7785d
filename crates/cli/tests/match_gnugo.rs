//! GNU Go plays full games against `hane gtp` through hane's match runner (`hane match`),
//! which referees every move and scores the games by hane's rules.

use std::process::Command;

#[test]
fn gnugo_plays_hane_gtp_through_the_match_runner() {
    let dir = std::env::temp_dir().join(format!("hane-match-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("match.json");
    let hane = env!("CARGO_BIN_EXE_hane");
    let engine = format!("gtp:{hane} gtp --rules ttakji,size=7,komi=9 --visits 16");
    let out = Command::new(hane)
        .args(["match", "--rules", "ttakji", "--size", "7", "--komi", "9", "--a", "gnugo:1", "--b", &engine])
        .args(["--games", "2", "--opening-turns", "0", "--json", json.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let games = report["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    assert!(report["a"].as_str().unwrap().starts_with("gnugo"));
    assert!(report["b"].as_str().unwrap().contains("hane gtp"));
    for (i, g) in games.iter().enumerate() {
        assert!(g["forfeit"].is_null(), "game {i}: {g}");
        let moves: Vec<&str> = g["moves"].as_array().unwrap().iter().map(|m| m.as_str().unwrap()).collect();
        assert!(moves.len() > 10, "game {i} is a real game: {moves:?}");
        // The game ran to its end under hane's rules: two passes in a row, or the turn cap.
        let two_passes = moves.ends_with(&["pass", "pass"]);
        assert!(two_passes || moves.len() as u32 >= 2 * 49, "game {i}: {moves:?}");
        // hane's score of the final position decides the game: replay it.
        let r = Command::new(hane)
            .args(["replay", "--rules", "ttakji", "--size", "7", "--komi", "9"])
            .args(&moves)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let pos: serde_json::Value = serde_json::from_slice(&r.stdout).unwrap();
        assert_eq!(pos["over"], true);
        assert_eq!(pos["score"]["winner"], g["winner"], "game {i}");
        let margin = pos["score"]["black"].as_f64().unwrap() - pos["score"]["white"].as_f64().unwrap();
        assert_eq!(margin, g["margin_black"].as_f64().unwrap(), "game {i}");
    }
    assert!(stdout.contains("wins") && stdout.contains("Elo"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
