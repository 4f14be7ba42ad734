"""Per game of a run-b.txt or run-c.txt of this folder (bench.sh's lines):
the median (least-most) solve seconds of `--engine auto` and `--engine cpu`
and of each Oink solver timed in the rounds, the winners of `auto` (a solver on the CPU, or the GPU), and
auto's median over the fastest Oink median. Usage: python3 table.py FILE..."""
import re
import statistics
import sys
from collections import Counter, defaultdict

times = defaultdict(list)
winners = defaultdict(Counter)
order = []
for path in sys.argv[1:]:
    for line in open(path):
        ours = re.match(r'(\S+) (auto|cpu) run \d+: rc=0 .*"solver": "(\w+)", "race_winner": '
                        r'(?:"(\w+)"|null), "solve_seconds": ([0-9.]+)', line)
        oink = re.match(r"(\S+) oink (.+) run \d+: ([0-9.]+)$", line.strip())
        if ours:
            game, config, seconds = ours.group(1), ours.group(2), float(ours.group(5))
            # A race the GPU won names the solver of the GPU's rest.
            winner = "the gpu" if ours.group(4) == "gpu" else ours.group(3)
            winners[game][winner] += config == "auto"
        elif oink:
            game, config, seconds = oink.group(1), "oink " + oink.group(2), float(oink.group(3))
        else:
            continue
        if game not in order:
            order.append(game)
        times[(game, config)].append(seconds)


def cell(values):
    return f"{statistics.median(values):.4f} ({min(values):.4f}-{max(values):.4f})"


print("| game | auto | cpu | Oink | auto's winners | auto / Oink's fastest |")
print("| --- | ---: | ---: | --- | --- | ---: |")
for game in order:
    oinks = {c: v for (g, c), v in times.items() if g == game and c.startswith("oink")}
    fastest = min(statistics.median(v) for v in oinks.values())
    auto = times[(game, "auto")]
    print(f"| {game} | {cell(auto)} | {cell(times[(game, 'cpu')])} | "
          + "; ".join(f"`{c[5:]}` {cell(v)}" for c, v in oinks.items())
          + f" | {', '.join(f'{s} {n}' for s, n in winners[game].most_common() if n)} | "
          f"{statistics.median(auto) / fastest:.2f} |")
