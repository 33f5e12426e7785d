"""How `hane gtp`'s final_score compares with GNU Go's on finished games.

Plays `hane match` games between hane and GNU Go to the end, then replays each game's moves
into `hane gtp` (with or without a net) and into GNU Go (Chinese rules) and asks both for
`final_score`. Prints one line per game and how many agree within 2 points.

Usage (after `bash scripts/setup.sh` and a release build):
  python3 scripts/score_vs_gnugo.py --size 9 --games 10
  python3 scripts/score_vs_gnugo.py --size 7 --komi 9 --model runs/ttakji-7x7/models/gen-012.safetensors
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HANE = os.path.join(os.path.dirname(__file__), "..", "target", "release", "hane")


def gtp_session(command, lines):
    """Sends `lines` to a GTP engine and returns its responses, one per line sent."""
    text = "".join(line + "\n" for line in lines)
    out = subprocess.run(command, input=text, capture_output=True, text=True, check=True).stdout
    responses = [r.strip() for r in out.split("\n\n") if r.strip()]
    if len(responses) != len(lines):
        sys.exit(f"{command[0]}: {len(responses)} responses to {len(lines)} commands")
    return responses


def margin(score):
    """Black's margin from a GTP score (B+3.5, W+2, 0)."""
    score = score.lstrip("= ").strip()
    if score in ("0", "Draw"):
        return 0.0
    sign = 1.0 if score.startswith("B+") else -1.0
    return sign * float(score[2:])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--komi", type=float, default=7.5)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--visits", type=int, default=64)
    ap.add_argument("--model", help="a checkpoint for ttakji on this size: hane plays and judges with it")
    a = ap.parse_args()
    rules = "ttakji" if a.model else "chinese"
    hane_player = f"model:{a.model}" if a.model else "rollout"
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "match.json")
        subprocess.run([HANE, "match", "--rules", rules, "--size", str(a.size), "--komi", str(a.komi),
                        "--a", hane_player, "--b", "gnugo:10", "--games", str(a.games), "--visits",
                        str(a.visits), "--json", report], check=True, stdout=subprocess.DEVNULL)
        games = json.load(open(report))["games"]
    hane_cmd = [HANE, "gtp", "--rules", f"{rules},size={a.size}"]
    if a.model:
        hane_cmd += ["--model", a.model]
    # Debian installs GNU Go in /usr/games, which is not on every PATH.
    gnugo = shutil.which("gnugo") or "/usr/games/gnugo"
    gnugo_cmd = [gnugo, "--mode", "gtp", "--chinese-rules", "--level", "10"]
    agree = playouts_agree = 0
    for i, g in enumerate(games):
        colour = "b"
        setup = [f"boardsize {a.size}", "clear_board", f"komi {a.komi}"]
        plays = []
        for mv in g["moves"]:
            plays.append(f"play {colour} {mv}")
            colour = "w" if colour == "b" else "b"
        h = gtp_session(hane_cmd, setup[2:] + plays + ["final_score", "final_status_list dead"])
        n = gtp_session(gnugo_cmd, setup + plays + ["final_score", "final_status_list dead"])
        hs, ns = margin(h[-2]), margin(n[-2])
        ok = abs(hs - ns) <= 2
        agree += ok
        extra = ""
        if a.model:
            # The same position judged without the net, by playouts.
            p = gtp_session(hane_cmd[:4], setup[2:] + plays + ["final_score", "final_status_list dead"])
            playouts_agree += abs(margin(p[-2]) - ns) <= 2
            extra = f", by playouts {p[-2].lstrip('= ')} ({len(p[-1].split()) - 1} dead)"
        print(f"game {i + 1:2d}: {len(g['moves'])} moves, hane {h[-2].lstrip('= ')} ({len(h[-1].split()) - 1} dead)"
              f"{extra}, GNU Go {n[-2].lstrip('= ')} ({len(n[-1].split()) - 1} dead): "
              f"{'agree' if ok else 'DIFFER'} within 2")
    print(f"{agree} of {len(games)} games agree within 2 points")
    if a.model:
        print(f"judged by playouts instead of the net: {playouts_agree} of {len(games)}")
    return 0 if agree == len(games) else 1


sys.exit(main())
