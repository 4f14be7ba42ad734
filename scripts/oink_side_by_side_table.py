#!/usr/bin/env python3
"""Markdown tables from the output of scripts/oink_side_by_side.sh.

Usage: scripts/oink_side_by_side_table.py SIDE_BY_SIDE.tsv [ORACLES.tsv]

ORACLES.tsv (../shared/parity/oracles.tsv) only adds the vertex and edge counts and orders the games by size.
Prints: the per-game summary (best of each tool by whole-command wall-clock time and by the tool's own
solve time, the ratio warpcheck / Oink of each, and the defaults: warpcheck `auto` against Oink's default
`tl`), the win/loss counts, and the full per-solver wall-clock table.
"""
import csv
import math
import sys


def num(x):
    try:
        return float(x)
    except ValueError:
        return None


def fmt(t):
    if t is None:
        return "-"
    if t >= 1:
        return f"{t:.2f}"
    if t >= 0.001:
        return f"{t * 1e3:.2f} ms"
    return f"{t * 1e6:.0f} µs"


def best(rows, key):
    done = [(num(r[key]), r["solver"]) for r in rows if r["status"] == "ok" and num(r[key]) is not None]
    return min(done) if done else (None, None)


def ratio(a, b):
    if a is None and b is None:
        return None, "both out"
    if a is None:
        return math.inf, "Oink only"
    if b is None:
        return 0.0, "warpcheck only"
    b = max(b, 1e-7)
    return a / b, f"{a / b:.2f}"


def main():
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    size = {}
    if len(sys.argv) > 2:
        for o in csv.DictReader(open(sys.argv[2]), delimiter="\t"):
            size[o["game"]] = (int(o["vertices"]), int(o["edges"]))
    games = sorted({r["game"] for r in rows}, key=lambda g: (size.get(g, (0, 0))[0], g))
    by = {g: [r for r in rows if r["game"] == g] for g in games}
    bad = [r for r in rows if r["agrees"] == "no" or r["status"].startswith("FAIL")]

    print("| game | vertices | edges | Oink best wall | warpcheck best wall | ratio wall | "
          "Oink best solve | warpcheck best solve | ratio solve | ratio auto/tl wall | ratio auto/tl solve |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    tally = {k: [0, 0, 0] for k in ("wall", "solve", "dwall", "dsolve")}  # warpcheck wins, Oink wins, tie/none
    ratios = {k: [] for k in tally}
    for g in games:
        oink = [r for r in by[g] if r["tool"] == "oink"]
        wc = [r for r in by[g] if r["tool"] == "warpcheck"]
        cells = []
        for kind, key in (("wall", "wall_s"), ("solve", "solve_s")):
            (ot, os_), (wt, ws) = best(oink, key), best(wc, key)
            r, text = ratio(wt, ot)
            cells += [f"{fmt(ot)} ({os_})" if ot is not None else "timeout",
                      f"{fmt(wt)} ({ws})" if wt is not None else "timeout", text]
            record(tally[kind], ratios[kind], r)
        for kind, key in (("dwall", "wall_s"), ("dsolve", "solve_s")):
            ot = best([r for r in oink if r["solver"] == "tl"], key)[0]
            wt = best([r for r in wc if r["solver"] == "auto"], key)[0]
            r, text = ratio(wt, ot)
            cells.append(text)
            record(tally[kind], ratios[kind], r)
        v, e = size.get(g, ("", ""))
        print(f"| {g} | {v} | {e} | " + " | ".join(cells) + " |")

    print()
    names = {"wall": "best vs best, whole command", "solve": "best vs best, own solve time",
             "dwall": "auto vs tl (defaults), whole command", "dsolve": "auto vs tl (defaults), own solve time"}
    print("| comparison | warpcheck faster | Oink faster | neither finished | geometric mean of ratios (both finished) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for k, (w, o, n) in tally.items():
        fin = [r for r in ratios[k] if 0 < r < math.inf]
        gm = math.exp(sum(map(math.log, fin)) / len(fin)) if fin else float("nan")
        print(f"| {names[k]} | {w} | {o} | {n} | {gm:.2f} |")

    print()
    solvers = []
    for r in rows:
        if (r["tool"], r["solver"]) not in solvers:
            solvers.append((r["tool"], r["solver"]))
    print("| game | " + " | ".join(f"{t[0]}:{s}" for t, s in solvers) + " |")
    print("| --- |" + " ---: |" * len(solvers))
    for g in games:
        cell = {(r["tool"], r["solver"]): r for r in by[g]}
        out = []
        for t, s in solvers:
            r = cell.get((t, s))
            out.append("" if r is None else fmt(num(r["wall_s"])) if r["status"] == "ok" else r["status"])
        print(f"| {g} | " + " | ".join(out) + " |")
    print()
    print("Rows that failed or disagree: " + (", ".join(f"{r['game']} {r['tool']}:{r['solver']} "
                                                    f"{r['status']} agrees={r['agrees']}" for r in bad) or "none"))


def record(tally, ratios, r):
    if r is None:
        tally[2] += 1
        return
    ratios.append(r)
    tally[0 if r < 1 else 1] += 1


if __name__ == "__main__":
    main()
