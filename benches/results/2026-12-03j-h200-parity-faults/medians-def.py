"""Medians (least-most) of the timed lines `GAME CONFIG run N: SECONDS` of
run-d.txt, run-e.txt (its JSON lines) and run-f.txt of this folder.
Usage: python3 medians-def.py FILE..."""
import re
import statistics
import sys
from collections import defaultdict

times = defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        plain = re.match(r"(\S+) (.+) run \d+: ([0-9.]+)$", line.strip())
        json = re.match(r'(\S+) (.+) run \d+: "solver":"\w+","solve_seconds":([0-9.]+)', line)
        match = plain or json
        if match:
            times[(path, match.group(1), match.group(2))].append(float(match.group(3)))
for (path, game, config), values in times.items():
    print(f"{path}\t{game}\t{config}\t{len(values)}\t{statistics.median(values):.4f}\t"
          f"{min(values):.4f}-{max(values):.4f}")
