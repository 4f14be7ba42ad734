#!/usr/bin/env python3
"""Call B: where compact roots spend beyond root pairs, both with queues.
Reads ncu's source pages (source-compact.csv.xz, source-pairs.csv.xz) of
one explore_levels launch on AutoFlight-PT-05a and prints, per kernel file
and for the busiest source lines, the warp-stall samples and the warp
instructions executed.

    python3 profile.py
"""
import collections
import csv
import io
import lzma
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load(kind):
    """Samples and instructions per (file, line)."""
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


for kind in ("compact", "pairs"):
    samples, instructions = load(kind)
    per_file = collections.Counter()
    per_file_instructions = collections.Counter()
    for (path, _), value in samples.items():
        per_file[path] += value
    for (path, _), value in instructions.items():
        per_file_instructions[path] += value
    print(f"== {kind}: {sum(samples.values())} samples, {sum(instructions.values()) / 1e9:.1f}e9 instructions")
    for path, value in per_file.most_common(6):
        print(f"  {path:24} {value:8} samples {per_file_instructions[path] / 1e9:6.2f}e9 instructions")
    print("  busiest lines:")
    for key, value in sorted(samples.items(), key=lambda kv: -kv[1])[:12]:
        print(f"    {key[0]}:{key[1]:<5} {value:8} samples {instructions[key] / 1e6:6.0f}M instructions")
