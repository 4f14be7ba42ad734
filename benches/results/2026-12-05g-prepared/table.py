#!/usr/bin/env python3
"""Issue 19's table from run-scaling.sh's log: every count checked, and
speed-ups over one GPU.

Usage: python3 table.py run-scaling.txt [oracles.tsv]

The oracles default to ../shared/mcc/oracles.tsv beside the repository.
The generated philosophers of n philosophers have Q(n) states, the
companion Pell number (Q(2) = 6, Q(3) = 14, Q(n) = 2 Q(n-1) + Q(n-2)),
T(n) transitions (T(2..5) = 8, 27, 88, 265, then
T(n) = 4 T(n-1) - 2 T(n-2) - 4 T(n-3) - T(n-4)) and one deadlock: both
recurrences were fitted to the CPU engine's counts for n = 2..8 and
checked against n = 9..12 and against n = 27's published 21,624,372,014
states and 3.77e11 transitions (docs/GPU.md). A run is exact when its
states, transitions and deadlock verdict equal the oracle's (the verdict
only where oracles.tsv knows it: not "unknown").
"""
import os
import statistics
import sys


def philosophers(n):
    states = {2: 6, 3: 14}
    moves = {2: 8, 3: 27, 4: 88, 5: 265}
    for k in range(4, n + 1):
        states[k] = 2 * states[k - 1] + states[k - 2]
    for k in range(6, n + 1):
        moves[k] = 4 * moves[k - 1] - 2 * moves[k - 2] - 4 * moves[k - 3] - moves[k - 4]
    return states[n], moves[n], True


def oracles(path):
    table = {}
    with open(path) as f:
        next(f)
        for line in f:
            model, states, moves, deadlock = line.rstrip("\n").split("\t")[:4]
            table[model] = (int(states), int(moves), {"yes": True, "no": False}.get(deadlock))
    return table


def oracle_of(net, known):
    if net.startswith("philosophers-"):
        return philosophers(int(net.split("-")[1]))
    return known.get(net)


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def main():
    log = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.join(here, "..", "..", "..", "..", "shared", "mcc", "oracles.tsv")
    known = oracles(sys.argv[2] if len(sys.argv) > 2 else default)
    header = None
    runs = []
    with open(log) as f:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if cells[0] == "net":
                header = cells
            elif header and len(cells) == len(header):
                runs.append(dict(zip(header, cells)))
    if not runs:
        sys.exit(f"{log}: no runs")
    wrong = 0
    times = {}
    for run in runs:
        oracle = oracle_of(run["net"], known)
        states, moves = run["states"], run["transitions"]
        deadlocks = number(run["deadlocks"])
        exact = (
            oracle is not None
            and states == str(oracle[0])
            and moves == str(oracle[1])
            and (oracle[2] is None or (deadlocks is not None and deadlocks > 0) == oracle[2])
        )
        run["exact"] = exact
        if not exact:
            wrong += 1
        seconds = number(run["search_s"])
        if exact and seconds:
            times.setdefault((run["net"], run["storage"]), {}).setdefault(int(run["gpus"]), []).append(seconds)
    print("| net | storage | GPUs | runs | search s (median) | states/s | speed-up | of linear | exchanged bytes/state | exact |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    seen = set()
    for run in runs:
        key = (run["net"], run["storage"], int(run["gpus"]))
        if key in seen:
            continue
        seen.add(key)
        same = [r for r in runs if (r["net"], r["storage"], int(r["gpus"])) == key]
        exact = all(r["exact"] for r in same)
        by_gpus = times.get(key[:2], {})
        mine = by_gpus.get(key[2])
        one = by_gpus.get(1)
        median = statistics.median(mine) if mine else None
        rate = int(same[0]["states"]) / median if median and same[0]["states"].isdigit() else None
        speedup = statistics.median(one) / median if median and one else None
        exchanged = [number(r["exchanged/state"]) for r in same if number(r["exchanged/state"]) is not None]
        print(
            f"| {key[0]} | {key[1]} | {key[2]} | {len(same)} "
            f"| {f'{median:.3f}' if median else '–'} "
            f"| {f'{rate:.3g}' if rate else '–'} "
            f"| {f'{speedup:.2f}×' if speedup else '–'} "
            f"| {f'{speedup / key[2]:.2f}' if speedup else '–'} "
            f"| {f'{statistics.median(exchanged):.1f}' if exchanged else '–'} "
            f"| {'yes' if exact else 'NO'} |"
        )
    largest = max((int(r["states"]) for r in runs if r["exact"]), default=0)
    print(f"\nlargest exact state space: {largest:,} states")
    if wrong:
        print(f"{wrong} run(s) not exact or not finished")
        sys.exit(1)


if __name__ == "__main__":
    main()
