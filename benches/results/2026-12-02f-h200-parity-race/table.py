#!/usr/bin/env python3
"""Least and greatest solve time per game and contestant in a run-*.txt of
this folder (warpcheck's solve_seconds; Oink's "total solving time"), and
Oink's fastest solver; the failed or timed-out runs are counted apart."""
import re
import sys
from collections import defaultdict

times = defaultdict(list)
failed = defaultdict(int)
for line in open(sys.argv[1]):
    m = re.match(r"(\S+) (warpcheck(?:-old)? \S+(?: pp)?|oink \S+)(?: verified| run \d)?: (.*)", line)
    if not m:
        continue
    game, who, rest = m.groups()
    s = re.search(r'"solve_seconds": ([0-9.]+)', rest) or re.search(r"total solving time: ([0-9.]+)", rest)
    if s:
        times[(game, who)].append(float(s.group(1)))
    else:
        failed[(game, who)] += 1
games = sorted({g for g, _ in list(times) + list(failed)})
for game in games:
    print(f"== {game}")
    for (g, who), ts in sorted(times.items()):
        if g == game:
            print(f"  {who:28} {min(ts):.3f}-{max(ts):.3f} s ({len(ts)} runs)")
    for (g, who), n in sorted(failed.items()):
        if g == game:
            print(f"  {who:28} no result ({n} runs)")
    oink = [(min(ts), who) for (g, who), ts in times.items() if g == game and who.startswith("oink")]
    if oink:
        print(f"  Oink's fastest: {min(oink)[1]} {min(oink)[0]:.3f} s")
