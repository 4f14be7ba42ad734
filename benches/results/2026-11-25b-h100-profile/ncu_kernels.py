#!/usr/bin/env python3
"""Summarises an `ncu --metrics gpu__time_duration.sum --csv` log: the
launches in order (first N, or those between two markers of a kernel
name), then the time per kernel name over the whole log.

Usage: ncu_kernels.py LOG [--first N]"""
import csv
import sys
from collections import OrderedDict


def launches(path):
    with open(path) as f:
        lines = [line for line in f if line.startswith('"')]
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row["Metric Unit"]
        scale = {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1.0, "msecond": 1.0, "s": 1e3, "second": 1e3}[unit]
        name = row["Kernel Name"].split("(")[0]
        yield name, row["Grid Size"], row["Block Size"], value * scale


def main():
    path = sys.argv[1]
    first = int(sys.argv[sys.argv.index("--first") + 1]) if "--first" in sys.argv else 80
    rows = list(launches(path))
    print(f"{len(rows)} launches; first {min(first, len(rows))} in order (ms):")
    total = 0.0
    for i, (name, grid, block, ms) in enumerate(rows[:first]):
        total += ms
        print(f"  {i:4d} {name:32s} grid {grid:>14s} block {block:>12s} {ms:9.4f}  cum {total:9.3f}")
    by_name = OrderedDict()
    for name, _, _, ms in rows:
        count, sum_ms = by_name.get(name, (0, 0.0))
        by_name[name] = (count + 1, sum_ms + ms)
    print("per kernel over the log (launches, ms):")
    for name, (count, sum_ms) in sorted(by_name.items(), key=lambda kv: -kv[1][1]):
        print(f"  {name:32s} {count:6d} {sum_ms:10.3f}")


main()
