#!/usr/bin/env python3
"""Markdown table from interleaved.sh's TSV: each warpcheck solver of the new build against Oink's fastest
solver per game (any number of workers), for one column of times (solve_s or wall_s), and how many games
each warpcheck solver solves at least 5x faster than that.

Usage: big_table.py TSV [solve_s|wall_s]
"""
import math
import sys

from table import load, shown

games, seconds = load(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "solve_s")
ours = sorted({c for by in games.values() for c in by if c.startswith("new:")})
header = ["game", "Oink best"] + [c[4:] for c in ours] + [f"{c[4:]} / Oink" for c in ours]
print("| " + " | ".join(header) + " |")
print("|" + " --- |" + " ---: |" * (len(header) - 1))
ratios = {c: [] for c in ours}
for game, by in games.items():
    oink = min((c for c in by if c.startswith("oink:")), key=lambda c: seconds(by[c]))
    best = seconds(by[oink])
    times = [seconds(by.get(c)) for c in ours]
    for c, t in zip(ours, times):
        ratios[c].append(t / best)
    print(f"| {game} | {shown(best, 1)} ({oink[5:]}) | " + " | ".join((shown(t, 1) for t in times)) + " | "
          + " | ".join(f"{t / best:.2f}" for t in times) + " |")
print()
for c, xs in ratios.items():
    finite = [x for x in xs if not math.isinf(x) and x > 0]
    mean = math.exp(sum(map(math.log, finite)) / len(finite)) if finite else math.inf
    print(f"- {c[4:]} / Oink: geometric mean {mean:.2f} (of {len(finite)} games solved); at most 1.2 on "
          f"{sum(x <= 1.2 for x in xs)} of {len(xs)} games; at least 5x faster on {sum(x <= 0.2 for x in xs)}")
