#!/usr/bin/env python3
"""Set-up plus rounds in ms (passes) of each scc_bench run in a call's
output, by graph and variant, with medians where a graph ran three
times or more, and the whole decomposition against Tarjan
(gpu_coloring_s, best of 3 in a process, against tarjan_s in the same
process); ECL-SCC's compute times by graph:
    python3 table.py run-X.txt"""
import re
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
ratios = defaultdict(list)
ecl = defaultdict(list)
variant = None
for line in open(sys.argv[1]):
    m = re.match(r"== scc_bench (\S+)", line)
    if m:
        variant = m.group(1)
        continue
    m = re.match(r"== ECL-SCC (\S+)\.egr compute time: ([\d.]+) s", line)
    if m:
        ecl[m.group(1)].append(float(m.group(2)) * 1000)
        continue
    fields = line.split("\t")
    if len(fields) >= 10 and fields[4] not in ("tarjan_s",) and variant:
        try:
            ratios[(fields[0], variant)].append(float(fields[4]) / float(fields[8]))
        except ValueError:
            pass
    m = re.match(r"(\S+) Coloring: .*? (\d+) passes, phases \[(.*)\]", line)
    if m:
        phases = dict((k, float(v)) for k, v in re.findall(r'\("([^"]+)", ([\d.e-]+)\)', m.group(3)))
        ms = sum(v for k, v in phases.items() if k not in ("allocate", "summary")) * 1000
        runs[(m.group(1), variant)].append((ms, m.group(2)))
graphs = sorted({g for g, _ in runs})
variants = []
for _, v in runs:
    if v not in variants:
        variants.append(v)
print("| graph | " + " | ".join(variants) + " | ECL-SCC |")
print("| --- |" + " --- |" * (len(variants) + 1))
for g in graphs:
    cells = [", ".join(f"{ms:.1f} ({passes})" for ms, passes in runs.get((g, v), [])) for v in variants]
    short = g.split("-p0.5")[0]
    peer = ", ".join(f"{t:.1f}" for t in ecl.get(g, []))
    print(f"| {short} | " + " | ".join(cells) + f" | {peer} |")
print()
for g in graphs:
    medians = [(v, statistics.median(ms for ms, _ in runs[(g, v)])) for v in variants if len(runs.get((g, v), [])) >= 3]
    if len(ecl.get(g, [])) >= 3:
        medians.append(("ECL-SCC", statistics.median(ecl[g])))
    if medians:
        print(f"Medians, {g}: " + ", ".join(f"{v} {m:.2f}" for v, m in medians))
print()
print("Against Tarjan (whole decomposition):")
for g in graphs:
    print(g, "; ".join(f"{v} " + ", ".join(f"{r:.0f}x" for r in ratios.get((g, v), [])) for v in variants if (g, v) in ratios))
