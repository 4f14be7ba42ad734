"""Medians (least, most) of the solve seconds, minor faults and system
seconds per game and configuration of a run-X.txt of this folder:
`solve_seconds` for warpcheck, `total solving time` for Oink.
Usage: python3 medians.py run-a.txt"""
import re
import statistics
import sys
from collections import defaultdict

rows = defaultdict(list)
for line in open(sys.argv[1]):
    match = re.match(r"(\S+) (.+) run \d+: rc=0 minflt=(\d+) sys=([0-9.]+)", line)
    solve = re.search(r'"solve_seconds": ([0-9.]+)|total solving time: ([0-9.]+)', line)
    if match and solve:
        seconds = float(solve.group(1) or solve.group(2))
        rows[(match.group(1), match.group(2))].append(
            (seconds, int(match.group(3)), float(match.group(4))))
print("game\tconfiguration\truns\tsolve median\tleast-most\tfaults median\tsys median")
for (game, config), runs in rows.items():
    seconds = [r[0] for r in runs]
    print(f"{game}\t{config}\t{len(runs)}\t{statistics.median(seconds):.4f}\t"
          f"{min(seconds):.4f}-{max(seconds):.4f}\t"
          f"{statistics.median(r[1] for r in runs):.0f}\t{statistics.median(r[2] for r in runs):.3f}")
