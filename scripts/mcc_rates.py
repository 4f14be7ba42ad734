"""Edges per second of `warpcheck check` on the large nets of a folder laid
out like ../shared/mcc (MODEL/model.pnml and oracles.tsv), against their
median: issue 16 asks that no large contest net run more than 5x below the
median edges/s. Every run is checked against the published states, edges and
deadlock verdict; a mismatch fails the script.

Usage: python3 scripts/mcc_rates.py WARPCHECK DIR [--engine gpu]
         [--min-states 10000000] [--max-states N] [--repeats 1]
         [CHECK OPTIONS ...]   (any other option goes to `warpcheck check`)
Prints a TSV row per net (the best of --repeats runs by search time), then
the median and each net's ratio to it; exit status 1 on a mismatch or a
failed run.
"""
import argparse
import json
import statistics
import subprocess
import sys
import time


def run(args, pnml):
    command = [args.warpcheck, "check", pnml, "--deadlock", "--all", "--format", "json",
               "--engine", args.engine, *args.extra]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
    wall = time.perf_counter() - started
    try:
        return json.loads(done.stdout), wall
    except ValueError:
        return {"error": done.stderr.strip()[-300:]}, wall


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("warpcheck")
    parser.add_argument("dir")
    parser.add_argument("--engine", default="gpu")
    parser.add_argument("--min-states", type=int, default=10**7)
    parser.add_argument("--max-states", type=int, default=10**11)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300)
    args, args.extra = parser.parse_known_args()
    with open(f"{args.dir}/oracles.tsv") as table:
        rows = [line.rstrip("\n").split("\t") for line in table][1:]
    rows = [r for r in rows if args.min_states <= int(r[1]) <= args.max_states]
    rows.sort(key=lambda r: int(r[1]))
    print("model\tstates\ttransitions\texact\tsearch_s\twall_s\tstates_per_s\tedges_per_s\tstorage")
    rates, failures = {}, 0
    for model, states, edges, deadlock, *_ in rows:
        best = None
        for _ in range(args.repeats):
            report, wall = run(args, f"{args.dir}/{model}/model.pnml")
            found_deadlock = "yes" if report.get("deadlocks", 0) > 0 else "no"
            exact = (str(report.get("states")) == states
                     and str(report.get("transitions")) == edges
                     and deadlock in ("unknown", found_deadlock)
                     and report.get("exit_code", 4) <= 1)
            if not exact:
                failures += 1
                print(f"{model}\t{states}\t{edges}\tMISMATCH {report.get('states')} "
                      f"{report.get('transitions')} {report.get('error', '')}", flush=True)
                break
            if best is None or report["search_seconds"] < best[0]["search_seconds"]:
                best = (report, wall)
        if best is None or not exact:
            continue
        report, wall = best
        search = report["search_seconds"]
        rates[model] = int(edges) / search
        print(f"{model}\t{states}\t{edges}\tyes\t{search:.3f}\t{wall:.2f}\t"
              f"{int(states) / search:.3e}\t{rates[model]:.3e}\t{report.get('storage')}",
              flush=True)
    if rates:
        median = statistics.median(rates.values())
        print(f"\nmedian edges/s over {len(rates)} nets: {median:.3e}")
        for model, rate in sorted(rates.items(), key=lambda kv: kv[1]):
            flag = "  MORE THAN 5x BELOW" if rate < median / 5 else ""
            print(f"{model}\t{rate / median:.3f} of the median{flag}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
