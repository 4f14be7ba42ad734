#!/usr/bin/env python3
"""The table of the README from pp_vs_auto.sh's output: per game and build, pp's and auto's least
and median solve time, auto's extra time over pp and their ratio.

Usage: table.py RESULTS.tsv"""
import csv
import sys

rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
times = {(r["game"], r["build"], r["solver"]): r for r in rows}
games = list(dict.fromkeys(r["game"] for r in rows))
ms = lambda s: float(s) * 1e3
print("| game | build | pp least | auto least | auto - pp | auto / pp | pp median | auto median | auto - pp (median) |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for game in games:
    for build in ("old", "new"):
        pp, auto = times[(game, build, "pp")], times[(game, build, "auto")]
        least = ms(pp["least_solve_s"]), ms(auto["least_solve_s"])
        median = ms(pp["median_solve_s"]), ms(auto["median_solve_s"])
        print(f"| {game} | {build} | {least[0]:.1f} ms | {least[1]:.1f} ms | {least[1] - least[0]:+.1f} ms "
              f"| {least[1] / least[0]:.3f} | {median[0]:.1f} ms | {median[1]:.1f} ms | {median[1] - median[0]:+.1f} ms |")
