#!/usr/bin/env python3
"""Solves every game that has a .sol beside it with `warpcheck parity --verify`
and compares the winners with the .sol file.

usage: check_winners.py WARPCHECK SOLVER TIMEOUT DIR...
Prints one line per game: name, status (same / DIFFERENT / failed: exit code /
timeout), solve seconds, whole-command seconds."""
import glob, gzip, json, os, subprocess, sys, tempfile, time


def read_winners(path):
    opener = gzip.open if path.endswith(".gz") else open
    winners = {}
    with opener(path, "rt") as f:
        for line in f:
            line = line.strip().rstrip(";")
            if not line or line.startswith("paritysol"):
                continue
            fields = line.split()
            winners[int(fields[0])] = int(fields[1])
    return winners


def main():
    binary, solver, timeout, dirs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    games = []
    for d in dirs:
        games += sorted(glob.glob(os.path.join(d, "**", "*.pg"), recursive=True))
        games += sorted(glob.glob(os.path.join(d, "**", "*.pg.gz"), recursive=True))
    bad = 0
    for game in games:
        stem = game[:-6] if game.endswith(".pg.gz") else game[:-3]
        oracle = next((s for s in (stem + ".sol", stem + ".sol.gz") if os.path.exists(s)), None)
        if oracle is None:
            continue
        with tempfile.NamedTemporaryFile(suffix=".sol") as out:
            start = time.monotonic()
            run = subprocess.run(
                [binary, "parity", game, "--solver", solver, "--verify", "--format", "json",
                 "--timeout", timeout, "--write-solution", out.name],
                capture_output=True, text=True)
            wall = time.monotonic() - start
            if run.returncode == 3:
                status, solve = "timeout", float("nan")
            elif run.returncode not in (0,):
                status, solve = f"failed: exit {run.returncode}", float("nan")
                bad += 1
            else:
                report = json.loads(run.stdout)
                solve = report.get("solve_seconds") or float("nan")
                same = read_winners(out.name) == read_winners(oracle)
                status = "same" if same and report.get("verified") else "DIFFERENT"
                bad += status != "same"
        print(f"{os.path.relpath(game)}\t{status}\t{solve:.4f}\t{wall:.3f}", flush=True)
    sys.exit(1 if bad else 0)


main()
