"""`warpcheck prob` against the oracles of a folder of probabilistic models.

Runs the binary on every row of
FOLDER/oracles.tsv whose model (a .tra or .tra.gz with its .lab, else a .umb) is in FOLDER,
with the engine and precision given, and prints one line per row: the
value, the reported error bound, the oracle, and OK when they agree within
the bound (plus 1e-10 relative for the oracle's own rounding).
Usage: python3 scripts/prob_oracles.py BINARY FOLDER [--engine E] [--precision P]
Exit status 1 when a row disagrees or fails.
"""

import argparse
import csv
import json
import os
import subprocess
import sys


def model_file(folder, name):
    for candidate in (f"{name}.tra", f"{name}.tra.gz", f"{name}.umb"):
        path = os.path.join(folder, candidate)
        if os.path.exists(path):
            return path
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("folder")
    parser.add_argument("--engine", default="auto")
    parser.add_argument("--precision", default="1e-9")
    args = parser.parse_args()
    failed = 0
    with open(os.path.join(args.folder, "oracles.tsv")) as table:
        rows = list(csv.DictReader(table, delimiter="\t"))
    for row in rows:
        model = model_file(args.folder, row["instance"])
        if model is None:
            continue
        run = subprocess.run(
            [args.binary, "--format", "json", "prob", model, "--property", row["property"],
             "--engine", args.engine, "--precision", args.precision, "--relative"],
            capture_output=True, text=True)
        try:
            result = json.loads(run.stdout)["results"][0]
        except (ValueError, KeyError, IndexError):
            result = {"error": run.stderr.strip()}
        if result.get("error") is not None:
            print(f"{row['instance']}\t{row['property']}\tFAILED: {result['error']}")
            failed += 1
            continue
        expected = float(row["value"])
        value, bound = float(result["value"]), float(result["error_bound"])
        if expected == float("inf"):
            agrees = value == expected
        else:
            agrees = abs(value - expected) <= bound + 1e-10 * abs(expected) + 1e-15
        verdict = "OK" if agrees and result["converged"] else "DIFFERS"
        failed += verdict != "OK"
        print(f"{row['instance']}\t{row['property']}\t{value!r}\t±{bound:.2e}\t{expected!r}\t"
              f"{result['iterations']} it\t{result['elapsed_seconds']:.4f} s\t{verdict}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
