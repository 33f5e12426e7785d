#!/usr/bin/env python3
"""Counts the games and training rows of self-play folders, in both of hane's file forms.

Usage:
  count_games.py snapshot ROOT FOLDER...         > SNAPSHOT.json
  count_games.py check ROOT --games N [--keep SNAPSHOT.json] [--train-log LOG] FOLDER...

ROOT is the folder the trainer reads (`hane train --data ROOT`); each FOLDER, relative to
ROOT, is one `hane selfplay --out` folder that was asked for N games, g00000000 to g{N-1}.

A game is finished once its SGF exists, in either form:
  * single: sgf/gNNNNNNNN.sgf, its rows (if any) in shards/gNNNNNNNN.npz;
  * packed: sgf/pNNNNNNNN.sgf, an SGF collection whose game trees each name their game in
    the root's GN[gNNNNNNNN], beside shards/pNNNNNNNN.npz, whose `meta` (UTF-8 JSON in a
    uint8 array) lists the games of its rows in `game_names`.
Side games (gNNNNNNNN-fTTT, forked from game N at turn T) are counted apart.

`snapshot` prints a folder's game names and the identity (inode, size, modification time)
of its game files, for `check --keep`: every game it names must still be there, and every
file of it still at its path must be the same file (hane never rewrote it, so never replayed
that game).

`check` fails (exit 1) when a requested game is missing, a game name occurs twice in one
folder (singles and packs together, SGFs and shards each), a shard holds rows of a game
without an SGF, a snapshot's game or file is gone or rewritten, or the trainer's last data
window (the last `train: data window WindowInfo {...}` line of LOG) does not count every
.npz file under ROOT and every row in them. Rows are the sum of `meta.rows` over all .npz
files under ROOT, found recursively as the trainer finds them.
"""
import argparse
import collections
import json
import pathlib
import re
import sys

import numpy as np
from sgfmill import sgf, sgf_grammar

GAME = re.compile(r"g\d{8}")
SIDE_GAME = re.compile(r"g\d{8}-f\d{3}")
PACK = re.compile(r"p\d{8}")
WINDOW = re.compile(
    r"train: data window WindowInfo \{ shards: (\d+), total_rows: (\d+), "
    r"window_shards: (\d+), window_rows: (\d+) \}"
)


def npz_meta(path):
    """The JSON metadata of a shard, single or packed."""
    with np.load(path) as z:
        return json.loads(bytes(z["meta"]).decode())


def pack_names(path):
    """The GN names of the game trees in an SGF collection."""
    names = []
    for coarse in sgf_grammar.parse_sgf_collection(path.read_bytes()):
        root = sgf.Sgf_game.from_coarse_game_tree(coarse).get_root()
        if not root.has_property("GN"):
            raise ValueError(f"{path}: a game tree without GN[...]")
        names.append(root.get("GN"))
    return names


def folder_games(folder):
    """(finished game names with one entry per SGF occurrence, row-holding game names with
    one entry per shard occurrence, problems) of one self-play folder."""
    finished, with_rows, problems = [], [], []
    for p in sorted((folder / "sgf").glob("*.sgf")):
        if GAME.fullmatch(p.stem) or SIDE_GAME.fullmatch(p.stem):
            finished.append(p.stem)
        elif PACK.fullmatch(p.stem):
            finished.extend(pack_names(p))
        else:
            problems.append(f"{p}: not a game or pack name")
    for p in sorted((folder / "shards").glob("*.npz")):
        if GAME.fullmatch(p.stem) or SIDE_GAME.fullmatch(p.stem):
            with_rows.append(p.stem)
        elif PACK.fullmatch(p.stem):
            names = npz_meta(p).get("game_names")
            if names is None:
                problems.append(f"{p}: packed shard without meta.game_names")
            else:
                with_rows.extend(names)
        else:
            problems.append(f"{p}: not a game or pack name")
    return finished, with_rows, problems


def file_ids(folder):
    """inode, size and modification time (ns) of each game file, by path."""
    ids = {}
    for sub in ("sgf", "shards"):
        for p in sorted((folder / sub).glob("*")):
            if p.suffix in (".sgf", ".npz"):
                st = p.stat()
                ids[str(p)] = [st.st_ino, st.st_size, st.st_mtime_ns]
    return ids


def snapshot(args):
    root = pathlib.Path(args.root)
    names, files = [], {}
    for f in args.folders:
        finished, _, _ = folder_games(root / f)
        names += [f"{f}:{n}" for n in finished]
        files.update(file_ids(root / f))
    json.dump({"names": sorted(set(names)), "files": files}, sys.stdout, indent=1)
    print()


def check(args):
    root = pathlib.Path(args.root)
    failures = []
    expected = {f"g{i:08}" for i in range(args.games)}
    found = missing = duplicates = side = 0
    all_names = set()
    for f in args.folders:
        finished, with_rows, problems = folder_games(root / f)
        failures += problems
        main = [n for n in finished if GAME.fullmatch(n)]
        side += len(finished) - len(main)
        counts = collections.Counter(finished)
        dup = sorted(n for n, c in counts.items() if c > 1)
        dup_rows = sorted(n for n, c in collections.Counter(with_rows).items() if c > 1)
        miss = sorted(expected - set(main))
        extra = sorted(set(main) - expected)
        orphans = sorted(set(with_rows) - set(finished))
        found += len(set(main) & expected)
        missing += len(miss)
        duplicates += len(dup)
        all_names |= {f"{f}:{n}" for n in counts}
        for what, names in [
            ("missing games", miss),
            ("games with two or more SGFs", dup),
            ("games with rows in two or more shards", dup_rows),
            ("games beyond --games", extra),
            ("rows of games without an SGF", orphans),
        ]:
            if names:
                failures.append(f"{f}: {what}: {' '.join(names)}")
    print(
        f"games: expected {args.games * len(args.folders)} in {len(args.folders)} folders, "
        f"found {found}, missing {missing}, duplicates {duplicates}, side games {side}"
    )

    if args.keep:
        snap = json.loads(pathlib.Path(args.keep).read_text())
        lost = sorted(set(snap["names"]) - all_names)
        rewritten = []
        for path, ident in snap["files"].items():
            p = pathlib.Path(path)
            if p.exists():
                st = p.stat()
                if [st.st_ino, st.st_size, st.st_mtime_ns] != ident:
                    rewritten.append(path)
        print(
            f"requeued task: {len(snap['names'])} games before the kill, {len(lost)} lost since, "
            f"{len(rewritten)} of its {len(snap['files'])} files rewritten"
        )
        if lost:
            failures.append(f"games of the snapshot lost: {' '.join(lost)}")
        if rewritten:
            failures.append(f"files of the snapshot rewritten (game replayed?): {' '.join(rewritten)}")

    npz = sorted(p for p in root.rglob("*.npz") if p.is_file())
    rows = sum(int(npz_meta(p)["rows"]) for p in npz)
    print(f"shards: {len(npz)} .npz files under {root}, {rows} rows")

    if args.train_log:
        windows = WINDOW.findall(pathlib.Path(args.train_log).read_text(errors="replace"))
        if not windows:
            failures.append(f"{args.train_log}: no 'train: data window' line")
        else:
            shards, total, wshards, wrows = map(int, windows[-1])
            print(
                f"trainer's last window ({len(windows)} scans): shards {shards}, total_rows {total}, "
                f"window_shards {wshards}, window_rows {wrows}"
            )
            if (shards, total, wshards, wrows) != (len(npz), rows, len(npz), rows):
                failures.append(
                    f"the trainer's last window is not every shard and row "
                    f"({len(npz)} shards, {rows} rows)"
                )

    for f in failures:
        print(f"FAIL: {f}")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("snapshot")
    s.add_argument("root")
    s.add_argument("folders", nargs="+")
    c = sub.add_parser("check")
    c.add_argument("root")
    c.add_argument("folders", nargs="+")
    c.add_argument("--games", type=int, required=True)
    c.add_argument("--keep")
    c.add_argument("--train-log")
    args = ap.parse_args()
    if args.cmd == "snapshot":
        snapshot(args)
        return 0
    return check(args)


if __name__ == "__main__":
    sys.exit(main())
