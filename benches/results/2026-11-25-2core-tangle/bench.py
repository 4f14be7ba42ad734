#!/usr/bin/env python3
"""Times `warpcheck parity --solver SOLVER` against Oink's `--tl` on Oink's
counter families, in the same run, each the least of REPEATS runs.

usage: bench.py WARPCHECK OINK GENERATORS GAMES_DIR REPEATS SOLVER FAMILY-N...
FAMILY-N is e.g. counter_ortl-2000: GENERATORS/FAMILY N writes the game
into GAMES_DIR unless it is there. Prints a Markdown table row per game:
our solve time (the JSON's solve_seconds), Oink's (its "solving took"),
their ratio, and both whole-command wall times."""
import json, os, re, subprocess, sys, time


def timed(command):
    start = time.monotonic()
    run = subprocess.run(command, capture_output=True, text=True)
    return run, time.monotonic() - start


def ours(binary, solver, game):
    run, wall = timed([binary, "parity", game, "--solver", solver, "--format", "json"])
    report = json.loads(run.stdout)
    return report["solve_seconds"], wall, report


def oinks(oink, game):
    run, wall = timed([oink, "--tl", game])
    took = re.search(r"solving took ([0-9.e-]+) sec", run.stdout + run.stderr)
    return float(took.group(1)), wall


def main():
    binary, oink, generators, games, repeats, solver = sys.argv[1:7]
    repeats = int(repeats)
    print("| game | vertices | ours solve s | Oink tl solve s | ours/Oink | ours wall s | Oink wall s | solver |")
    print("|---|---|---|---|---|---|---|---|")
    for name in sys.argv[7:]:
        family, n = name.rsplit("-", 1)
        game = os.path.join(games, name + ".pg")
        if not os.path.exists(game):
            with open(game, "w") as out:
                subprocess.run([os.path.join(generators, family), n], stdout=out, check=True)
        mine = [ours(binary, solver, game) for _ in range(repeats)]
        theirs = [oinks(oink, game) for _ in range(repeats)]
        solve = min(m[0] for m in mine)
        wall = min(m[1] for m in mine)
        report = mine[0][2]
        used = report["race_winner"] or report["solver"]
        oink_solve = min(t[0] for t in theirs)
        oink_wall = min(t[1] for t in theirs)
        print(f"| {name} | {report['vertices']} | {solve:.4f} | {oink_solve:.4f} | "
              f"{solve / oink_solve:.2f} | {wall:.3f} | {oink_wall:.3f} | {used} |", flush=True)


main()
