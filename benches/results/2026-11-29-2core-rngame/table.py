#!/usr/bin/env python3
"""Markdown tables from interleaved.sh's TSV: warpcheck's new build against Oink's fastest solver per game
and against the old build, for one column of times (solve_s or wall_s).

Usage: table.py TSV [solve_s|wall_s]
"""
import csv
import math
import sys


def load(path, column):
    """The TSV's rows by game and contestant (warning about disagreements), and the
    seconds of a row in `column` (infinite where it has none)."""
    games = {}
    for row in csv.DictReader(open(path), delimiter="\t"):
        games.setdefault(row["game"], {})[row["contestant"]] = row
        if row["agrees"] != "yes":
            print(f"WARNING: {row['game']} {row['contestant']} agrees={row['agrees']}", file=sys.stderr)

    def seconds(cell):
        return float(cell[column]) if cell and cell[column] not in ("-", "") else math.inf

    return games, seconds


def shown(s, ms_digits=2):
    if math.isinf(s):
        return "-"
    return f"{s:.2f} s" if s >= 1 else f"{s * 1e3:.{ms_digits}f} ms"


def main():
    games, seconds = load(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "solve_s")
    header = ["game", "Oink best", "old pp", "new pp", "old auto", "new auto",
              "new pp / Oink", "new auto / Oink", "pp new/old", "auto new/old"]
    print("| " + " | ".join(header) + " |")
    print("|" + " --- |" + " ---: |" * (len(header) - 1))
    ratios = {h: [] for h in header[6:]}
    for game, by in games.items():
        oink = min((c for c in by if c.startswith("oink:")), key=lambda c: seconds(by[c]))
        best = seconds(by[oink])
        t = {c: seconds(by.get(c)) for c in ("old:pp", "new:pp", "old:auto", "new:auto")}
        r = [t["new:pp"] / best, t["new:auto"] / best, t["new:pp"] / t["old:pp"], t["new:auto"] / t["old:auto"]]
        for h, x in zip(header[6:], r):
            ratios[h].append(x)
        print(f"| {game} | {shown(best)} ({oink[5:]}) | {shown(t['old:pp'])} | {shown(t['new:pp'])} | "
              f"{shown(t['old:auto'])} | {shown(t['new:auto'])} | " + " | ".join(f"{x:.2f}" for x in r) + " |")
    print()
    for h, xs in ratios.items():
        mean = math.exp(sum(map(math.log, xs)) / len(xs))
        if "Oink" in h:
            print(f"- {h}: geometric mean {mean:.2f}; at most 1.2 on {sum(x <= 1.2 for x in xs)} of {len(xs)} games")
        else:
            print(f"- {h}: geometric mean {mean:.2f}; new faster on {sum(x < 1 for x in xs)} of {len(xs)} games")


if __name__ == "__main__":
    main()
