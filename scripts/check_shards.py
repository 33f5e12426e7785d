#!/usr/bin/env python3
"""Independent check of hane's self-play output with numpy and sgfmill.

Usage: check_shards.py RUN_DIR [RUN_DIR ...]

For every shards/*.npz: numpy loads it, the arrays have the documented dtypes and shapes
(README, "Training data"), the metadata's CRC-32 over the arrays matches, policies sum to 1
and value targets are distributions (one-hot unless [selfplay] value_search_mix mixes in the
search's own win/draw/loss). For every sgf/*.sgf: sgfmill parses it and replays its moves.
Exits non-zero on the first problem.
"""
import json
import pathlib
import sys
import zlib

import numpy as np
from sgfmill import sgf

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
        return meta["rows"]


def check_sgf(path):
    game = sgf.Sgf_game.from_bytes(path.read_bytes())
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


def main(dirs):
    shards = rows = sgfs = moves = 0
    for d in map(pathlib.Path, dirs):
        for p in sorted((d / "shards").glob("*.npz")):
            rows += check_shard(p)
            shards += 1
        for p in sorted((d / "sgf").glob("*.sgf")):
            moves += check_sgf(p)
            sgfs += 1
    if shards == 0 or sgfs == 0:
        sys.exit(f"no shards or SGFs found under {dirs}")
    print(f"check_shards: {shards} shards ({rows} rows) and {sgfs} SGFs ({moves} moves) OK")


if __name__ == "__main__":
    main(sys.argv[1:])
