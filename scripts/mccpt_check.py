"""Exact state, edge and deadlock counts of `warpcheck check` against the
published figures of a folder laid out like ../shared/mcc-pt, on one engine
(for the GPU machine, where jq, which scripts/mccpt_table.sh needs, may be
missing). Nets that look 1-safe but are not are read again as place/transition
nets by `check` itself; their lines are marked *.

Usage: python3 scripts/mccpt_check.py WARPCHECK DIR [--engine gpu]
         [--max-states N] [--timeout S]
Prints a line per net; exit status 1 when a count differs or a run fails.
"""
import argparse
import json
import os
import subprocess
import sys
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("warpcheck")
    parser.add_argument("dir")
    parser.add_argument("--engine", default="gpu")
    parser.add_argument("--max-states", type=int, default=10**9)
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    failures = 0
    with open(os.path.join(args.dir, "oracles.tsv")) as table:
        rows = [line.rstrip("\n").split("\t") for line in table][1:]
    for model, states, edges, deadlock, _ in rows:
        if int(states) > args.max_states:
            print(f"{model}\t{states}\tskipped (more than {args.max_states} states)")
            continue
        pnml = os.path.join(args.dir, model, "model.pnml")
        command = [args.warpcheck, "check", pnml, "--deadlock", "--all",
                   "--format", "json", "--engine", args.engine]
        started = time.perf_counter()
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=args.timeout)
            report = json.loads(done.stdout)
        except (subprocess.TimeoutExpired, ValueError) as error:
            print(f"{model}\t{states}\tFAILED: {error}")
            failures += 1
            continue
        wall = time.perf_counter() - started
        found_deadlock = "yes" if report.get("deadlocks", 0) > 0 else "no"
        same = (str(report.get("states")) == states and str(report.get("transitions")) == edges
                and (deadlock == "unknown" or deadlock == found_deadlock)
                and report.get("exit_code", 2) <= 1)
        failures += not same
        read_again = any("read again" in w for w in report.get("warnings", []))
        print(f"{model}{'*' if read_again else ''}\t{states}\t{report.get('states')}\t{edges}\t"
              f"{report.get('transitions')}\t{deadlock}/{found_deadlock}\t{wall:.2f} s\t"
              f"{'OK' if same else 'MISMATCH ' + str(report.get('error', ''))}", flush=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
