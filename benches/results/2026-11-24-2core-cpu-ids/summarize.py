#!/usr/bin/env python3
"""Summarises a runs TSV of bench.sh as a Markdown table: per net and mode,
the best and the median search time of each binary, the ratios after /
before of the bests, of the medians and the median of the per-round
ratios, the same median for processor time (user + system) where the file
has it, and the median bytes a state and peak resident memory of each."""
import csv
import statistics
import sys
from collections import defaultdict

BINARIES = ("before", "after")
rows = defaultdict(lambda: defaultdict(dict))
with open(sys.argv[1]) as runs:
    for row in csv.DictReader(runs, delimiter="\t"):
        rows[(row["net"], row["mode"])][row["binary"]][int(row["round"])] = row


def median_ratio(by_binary, rounds, figure):
    """The median over rounds of after / before of `figure(row)`."""
    return statistics.median(
        figure(by_binary["after"][r]) / figure(by_binary["before"][r]) for r in rounds
    )


def processor(row):
    return float(row["user_s"]) + float(row["sys_s"])


has_processor = False
lines = []
for (net, mode), by_binary in rows.items():
    rounds = sorted(set(by_binary["before"]) & set(by_binary["after"]))
    search = {b: [float(by_binary[b][r]["search_s"]) for r in rounds] for b in BINARIES}
    best = {b: min(search[b]) for b in BINARIES}
    median = {b: statistics.median(search[b]) for b in BINARIES}
    bps = {
        b: statistics.median(float(by_binary[b][r]["bytes_a_state"]) for r in rounds)
        for b in BINARIES
    }
    peak = {
        b: statistics.median(int(by_binary[b][r]["peak_kib"]) for r in rounds) / 1024
        for b in BINARIES
    }
    cpu = "n/a"
    if by_binary["before"][rounds[0]].get("user_s"):
        has_processor = True
        cpu = f"{median_ratio(by_binary, rounds, processor):.3f}"
    lines.append(
        f"| {net} | {mode} | {best['before']:.3f} / {median['before']:.3f} | "
        f"{best['after']:.3f} / {median['after']:.3f} | {best['after'] / best['before']:.3f} | "
        f"{median['after'] / median['before']:.3f} | "
        f"{median_ratio(by_binary, rounds, lambda row: float(row['search_s'])):.3f} | {cpu} | "
        f"{bps['before']:.1f}, {bps['after']:.1f} | {peak['before']:.1f}, {peak['after']:.1f} |"
    )
print(
    "| net | mode | before: best / median s | after: best / median s | ratio of bests | "
    "ratio of medians | median of round ratios | same, processor time | "
    "B/state before, after | peak MiB before, after |"
)
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
print("\n".join(lines))
print(f"\n{len(rounds)} rounds{'' if has_processor else '; no processor times in this file'}.")
