"""Per graph and kernel tree, from the run-*.txt files and the logs-*.txt
files (unpacked) given (issue 13):
contraction plus set-up plus rounds in ms (passes), from the `phases` of
scc_bench's `Coloring` line; the whole decomposition (`gpu_coloring_s`,
best of 3 in a process, allocation and summary included) and Tarjan's
time in the same process (`tarjan_s`) with their ratio; ECL-SCC's compute
times."""
import re
import sys

for name in sys.argv[1:]:
    tree, times = None, {}
    for line in open(name):
        if m := re.match(r"== (?:scc_bench|log) (\S+)", line):
            tree = m.group(1)
        elif m := re.match(r"(\S+)\t\d+\t\d+\t\d+\t([0-9.]+)\t-\t-\t-\t([0-9.]+)\t", line):
            tarjan, whole = float(m.group(2)), float(m.group(3))
            times.setdefault((m.group(1), tree + " whole/Tarjan"), []).append(
                f"{whole * 1000:.1f}/{tarjan * 1000:.0f} = {tarjan / whole:.0f}x"
            )
        elif m := re.match(r"(\S+) Coloring: [0-9.]+ s, \d+ rounds, (\d+) passes, phases (.*)", line):
            phases = dict(re.findall(r'\("([a-z -]+)", ([0-9.e-]+)\)', m.group(3)))
            ms = sum(float(phases.get(p, 0)) for p in ("contract", "set-up", "rounds")) * 1000
            times.setdefault((m.group(1), tree), []).append(f"{ms:.1f} ({m.group(2)})")
        elif m := re.match(r"== ECL-SCC (\S+?)(?:\.egr)? compute time: ([0-9.]+)", line):
            times.setdefault((m.group(1), "ECL-SCC"), []).append(f"{float(m.group(2)) * 1000:.1f}")
    print(f"## {name}")
    for (graph, tree), values in sorted(times.items()):
        print(f"{graph}\t{tree}\t{', '.join(values)}")
