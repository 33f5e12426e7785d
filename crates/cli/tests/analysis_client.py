"""A small client of `hane analysis`, as a KaTrain-like tool talks to it: it sends a batch of
queries (a game with analyzeTurns, ownership and policy, Loose and Sligo positions, malformed
queries, actions) and checks every response against the keys and value ranges of KataGo's
docs/Analysis_Engine.md.

Usage: python3 analysis_client.py HANE_BINARY MODEL_FOR_TTAKJI_5x5
Exits non-zero with a message on the first failed check.
"""

import json
import math
import subprocess
import sys

MOVE_KEYS = {"move", "visits", "winrate", "scoreMean", "scoreStdev", "scoreLead", "scoreSelfplay",
             "prior", "utility", "lcb", "utilityLcb", "order", "pv"}
ROOT_KEYS = {"winrate", "scoreLead", "scoreSelfplay", "utility", "visits"}


def fail(message):
    sys.exit("analysis client: " + message)


def check(cond, message):
    if not cond:
        fail(message)


def run(args, queries):
    """Starts `hane analysis ARGS`, sends every query at once, closes stdin and returns the
    response lines (the engine answers everything queued before it exits)."""
    text = "".join(q if isinstance(q, str) else json.dumps(q) for q in queries)
    out = subprocess.run(args, input=text, capture_output=True, text=True, timeout=600)
    check(out.returncode == 0, f"exit {out.returncode}: {out.stderr}")
    lines = [line for line in out.stdout.split("\n") if line]
    responses = []
    for line in lines:
        try:
            responses.append(json.loads(line))
        except ValueError:
            fail(f"not one JSON object per line: {line!r}")
    return responses


def number(v, name, lo=-math.inf, hi=math.inf):
    check(isinstance(v, (int, float)) and not isinstance(v, bool), f"{name} is a number: {v!r}")
    check(lo <= v <= hi, f"{name} = {v} not in [{lo}, {hi}]")


def check_analysis(r, size, query):
    check(r["isDuringSearch"] is False, f"a final response: {r}")
    infos = r["moveInfos"]
    check(len(infos) > 0, f"moves: {r}")
    for i, m in enumerate(infos):
        missing = MOVE_KEYS - set(m)
        check(not missing, f"moveInfo lacks {missing}: {m}")
        for k in ("winrate", "prior"):
            number(m[k], k, 0, 1)
        for k in ("scoreMean", "scoreLead", "scoreSelfplay", "utility", "utilityLcb", "lcb"):
            number(m[k], k)
        number(m["scoreStdev"], "scoreStdev", 0)
        check(m["order"] == i, f"orders count up: {infos}")
        check(m["pv"] and m["pv"][0] == m["move"], f"the pv starts with the move: {m}")
        if query.get("includePVVisits"):
            check(len(m["pvVisits"]) == len(m["pv"]), f"pvVisits: {m}")
    visits = [m["visits"] for m in infos]
    check(visits == sorted(visits, reverse=True), f"best first: {visits}")
    root = r["rootInfo"]
    check(not (ROOT_KEYS - set(root)), f"rootInfo lacks {ROOT_KEYS - set(root)}: {root}")
    number(root["winrate"], "rootInfo winrate", 0, 1)
    check(root["visits"] <= query.get("maxVisits", 10**9), f"at most maxVisits: {root}")
    if query.get("includeOwnership"):
        check(len(r["ownership"]) == size * size, f"ownership per point: {r}")
        for x in r["ownership"]:
            number(x, "ownership", -1, 1)
    if query.get("includePolicy"):
        p = r["policy"]
        check(len(p) == size * size + 1, f"policy per point and pass: {len(p)}")
        legal = [x for x in p if x != -1]
        check(abs(sum(legal) - 1) < 1e-3, f"the legal moves' policy sums to 1: {sum(legal)}")


def main():
    hane, model = sys.argv[1], sys.argv[2]
    game = {"id": "game", "moves": [["B", "C3"], ["W", "C4"], ["B", "D4"]], "rules": "ttakji", "komi": 7,
            "boardXSize": 5, "boardYSize": 5, "analyzeTurns": [0, 1, 2, 3], "maxVisits": 24,
            "includeOwnership": True, "includePolicy": True, "includePVVisits": True}
    net = run([hane, "analysis", "--rules", "ttakji,size=5", "--model", model], [
        json.dumps(game) + "\n",
        json.dumps({"id": "v", "action": "query_version"}) + "\n",
        json.dumps({**game, "id": "foreign", "rules": "loose"}) + "\n",
    ])
    finals = [r for r in net if r.get("id") == "game"]
    check(sorted(r["turnNumber"] for r in finals) == [0, 1, 2, 3], f"every analysed turn: {net}")
    for r in finals:
        check_analysis(r, 5, game)
        want = "B" if r["turnNumber"] % 2 == 0 else "W"
        check(r["rootInfo"]["currentPlayer"] == want, f"the side to move: {r}")
    version = [r for r in net if r.get("action") == "query_version"]
    check(len(version) == 1 and "version" in version[0], f"query_version echoes: {net}")
    foreign = [r for r in net if r.get("id") == "foreign"]
    check(len(foreign) == 1 and foreign[0].get("field") == "rules" and "error" in foreign[0],
          f"a net answers its own game only: {foreign}")

    loose = {"id": "loose", "moves": [["B", "C3"], ["W", "B3"]], "rules": "loose", "boardXSize": 5,
             "boardYSize": 5, "maxVisits": 40, "includeOwnership": True, "includeOwnershipStdev": True}
    sligo = {"id": "sligo", "moves": [["B", "C3"], ["W", "B4"]], "rules": "sligo", "boardXSize": 5,
             "boardYSize": 5, "maxVisits": 40, "someFutureField": 3}
    queued = {**loose, "id": "queued", "maxVisits": 100000}
    bad = [
        "this is not json\n",
        "[1, 2]\n",
        json.dumps({"moves": [], "rules": "chinese", "boardXSize": 9, "boardYSize": 9}) + "\n",
        json.dumps({"id": "illegal", "moves": [["B", "C3"], ["W", "C3"]], "rules": "chinese",
                    "boardXSize": 9, "boardYSize": 9}) + "\n",
        json.dumps({"id": "turns", "moves": [], "rules": "chinese", "boardXSize": 9, "boardYSize": 9,
                    "analyzeTurns": [1]}) + "\n",
        json.dumps({"id": "size", "moves": [], "rules": "chinese", "boardXSize": 9, "boardYSize": 7}) + "\n",
        json.dumps({"id": "ing", "moves": [], "rules": "ing", "boardXSize": 9, "boardYSize": 9}) + "\n",
    ]
    rollouts = run([hane, "analysis", "--visits", "16"], [
        json.dumps(loose) + "\n",
        json.dumps(sligo) + "\n",
        json.dumps(queued) + "\n",
        json.dumps({"id": "t", "action": "terminate", "terminateId": "queued"}) + "\n",
        *bad,
    ])
    by_id = {}
    for r in rollouts:
        by_id.setdefault(r.get("id"), []).append(r)
    check_analysis(by_id["loose"][0], 5, loose)
    check(len(by_id["loose"][0]["ownershipStdev"]) == 25, f"ownershipStdev: {by_id['loose']}")
    check(by_id["sligo"][0].get("warning") and by_id["sligo"][0]["field"] == "someFutureField",
          f"an ignored field is a warning: {by_id['sligo']}")
    check_analysis(by_id["sligo"][1], 5, sligo)
    check(any(">" in m["move"] or m["move"] == "noslide" for m in by_id["sligo"][1]["moveInfos"]),
          f"Sligo's first decision is a slide: {by_id['sligo'][1]}")
    q = by_id["queued"]
    check(len(q) == 1 and q[0].get("isDuringSearch") is False and
          (q[0].get("noResults") is True or q[0]["rootInfo"]["visits"] < 100000),
          f"a terminated query ends with one final response: {q}")
    check(by_id["t"][0].get("action") == "terminate", f"terminate is echoed: {by_id['t']}")
    nameless = by_id[None]
    check(len(nameless) == 3 and all("error" in r for r in nameless), f"errors without an id: {nameless}")
    for qid, field in [("illegal", "moves"), ("turns", "analyzeTurns"), ("size", "boardYSize"), ("ing", "rules")]:
        r = by_id[qid]
        check(len(r) == 1 and "error" in r[0] and r[0]["field"] == field, f"{qid}: {r}")
    print(f"analysis client: {len(net) + len(rollouts)} responses checked")


main()
