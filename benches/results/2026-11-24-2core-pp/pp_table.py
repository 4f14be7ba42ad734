#!/usr/bin/env python3
"""Per game, warpcheck's `pp` beside Oink's `npp` and `pp`, from the output of scripts/oink_side_by_side.sh.

Usage: pp_table.py SIDE_BY_SIDE.tsv [ORACLES.tsv]
Prints a markdown table (own solve time and whole-command wall-clock time, least over the runs; ratio
warpcheck pp / the faster of Oink's npp and pp) and the counts and geometric means of those ratios.
"""
import csv
import math
import sys

sys.path.insert(0, "scripts")
from oink_side_by_side_table import fmt, num  # noqa: E402


def time(rows, tool, solver, key):
    for r in rows:
        if r["tool"] == tool and r["solver"] == solver and r["status"] == "ok":
            return num(r[key])
    return None


def main():
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    size = {}
    if len(sys.argv) > 2:
        for o in csv.DictReader(open(sys.argv[2]), delimiter="\t"):
            size[o["game"]] = int(o["vertices"])
    games = sorted({r["game"] for r in rows}, key=lambda g: (size.get(g, 0), g))
    print("| game | vertices | o:npp solve | o:pp solve | w:pp solve | ratio solve | o:npp wall | o:pp wall "
          "| w:pp wall | ratio wall |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios = {"solve_s": [], "wall_s": []}
    for g in games:
        mine = [r for r in rows if r["game"] == g]
        cells = [g, str(size.get(g, "?"))]
        for key in ["solve_s", "wall_s"]:
            npp, pp, ours = (time(mine, "oink", "npp", key), time(mine, "oink", "pp", key),
                             time(mine, "warpcheck", "pp", key))
            oink = min([t for t in (npp, pp) if t is not None], default=None)
            if ours is not None and oink is not None:
                r = ours / max(oink, 1e-7)
                ratios[key].append(r)
                shown = f"{r:.2f}"
            else:
                shown = "warpcheck only" if ours is not None else ("Oink only" if oink is not None else "both out")
            cells += [fmt(npp), fmt(pp), fmt(ours), shown]
        print("| " + " | ".join(cells) + " |")
    print()
    for key, label in [("solve_s", "own solve time"), ("wall_s", "whole command")]:
        rs = ratios[key]
        faster = sum(r < 1 for r in rs)
        mean = math.exp(sum(math.log(max(r, 1e-9)) for r in rs) / len(rs)) if rs else float("nan")
        print(f"- w:pp against the faster of o:npp and o:pp, {label}: warpcheck faster on {faster}, "
              f"Oink faster on {len(rs) - faster} of {len(rs)} games both finished; "
              f"geometric mean of ratios {mean:.2f}")


if __name__ == "__main__":
    main()
