"""Per game of a run-X.txt of this folder (bench.sh's lines): medians (least)
over the rounds of each configuration's solve seconds, prepare seconds
(ours, where reported), solve + prepare, and the process's wall-clock
seconds; then the ratios of our `after` configurations to Oink's fastest
median. Usage: python3 table.py FILE..."""
import re
import statistics
import sys
from collections import defaultdict

rows = defaultdict(lambda: defaultdict(list))
order = []
for path in sys.argv[1:]:
    for line in open(path):
        m = re.match(r"(\S+) (ours|oink) (.+) run \d+: wall ([0-9.]+)(.*)$", line.strip())
        if not m:
            continue
        game, who, config, wall, rest = m.groups()
        key = (who, config)
        if game not in order:
            order.append(game)
        cell = rows[game][key]
        if who == "oink":
            solve = re.search(r"solve ([0-9.]+)", rest)
            if not solve:
                continue
            cell.append((float(solve.group(1)), 0.0, float(wall)))
        else:
            solve = re.search(r'"solve_seconds": ([0-9.]+)', rest)
            prepare = re.search(r'"prepare_seconds": ([0-9.]+)', rest)
            if not solve:
                continue
            cell.append((float(solve.group(1)), float(prepare.group(1)) if prepare else 0.0,
                         float(wall)))


def med(values):
    return statistics.median(values)


for game in order:
    print(f"\n### {game}\n")
    print("| configuration | runs | solve | prepare | solve + prepare | wall |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    medians = {}
    for (who, config), cells in rows[game].items():
        solve = [c[0] for c in cells]
        prepare = [c[1] for c in cells]
        both = [c[0] + c[1] for c in cells]
        wall = [c[2] for c in cells]
        medians[(who, config)] = (med(solve), med(both), med(wall))
        name = f"{'Oink ' if who == 'oink' else ''}`{config}`"
        print(f"| {name} | {len(cells)} | {med(solve):.4f} ({min(solve):.4f}) | "
              f"{med(prepare):.4f} | {med(both):.4f} ({min(both):.4f}) | "
              f"{med(wall):.3f} ({min(wall):.3f}) |")
    oink = {k: v for k, v in medians.items() if k[0] == "oink"}
    if not oink:
        continue
    fastest_solve = min(oink.items(), key=lambda kv: kv[1][0])
    fastest_wall = min(oink.items(), key=lambda kv: kv[1][2])
    print(f"\nOink's fastest: solve `{fastest_solve[0][1]}` {fastest_solve[1][0]:.4f}, "
          f"wall `{fastest_wall[0][1]}` {fastest_wall[1][2]:.3f}\n")
    for (who, config), (solve, both, wall) in medians.items():
        if who == "ours":
            print(f"- `{config}` / Oink's fastest: solve {solve / fastest_solve[1][0]:.2f}, "
                  f"solve + prepare {both / fastest_solve[1][0]:.2f}, "
                  f"wall {wall / fastest_wall[1][2]:.2f}")
