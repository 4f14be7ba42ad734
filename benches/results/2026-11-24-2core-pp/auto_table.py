#!/usr/bin/env python3
"""Markdown table from auto_before_after.sh's output: per game, the old and the new `auto`.

Usage: auto_table.py AUTO_BEFORE_AFTER.tsv [ORACLES.tsv]
Prints one row per game (ordered by size when ORACLES.tsv is given) with both builds' least whole-command
and own solve times, the solver that finished, and the ratios new / old; then the counts and geometric
means of the ratios.
"""
import csv
import math
import sys

sys.path.insert(0, "scripts")
from oink_side_by_side_table import fmt, num  # noqa: E402


def main():
    rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
    size = {}
    if len(sys.argv) > 2:
        for o in csv.DictReader(open(sys.argv[2]), delimiter="\t"):
            size[o["game"]] = int(o["vertices"])
    rows.sort(key=lambda r: (size.get(r["game"], 0), r["game"]))
    print("| game | vertices | old wall | new wall | ratio wall | old solve | new solve | ratio solve |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    ratios = {"wall": [], "solve": []}
    for r in rows:
        cells = [r["game"], str(size.get(r["game"], "?"))]
        for key in ["wall", "solve"]:
            old, new = num(r[f"before_{key}_s"]), num(r[f"after_{key}_s"])
            if old and new:
                ratios[key].append(new / old)
                shown = f"{new / old:.2f}"
            else:
                shown = "-"
            old_cell = fmt(old) + (f" ({r['before_solver']})" if key == "solve" else "")
            new_cell = fmt(new) + (f" ({r['after_solver']})" if key == "solve" else "")
            cells += [old_cell, new_cell, shown]
        print("| " + " | ".join(cells) + " |")
    print()
    for key, label in [("wall", "whole command"), ("solve", "own solve time")]:
        rs = ratios[key]
        faster = sum(x < 1 for x in rs)
        mean = math.exp(sum(math.log(x) for x in rs) / len(rs))
        print(f"- {label}: new faster on {faster}, old faster on {len(rs) - faster} of {len(rs)} games; "
              f"geometric mean of new / old {mean:.2f}")


if __name__ == "__main__":
    main()
