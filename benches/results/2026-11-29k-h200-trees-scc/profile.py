#!/usr/bin/env python3
"""Where trees lose time against plain storage (call B): ncu's source page of
explore_levels (source-tree.csv.xz, source-plain.csv.xz), warp-stall samples
summed per kernel file and per source line. The two profiled launches did
unequal work, so samples are scaled to milliseconds of equal work: each
launch's share of its samples times its duration, the tree launch's duration
divided by its work relative to plain's (the successor generator's
instruction count, network.cuh line 62, the same code in both).

    python3 profile.py
"""
import collections
import csv
import io
import lzma
import os

HERE = os.path.dirname(os.path.abspath(__file__))
# Launch durations from details-*.csv (ms).
DURATION = {"tree": 182.69, "plain": 87.50}
WORK_LINE = ("explore/network.cuh", 62)


def load(kind):
    """Samples and executed instructions per (file, line)."""
    samples, instructions = {}, {}
    path, header = None, None
    with lzma.open(os.path.join(HERE, f"source-{kind}.csv.xz"), "rt") as f:
        for row in csv.reader(io.StringIO(f.read())):
            if not row:
                continue
            if row[0] == "File Path":
                path = row[1].split("/main/")[-1]
            elif row[0] == "Line No":
                header = row
            elif row[0] and header and row[0].isdigit():
                fields = dict(zip(header, row))
                key = (path, int(row[0]))
                samples[key] = int(fields["Warp Stall Sampling (All Samples)"])
                instructions[key] = int(fields["Instructions Executed"])
    return samples, instructions


tree, tree_instructions = load("tree")
plain, plain_instructions = load("plain")
work = tree_instructions[WORK_LINE] / plain_instructions[WORK_LINE]
scale = {
    "tree": DURATION["tree"] / work / sum(tree.values()),
    "plain": DURATION["plain"] / sum(plain.values()),
}
print(f"tree launch: {work:.3f} times plain's work; equal-work ms: "
      f"tree {DURATION['tree'] / work:.1f}, plain {DURATION['plain']:.1f}")
files = collections.defaultdict(lambda: [0.0, 0.0])
for (path, _), count in tree.items():
    files[path][0] += count * scale["tree"]
for (path, _), count in plain.items():
    files[path][1] += count * scale["plain"]
print("\nfile                      tree ms  plain ms")
for path, (t, p) in sorted(files.items(), key=lambda item: -item[1][0]):
    print(f"{path:24} {t:8.1f} {p:9.1f}")
print("\nlines that cost trees most beyond plain (ms of equal work)")
rows = []
for key in set(tree) | set(plain):
    t = tree.get(key, 0) * scale["tree"]
    p = plain.get(key, 0) * scale["plain"]
    rows.append((t - p, key, t, p))
for difference, (path, line), t, p in sorted(rows, reverse=True)[:12]:
    print(f"{path}:{line:<5} tree {t:6.2f}  plain {p:6.2f}  +{difference:.2f}")
