"""Medians per game and build from run-d.txt or run-e.txt (this folder;
also the run files of ../2026-12-03n-h200-spm-local): lines `BUILD: WON
SECONDS` under `== GAME`, and Oink's `total solving time`; the ratio of
Oink to the build FINAL (default `final`).
Usage: python3 table.py RUN.txt [FINAL]"""
import re
import statistics
import sys

final = sys.argv[2] if len(sys.argv) > 2 else "final"
times, game = {}, None
for line in open(sys.argv[1]):
    if m := re.match(r"== (\S+)$", line.strip()):
        game = m.group(1)
    elif m := re.match(r"(\w+): \d+ ([0-9.]+)$", line.strip()):
        times.setdefault(game, {}).setdefault(m.group(1), []).append(float(m.group(2)))
    elif m := re.search(r"oink: .*total solving time: ([0-9.]+)", line):
        times.setdefault(game, {}).setdefault("oink", []).append(float(m.group(1)))
for game, builds in times.items():
    cells = [f"{b} {statistics.median(t):.4f} ({min(t):.4f}-{max(t):.4f}, {len(t)})" for b, t in builds.items()]
    ratio = ""
    if "oink" in builds and final in builds:
        ratio = f"; Oink / {final}: {min(builds['oink']) / statistics.median(builds[final]):.1f}-" \
                f"{max(builds['oink']) / statistics.median(builds[final]):.1f}"
    print(f"{game}: " + ", ".join(cells) + ratio)
