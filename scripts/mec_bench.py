"""MEC decomposition: Storm (stormpy) against `warpcheck mec`, driven by mec_bench.sh.

For every instance: builds the MDP from its QVBS PRISM file with stormpy,
writes it as an uncompressed UMB archive, times Storm's MEC decomposition
on the built model (best of --repeats), writes Storm's MECs in the `.mec`
format, runs `warpcheck mec` with each engine (best of --repeats as well),
checks that every engine wrote exactly Storm's MECs, and prints a table.
Timing columns: Storm's decomposition; warpcheck's `decompose_seconds`
(model already in memory, as Storm's) and `elapsed_seconds` (the whole
command, reading the UMB file included); the ratios are Storm / warpcheck.
"""

import argparse
import json
import os
import subprocess
import sys
import time

import stormpy
import stormpy.analysis
import stormpy.io

# name -> (PRISM file in the QVBS folder, constants)
INSTANCES = {
    "consensus-6-2": ("consensus.6.prism", "K=2"),
    "csma-3-4": ("csma.3-4.prism", ""),
    "zeroconf-1000-8-false": ("zeroconf.prism", "N=1000,K=8,reset=false"),
    "wlan-6-0": ("wlan.6.prism", "COL=0"),
    "firewire-36-200": ("firewire.true.prism", "delay=36,deadline=200"),
    "eajs-6-300": ("eajs.6.prism", "energy_capacity=300"),
    "pacman-100": ("pacman.nm", "MAXSTEPS=100"),
}
DEFAULT = ["consensus-6-2", "csma-3-4", "zeroconf-1000-8-false", "wlan-6-0"]


def log(message):
    print(message, file=sys.stderr, flush=True)


def build(qvbs, name):
    """The instance's MDP as Storm builds it from the PRISM file."""
    file, constants = INSTANCES[name]
    program = stormpy.parse_prism_program(os.path.join(qvbs, file), prism_compatibility=True)
    if constants:
        program, _ = stormpy.instantiate_constants(program, constants)
    return stormpy.build_model(program)


def storm_mecs(model, repeats):
    """Storm's MECs (sorted state lists, ordered by smallest state) and its best time."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        decomposition = stormpy.analysis.get_maximal_end_components(model)
        best = min(best, time.perf_counter() - start)
    mecs = sorted(sorted(state for state, _choices in mec) for mec in decomposition)
    return mecs, best


def write_mecs(path, mecs):
    with open(path, "w") as out:
        for mec in mecs:
            out.write(" ".join(map(str, mec)) + "\n")


def export_umb(model, path):
    options = stormpy.io.UmbExportOptions()
    options.compression = stormpy.io.CompressionMode.NO_COMPRESSION
    stormpy.io.export_to_umb(model, path, options=options)


def warpcheck_mec(binary, umb, engine, mec_file, repeats):
    """The JSON report of the fastest of `repeats` runs (by decompose_seconds)."""
    best = None
    for _ in range(repeats):
        command = [binary, "mec", umb, "--engine", engine, "--format", "json", "-q",
                   "--write-mecs", mec_file]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}: {done.stderr}")
        report = json.loads(done.stdout)
        if best is None or report["decompose_seconds"] < best["decompose_seconds"]:
            best = report
    return best


def same_file(a, b):
    with open(a, "rb") as x, open(b, "rb") as y:
        return x.read() == y.read()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--qvbs", required=True, help="folder with the QVBS .prism files")
    parser.add_argument("--work", required=True, help="folder for the .umb and .mec files")
    parser.add_argument("--warpcheck", required=True, help="the warpcheck binary")
    parser.add_argument("--engines", default="gpu,cpu,reference")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    parser.add_argument("instances", nargs="*", default=DEFAULT,
                        help=f"any of {', '.join(INSTANCES)} (default: {' '.join(DEFAULT)})")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    engines = args.engines.split(",")
    rows = []
    failures = []
    for name in args.instances:
        start = time.perf_counter()
        model = build(args.qvbs, name)
        log(f"{name}: built {model.nr_states} states, {model.nr_choices} choices, "
            f"{model.nr_transitions} transitions in {time.perf_counter() - start:.1f} s")
        umb = os.path.join(args.work, f"{name}.umb")
        export_umb(model, umb)
        mecs, storm_seconds = storm_mecs(model, args.repeats)
        storm_file = os.path.join(args.work, f"{name}.storm.mec")
        write_mecs(storm_file, mecs)
        log(f"{name}: Storm {len(mecs)} MECs in {storm_seconds:.3f} s")
        del model
        row = {"instance": name, "states": None, "choices": None, "transitions": None,
               "mecs": len(mecs), "states_in_mecs": sum(map(len, mecs)),
               "storm_seconds": storm_seconds, "engines": {}}
        for engine in engines:
            mec_file = os.path.join(args.work, f"{name}.{engine}.mec")
            report = warpcheck_mec(args.warpcheck, umb, engine, mec_file, args.repeats)
            equal = same_file(mec_file, storm_file)
            if not equal:
                failures.append(f"{name} {engine}: MECs differ from Storm's ({mec_file})")
            row.update(states=report["states"], choices=report["choices"],
                       transitions=report["transitions"])
            row["engines"][engine] = {
                "decompose_seconds": report["decompose_seconds"],
                "elapsed_seconds": report["elapsed_seconds"],
                "iterations": report["iterations"],
                "engine": report["engine"],
                "same_as_storm": equal,
            }
            log(f"{name}: {report['engine']}: decompose {report['decompose_seconds']:.3f} s, "
                f"total {report['elapsed_seconds']:.3f} s, same as Storm: {equal}")
        rows.append(row)
    print_table(rows, engines)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)
    for failure in failures:
        print(f"FAIL: {failure}")
    sys.exit(1 if failures else 0)


def print_table(rows, engines):
    header = ["instance", "states", "choices", "transitions", "MECs", "iter", "Storm s"]
    for engine in engines:
        header += [f"{engine} s", f"{engine} total s", f"Storm/{engine}", f"Storm/{engine} total"]
    header.append("MECs equal")
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        iterations = {e["iterations"] for e in row["engines"].values()}
        cells = [row["instance"], row["states"], row["choices"], row["transitions"],
                 row["mecs"], "/".join(map(str, sorted(iterations))),
                 f"{row['storm_seconds']:.3f}"]
        for engine in engines:
            figures = row["engines"][engine]
            cells += [f"{figures['decompose_seconds']:.3f}", f"{figures['elapsed_seconds']:.3f}",
                      f"{row['storm_seconds'] / max(figures['decompose_seconds'], 1e-9):.1f}x",
                      f"{row['storm_seconds'] / max(figures['elapsed_seconds'], 1e-9):.1f}x"]
        cells.append("yes" if all(e["same_as_storm"] for e in row["engines"].values()) else "NO")
        print("| " + " | ".join(map(str, cells)) + " |")


if __name__ == "__main__":
    main()
