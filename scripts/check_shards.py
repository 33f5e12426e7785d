#!/usr/bin/env python3
"""Independent check of hane's self-play output with numpy and sgfmill.

Usage: check_shards.py RUN_DIR [RUN_DIR ...]

For every shards/*.npz, one game's or a pack's (stored or deflated): numpy loads it, the
arrays have the documented dtypes and shapes (docs/data-format.md), the metadata's CRC-32
over the arrays matches, policies sum to 1 and value targets are distributions (one-hot
unless [selfplay] value_search_mix mixes in the search's own win/draw/loss). For every
sgf/*.sgf, one game or a pack's collection: sgfmill parses every game in it and replays its
moves. No game is in two files. Exits non-zero on the first problem.
"""
import json
import pathlib
import sys
import zlib

import numpy as np
from sgfmill import sgf, sgf_grammar

EXPECTED = {
    "input_nchw": (np.uint8, lambda m: (m["rows"], m["planes"], m["board_size"], m["board_size"])),
    "global_nc": (np.float32, lambda m: (m["rows"], m["globals"])),
    "policy_nm": (np.float32, lambda m: (m["rows"], m["action_space"])),
    "value_nc": (np.float32, lambda m: (m["rows"], 3)),
    "score_n": (np.float32, lambda m: (m["rows"],)),
    "ownership_nhw": (np.int8, lambda m: (m["rows"], m["board_size"], m["board_size"])),
}


def check_shard(path):
    with np.load(path) as z:
        meta = json.loads(bytes(z["meta"]).decode())
        crc = 0
        for name, (dtype, shape) in EXPECTED.items():
            a = z[name]
            assert a.dtype == dtype, f"{path}: {name} is {a.dtype}, expected {dtype}"
            assert a.shape == shape(meta), f"{path}: {name} shape {a.shape}, expected {shape(meta)}"
            crc = zlib.crc32(a.tobytes(), crc)
        assert crc == meta["crc32"], f"{path}: checksum mismatch"
        assert np.allclose(z["policy_nm"].sum(axis=1), 1.0, atol=1e-4), f"{path}: policy rows do not sum to 1"
        v = z["value_nc"]
        assert np.all(v >= 0.0) and np.allclose(v.sum(axis=1), 1.0, atol=1e-5), f"{path}: value targets are not distributions"
        assert set(np.unique(z["input_nchw"])) <= {0, 1}, f"{path}: planes are not 0/1"
        names = meta.get("game_names") or [path.stem]
        assert len(names) == meta["games"], f"{path}: {len(names)} names for {meta['games']} games"
        return meta["rows"], names


def check_sgf(path):
    """The names and moves of the games in an SGF file (a collection for a pack)."""
    names, moves = [], 0
    for tree in sgf_grammar.parse_sgf_collection(path.read_bytes()):
        game = sgf.Sgf_game.from_coarse_game_tree(tree)
        root = game.get_root()
        names.append(root.get("GN") if root.has_property("GN") else path.stem)
        moves += check_game(path, game)
    return names, moves


def check_game(path, game):
    size = game.get_size()
    moves = 0
    for node in game.get_main_sequence():
        colour, move = node.get_move()
        if colour is not None:
            if move is not None:
                row, col = move
                assert 0 <= row < size and 0 <= col < size, f"{path}: move off the board"
            moves += 1
    assert game.get_root().has_property("RU"), f"{path}: no RU"
    return moves


def once(names, what):
    seen = set()
    for n in names:
        assert n not in seen, f"{what}: game {n} is in two files"
        seen.add(n)
    return seen


def main(dirs):
    shards = rows = sgfs = games = moves = 0
    for d in map(pathlib.Path, dirs):
        shard_games, sgf_games = [], []
        for p in sorted((d / "shards").glob("*.npz")):
            n, names = check_shard(p)
            rows += n
            shard_games += names
            shards += 1
        for p in sorted((d / "sgf").glob("*.sgf")):
            names, m = check_sgf(p)
            moves += m
            sgf_games += names
            sgfs += 1
        recorded = once(sgf_games, d)
        assert once(shard_games, d) <= recorded, f"{d}: rows of games without a record"
        games += len(recorded)
    if shards == 0 or sgfs == 0:
        sys.exit(f"no shards or SGFs found under {dirs}")
    print(f"check_shards: {shards} shards ({rows} rows) and {sgfs} SGF files ({games} games, {moves} moves) OK")


if __name__ == "__main__":
    main(sys.argv[1:])
