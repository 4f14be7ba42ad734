#!/usr/bin/env python3
"""Summarises runs.tsv from bench.sh: per net and mode, the best and the
median search time of each binary, the ratio after/before of the bests,
of the medians and the median of the per-round ratios, and the bytes a
state and peak resident memory (median) of each binary, as a Markdown table."""
import csv
import statistics
import sys
from collections import defaultdict

rows = defaultdict(lambda: defaultdict(dict))
for row in csv.DictReader(open(sys.argv[1]), delimiter="\t"):
    rows[(row["net"], row["mode"])][row["binary"]][int(row["round"])] = row

print("| net | mode | before best / median s | after best / median s | ratio of bests | "
      "ratio of medians | median of round ratios | B/state before, after | peak MiB before, after |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for (net, mode), by_binary in rows.items():
    before, after = by_binary["before"], by_binary["after"]
    rounds = sorted(set(before) & set(after))
    t = {b: [float(by_binary[b][r]["search_s"]) for r in rounds] for b in ("before", "after")}
    ratios = [a / b for a, b in zip(t["after"], t["before"])]
    bps = {b: statistics.median(float(by_binary[b][r]["bytes_a_state"]) for r in rounds)
           for b in ("before", "after")}
    peak = {b: statistics.median(int(by_binary[b][r]["peak_kib"]) for r in rounds) / 1024
            for b in ("before", "after")}
    print(f"| {net} | {mode} | {min(t['before']):.3f} / {statistics.median(t['before']):.3f} | "
          f"{min(t['after']):.3f} / {statistics.median(t['after']):.3f} | "
          f"{min(t['after']) / min(t['before']):.3f} | "
          f"{statistics.median(t['after']) / statistics.median(t['before']):.3f} | "
          f"{statistics.median(ratios):.3f} | {bps['before']:.1f}, {bps['after']:.1f} | "
          f"{peak['before']:.1f}, {peak['after']:.1f} |")
print(f"\n{len(rounds)} rounds.")
