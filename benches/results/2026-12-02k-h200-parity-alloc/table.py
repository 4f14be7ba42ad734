#!/usr/bin/env python3
"""Medians and ranges of run-a.txt: warpcheck's solve_seconds per build
and Oink's total solving time per solver, per game; the ratio of Oink's
fastest median to each build's median (above 1: warpcheck faster)."""
import collections
import re
import statistics
import sys
from pathlib import Path

text = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).with_name("run-a.txt")).read_text()
ours = collections.defaultdict(lambda: collections.defaultdict(list))
loads = collections.defaultdict(lambda: collections.defaultdict(list))
oink = collections.defaultdict(lambda: collections.defaultdict(list))
for line in text.splitlines():
    m = re.match(r"(\S+) (old|new|noarena) (auto\S*) run \d+: rc=0 .*\"load_seconds\": ([0-9.]+), \"solve_seconds\": ([0-9.]+)", line)
    if m:
        game, build, mode, load, solve = m.groups()
        ours[game][f"{build} {mode}"].append(float(solve))
        loads[game][f"{build} {mode}"].append(float(load))
        continue
    m = re.match(r"(\S+) oink (\S+) run \d+: .*total solving time: ([0-9.]+)", line)
    if m:
        game, solver, solve = m.groups()
        oink[game][solver].append(float(solve))


def spread(values):
    return f"{statistics.median(values):.4f} ({min(values):.4f}-{max(values):.4f}, n={len(values)})"


for game in ours:
    best_solver, best = min(((s, statistics.median(v)) for s, v in oink[game].items()), key=lambda x: x[1])
    print(f"## {game}")
    for build, values in ours[game].items():
        print(f"  {build:24} solve {spread(values)}  load {statistics.median(loads[game][build]):.3f}  Oink/ours {best / statistics.median(values):.2f}x")
    for solver, values in oink[game].items():
        print(f"  oink {solver:19} solve {spread(values)}")
