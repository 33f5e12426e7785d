#!/usr/bin/env python3
"""Checks a trainer's TensorBoard log directory with the `tensorboard` package itself.

Usage: check_tensorboard.py LOGDIR [--scalar TAG]... [--histogram TAG]... [--min-points N]

Every named scalar must have at least N points (default 1), all finite, at increasing steps;
every named histogram at least one non-empty record. Prints what it found; exits 1 on any
missing or bad tag, 2 if the directory holds no event file.
"""
import argparse
import glob
import math
import os
import sys

from tensorboard.backend.event_processing import event_accumulator as ea


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("logdir")
    p.add_argument("--scalar", action="append", default=[])
    p.add_argument("--histogram", action="append", default=[])
    p.add_argument("--min-points", type=int, default=1)
    a = p.parse_args()
    if not glob.glob(os.path.join(a.logdir, "events.out.tfevents.*")):
        print(f"no event files in {a.logdir}", file=sys.stderr)
        return 2
    acc = ea.EventAccumulator(a.logdir, size_guidance={ea.SCALARS: 0, ea.HISTOGRAMS: 0})
    acc.Reload()
    tags = acc.Tags()
    errors = []
    for tag in a.scalar:
        if tag not in tags["scalars"]:
            errors.append(f"scalar {tag} missing (have {sorted(tags['scalars'])})")
            continue
        points = acc.Scalars(tag)
        steps = [e.step for e in points]
        if len(points) < a.min_points:
            errors.append(f"scalar {tag}: {len(points)} points, expected >= {a.min_points}")
        if not all(math.isfinite(e.value) for e in points):
            errors.append(f"scalar {tag}: non-finite values")
        if steps != sorted(steps):
            errors.append(f"scalar {tag}: steps out of order {steps}")
        print(f"scalar {tag}: {len(points)} points, last {points[-1].value:.5g} at step {steps[-1]}")
    for tag in a.histogram:
        if tag not in tags["histograms"]:
            errors.append(f"histogram {tag} missing (have {len(tags['histograms'])} histogram tags)")
            continue
        records = acc.Histograms(tag)
        if not records or records[-1].histogram_value.num <= 0:
            errors.append(f"histogram {tag}: empty")
            continue
        h = records[-1].histogram_value
        print(f"histogram {tag}: {len(records)} records, last has {h.num:.0f} values in [{h.min:.4g}, {h.max:.4g}]")
    for e in errors:
        print("ERROR: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
