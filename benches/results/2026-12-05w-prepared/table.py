#!/usr/bin/env python3
"""Set-up plus rounds in ms (passes) of colouring in call W's output, by
graph: with the labels its sample chose (and which), with the other
labels in the same process, and ECL-SCC's compute times; medians where a
graph ran three times or more:
    python3 table.py run-w.txt"""
import re
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)
ecl = defaultdict(list)
chosen = {}
for line in open(sys.argv[1]):
    m = re.match(r"== ECL-SCC (\S+)\.egr compute time: ([\d.]+) s", line)
    if m:
        ecl[m.group(1)].append(float(m.group(2)) * 1000)
        continue
    m = re.match(r"(\S+) Coloring(-\w+)?: .*? (\d+) passes, phases \[(.*)\](?:, labels Some\((\w+)\))?", line)
    if m:
        graph, other, passes, phases, labels = m.groups()
        phases = dict((k, float(v)) for k, v in re.findall(r'\("([^"]+)", ([\d.e-]+)\)', phases))
        ms = sum(v for k, v in phases.items() if k not in ("allocate", "summary")) * 1000
        runs[(graph, "other" if other else "chosen")].append((ms, passes))
        if labels:
            chosen[graph] = labels
print("| graph | chosen labels | with them | with the other labels | ECL-SCC |")
print("| --- | --- | --- | --- | --- |")
for g in sorted({g for g, _ in runs}):
    cells = [", ".join(f"{ms:.1f} ({p})" for ms, p in runs.get((g, v), [])) for v in ("chosen", "other")]
    peer = ", ".join(f"{t:.1f}" for t in ecl.get(g, []))
    print(f"| {g.split('-p0.5')[0]} | {chosen.get(g, '?')} | {cells[0]} | {cells[1]} | {peer} |")
print()
for g in sorted({g for g, _ in runs}):
    medians = [(v, statistics.median(ms for ms, _ in runs[(g, v)])) for v in ("chosen", "other") if len(runs.get((g, v), [])) >= 3]
    if len(ecl.get(g, [])) >= 3:
        medians.append(("ECL-SCC", statistics.median(ecl[g])))
    if medians:
        print(f"Medians, {g}: " + ", ".join(f"{v} {m:.2f}" for v, m in medians))
