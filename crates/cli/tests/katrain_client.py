"""KaTrain's own engine class driving `hane analysis`, started exactly as KaTrain starts KataGo
(`hane analysis -model M -config KATRAIN_CFG -override-config homeDataDir=...`), on a 5x5 net:
the start-up analysis, a game's analysis, pondering started and stopped, "find alternatives"
(avoidMoves), per-move ownership, a finished game, and every rule set of KaTrain's menu. Every
message KaTrain logs as an error, and every engine-recovery popup it would open, fails the test.

Usage: python katrain_client.py HANE_BINARY MODEL_FOR_TTAKJI_5x5
Needs the `katrain` package (scripts/setup.sh installs it); runs without a display.
Exits non-zero with a message on the first failed check.
"""

import os
import sys
import time

for key in ("KIVY_NO_WINDOW", "KIVY_NO_ARGS", "KIVY_NO_CONSOLELOG", "KIVY_NO_FILELOG"):
    os.environ[key] = "1"
os.environ.setdefault("KIVY_HOME", os.path.join(os.environ.get("TMPDIR", "/tmp"), f"hane-kivy-{os.getpid()}"))

from katrain.core.constants import OUTPUT_ERROR  # noqa: E402
from katrain.core.engine import KataGoEngine  # noqa: E402
from katrain.core.game_node import GameNode  # noqa: E402
from katrain.core.utils import find_package_resource  # noqa: E402
from pysgf import Move  # noqa: E402

TIMEOUT = 120


def fail(message):
    # Kivy, told not to log to the console, swallows what reaches sys.stderr: write to the
    # process's own error stream.
    print("katrain client: " + message, file=sys.__stderr__, flush=True)
    sys.exit(1)


def check(cond, message):
    if not cond:
        fail(message)


class FakeKaTrain:
    """What KataGoEngine calls on KaTrain's app: `log` and popups (`katrain("...", ...)`)."""

    def __init__(self):
        self.errors = []
        self.lines = []

    def log(self, message, level):
        self.lines.append(str(message))
        if level == OUTPUT_ERROR:
            self.errors.append(str(message))

    def __call__(self, message, *args):
        self.errors.append(f"popup {message}: {args}")


def wait(cond, what):
    end = time.time() + TIMEOUT
    while not cond():
        if time.time() > end:
            fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def game(ruleset="japanese", komi=6.5, moves=()):
    """KaTrain's game tree: a root with SZ/KM/RU and a node per move; returns the last node."""
    node = GameNode(properties={"SZ": "5", "KM": str(komi), "RU": ruleset})
    for i, gtp in enumerate(moves):
        node = node.play(Move.from_gtp(gtp, player="BW"[i % 2]))
    return node


def analysed(engine, node, **kwargs):
    """Analyses `node` as KaTrain does and waits for its final result."""
    node.analyze(engine, **kwargs)
    wait(lambda: node.analysis_complete, f"the analysis of {node.nodes_from_root[-1].move}")
    return node


def raw(engine, node, **kwargs):
    """The final response of a request of KaTrain's, as KaTrain's callback receives it."""
    got = []
    engine.request_analysis(node, callback=lambda r, partial: None if partial else got.append(r), **kwargs)
    wait(lambda: got, "a response")
    return got[0]


def main():
    hane, model = sys.argv[1], sys.argv[2]
    katrain = FakeKaTrain()
    config = {
        "katago": hane,
        "model": model,
        "config": "katrain/KataGo/analysis_config.cfg",
        "max_visits": 40,
        "fast_visits": 10,
        "max_time": 8.0,
        "wide_root_noise": 0.04,
        "_enable_ownership": True,
    }
    engine = KataGoEngine(katrain, config)
    check(engine.command[1:4] == ["analysis", "-model", model], f"KaTrain's command: {engine.command}")
    check(engine.command[4] == "-config" and engine.command[5] == find_package_resource(config["config"]),
          f"KaTrain's own config: {engine.command}")
    try:
        # The start-up analysis: the empty board.
        root = analysed(engine, game())
        check(root.analysis["root"]["visits"] >= 1 and root.analysis["moves"], f"start-up: {root.analysis}")
        check(len(root.policy) == 26 and len(root.ownership) == 25, "policy and ownership of the empty board")

        # A game's analysis, and per-move ownership on the raw response.
        node = analysed(engine, game(moves=["C3", "C4", "D4"]))
        check(node.analysis["root"]["currentPlayer"] == "W", f"White to move: {node.analysis['root']}")
        response = raw(engine, node)
        for m in response["moveInfos"]:
            check(len(m.get("ownership", [])) == 25, f"per-move ownership: {m}")

        # Pondering: KaTrain's ten million visits, partial results with a policy, then stopped.
        ponder = game(moves=["C3", "C4"])
        ponder.analyze(engine, ponder=True)
        wait(lambda: ponder.analysis["root"] and ponder.analysis["root"]["visits"] > 40, "pondering past 40 visits")
        check(ponder.policy and len(ponder.policy) == 26, "the policy survives partial results")
        engine.stop_pondering()
        wait(lambda: ponder.analysis_complete, "pondering to stop")
        visits = ponder.analysis["root"]["visits"]
        time.sleep(1)
        check(ponder.analysis["root"]["visits"] == visits, "no results after pondering stopped")

        # Find alternatives: KaTrain avoids every move already analysed. After C3 C4 D4 White
        # has 23 legal moves (22 points and pass); when a tiny net's 40 visits reached them
        # all, nothing is left to search and hane searches them all (as its docs say).
        seen = set(node.analysis["moves"])
        alternatives = raw(engine, node, find_alternatives=True)
        found = {m["move"] for m in alternatives["moveInfos"]}
        if len(seen) < 23:
            check(found and not (found & seen), f"alternatives avoid {sorted(seen)}: {sorted(found)}")
        else:
            check(found and found <= seen, f"every move avoided, so any may be searched: {sorted(found)}")

        # A finished game White wins: the result, not the side to move's certainty.
        over = analysed(engine, game(moves=["A1", "C3", "pass", "B3", "pass", "C2", "pass", "pass"]))
        r = over.analysis["root"]
        check(not over.analysis["moves"], f"no candidates after the game: {over.analysis['moves']}")
        check(r["scoreLead"] < 0 and r["winrate"] == 0.0, f"White wins the finished game: {r}")
        shown = over.format_score()
        check(shown.startswith("W+") and shown != "W+0.0", f"KaTrain shows {shown}")

        # Every rule set of KaTrain's menu, against the ttakji net.
        for _, ruleset in KataGoEngine.RULESETS_ABBR:
            n = analysed(engine, game(ruleset=ruleset, komi=6.5, moves=["C3"]))
            check(n.analysis["moves"], f"{ruleset}: {n.analysis}")

        check(not katrain.errors, f"errors reached KaTrain: {katrain.errors}")
        warnings = [line for line in katrain.lines if "warning" in line]
        print(f"katrain client: every check passed ({len(warnings)} warnings logged); "
              f"finished game shown as {shown}, winrate {over.format_winrate()}", flush=True)
    finally:
        engine.shutdown(finish=False)


main()
