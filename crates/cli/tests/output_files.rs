//! `--json FILE` follows the policy of hane's one writer: a symbolic link stays a link and its
//! target gets the report, a character device is written through (a full one is exit code 1)
//! and stays a device. The solver's save (`--save FILE`) goes through the same writer.

mod run;

use run::hane;
use std::os::unix::fs::{symlink, FileTypeExt};
use std::path::{Path, PathBuf};

/// A fresh folder `hane-NAME-PID` under the temporary directory.
fn fresh(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hane-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `hane solve` of the 2x2 board with a small table (fast), its report to `json`.
fn solve_2x2(json: &Path) -> (i32, String, String) {
    hane(&[
        "solve",
        "--rules",
        "ttakji",
        "--size",
        "2",
        "--table-bits",
        "10",
        "--json",
        json.to_str().unwrap(),
    ])
}

fn is_link(p: &Path) -> bool {
    std::fs::symlink_metadata(p).unwrap().is_symlink()
}

#[test]
fn a_link_stays_a_link_and_its_target_gets_the_report() {
    let dir = fresh("json-link");
    let (target, link) = (dir.join("report.json"), dir.join("latest.json"));
    std::fs::write(&target, "old").unwrap();
    symlink("report.json", &link).unwrap();
    let (code, _, err) = solve_2x2(&link);
    assert_eq!(code, 0, "{err}");
    assert!(is_link(&link));
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&target).unwrap()).unwrap();
    assert_eq!(v["rules"], "ttakji,size=2,komi=0");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_device_is_written_through_and_stays_a_device() {
    let dir = fresh("json-device");
    // Our own link to standard output (a pipe here), so a failure spares the system's.
    let stdout = dir.join("stdout");
    symlink("/proc/self/fd/1", &stdout).unwrap();
    let (code, out, err) = solve_2x2(&stdout);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"rules\": \"ttakji,size=2,komi=0\""), "the report on stdout: {out}");
    assert!(is_link(&stdout));
    // A node of the device /dev/full of our own (mknod needs root).
    let full = dir.join("full");
    let made = std::process::Command::new("mknod").arg(&full).args(["c", "1", "7"]).status();
    if made.is_ok_and(|s| s.success()) {
        let args = ["match", "--rules", "ttakji", "--size", "5", "--a", "uniform", "--b", "uniform"];
        let (code, _, err) =
            hane(&[&args[..], &["--games", "2", "--visits", "2", "--json", full.to_str().unwrap()]].concat());
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("No space left on device"), "{err}");
        assert!(std::fs::symlink_metadata(&full).unwrap().file_type().is_char_device());
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 2, "no temporary file");
    } else {
        eprintln!("skipped the full device: mknod needs root");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_solvers_save_through_a_link_keeps_the_link() {
    let dir = fresh("save-link");
    let (target, link) = (dir.join("solve.save"), dir.join("latest.save"));
    symlink("solve.save", &link).unwrap();
    let args = ["solve", "--rules", "ttakji,cap=none", "--size", "3", "--table-bits", "12", "--save"];
    let save = link.to_str().unwrap();
    // Stopped at its node limit, the solve saves what it proved: through the link.
    let (code, _, err) = hane(&[&args[..], &[save, "--node-limit", "600"]].concat());
    assert_ne!(code, 0, "600 nodes do not solve 3x3: {err}");
    assert!(is_link(&link), "the link was replaced: {err}");
    assert!(std::fs::metadata(&target).unwrap().len() > 0, "the target holds the save");
    // The next run continues from it, through the link, to the end.
    let (code, _, err) = hane(&[&args[..], &[save]].concat());
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("continuing the saved solve"), "{err}");
    assert!(is_link(&link));
    std::fs::remove_dir_all(&dir).unwrap();
}
