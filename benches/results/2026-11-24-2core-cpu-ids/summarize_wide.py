#!/usr/bin/env python3
"""Summarises wide.tsv of wide.sh: per net, best and median elapsed
seconds with 4-byte (narrow) and 8-byte (wide) index entries, the median
of the per-round ratios wide / narrow, and the bytes a state of each."""
import csv
import statistics
import sys
from collections import defaultdict

runs = defaultdict(lambda: defaultdict(dict))
with open(sys.argv[1]) as tsv:
    for row in csv.DictReader(tsv, delimiter="\t"):
        runs[row["net"]][row["width"]][int(row["round"])] = row

print("| net | narrow: best / median s | wide: best / median s | median of round ratios | "
      "B/state narrow, wide |")
print("| --- | ---: | ---: | ---: | ---: |")
for net, by_width in runs.items():
    rounds = sorted(set(by_width["narrow"]) & set(by_width["wide"]))
    t = {w: [float(by_width[w][r]["elapsed_s"]) for r in rounds] for w in ("narrow", "wide")}
    ratio = statistics.median(wide / narrow for wide, narrow in zip(t["wide"], t["narrow"]))
    bps = {w: by_width[w][rounds[0]]["bytes_per_state"] for w in ("narrow", "wide")}
    print(f"| {net} | {min(t['narrow']):.3f} / {statistics.median(t['narrow']):.3f} | "
          f"{min(t['wide']):.3f} / {statistics.median(t['wide']):.3f} | {ratio:.3f} | "
          f"{bps['narrow']}, {bps['wide']} |")
print(f"\n{len(rounds)} rounds.")
