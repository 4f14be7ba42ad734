"""Medians (ranges, runs) of solve_seconds per game and configuration in
run-a.txt, run-b.txt and run-d.txt of this folder, and of Oink's total
solving time. Usage: python3 medians.py FILE..."""
import re
import statistics
import sys
from collections import defaultdict

times = defaultdict(list)
for path in sys.argv[1:]:
    for line in open(path):
        ours = re.match(r'(\S+) (.+) run \d+: rc=0 .*"solve_seconds": ([0-9.]+)', line)
        oink = re.match(r'(\S+) (oink .+) run \d+: .*total solving time: ([0-9.]+)', line)
        match = oink or ours
        if match:
            times[(path, match.group(1), match.group(2))].append(float(match.group(3)))
for (path, game, config), values in times.items():
    print(f"{path}\t{game}\t{config}\t{statistics.median(values):.4f}\t"
          f"{min(values):.4f}-{max(values):.4f}\t{len(values)}")
