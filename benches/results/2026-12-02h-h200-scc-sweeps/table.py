"""Set-up plus rounds in ms (passes) per graph and kernel tree, and
ECL-SCC's compute times, from the run-*.txt files given (issue 13)."""
import re
import sys

for name in sys.argv[1:]:
    tree, times = None, {}
    for line in open(name):
        if m := re.match(r"== scc_bench (\S+)", line):
            tree = m.group(1)
        elif m := re.match(
            r'(\S+) Coloring: [0-9.]+ s, \d+ rounds, (\d+) passes, phases .*"set-up", ([0-9.e-]+)\), '
            r'\("rounds", ([0-9.e-]+)\)',
            line,
        ):
            ms = (float(m.group(3)) + float(m.group(4))) * 1000
            times.setdefault((m.group(1), tree), []).append(f"{ms:.1f} ({m.group(2)})")
        elif m := re.match(r"== ECL-SCC (\S+)\.egr compute time: ([0-9.]+)", line):
            times.setdefault((m.group(1), "ECL-SCC"), []).append(f"{float(m.group(2)) * 1000:.1f}")
    print(f"## {name}")
    for (graph, tree), values in sorted(times.items()):
        print(f"{graph}\t{tree}\t{', '.join(values)}")
