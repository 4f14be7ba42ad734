"""`warpcheck prob` against Storm (stormpy, sparse engine), driven by prob_bench.sh.

For every instance: builds the model from its QVBS PRISM file with stormpy
(labels the properties use appended to the program, as ../shared/prob did),
writes it as an uncompressed UMB archive, then times, on that one file:
Storm loading it (`build_model_from_umb`) and checking the property with
its sound environment (`stormpy.environments.sound()`) and with its
classic default methods (a plain `Environment`), and
`warpcheck prob` (the whole command, reading the file included) on each
engine given. Both at precision 1e-6 relative. Prints a table: the times,
the ratios Storm (load + check) / warpcheck (whole command), and whether
the values agree (warpcheck's value within its error bound plus Storm's
1e-6 relative of Storm's sound value).
"""

import argparse
import json
import multiprocessing
import os
import re
import subprocess
import sys
import time

import stormpy
import stormpy.environments

# name -> (PRISM file, constants, text appended to the program, or a
# replacement of its init block, property)
INSTANCES = {
    "zeroconf-1000-8-false": (
        "zeroconf.prism", "N=1000,K=8,reset=false",
        'label "correct" = l=4 & ip=1;', None, 'Pmax=? [ F "correct" ]'),
    "cluster-128": (
        "cluster.prism", "N=128", "", None, 'S=? [ "premium" ]'),
    "herman-15": (
        "herman.15.prism", "", "",
        " & ".join(f"x{i}=0" for i in range(1, 16)), 'R{"steps"}=? [ F "stable" ]'),
    "polling-18": (
        "polling.18.prism", "", 'label "s1wait" = s1=1 & !(s=1 & a=1);', None,
        'S=? [ "s1wait" ]'),
    "pacman-100": (
        "pacman.nm", "MAXSTEPS=100", "", None, 'Pmin=? [ F "Crash" ]'),
    "csma-3-4": (
        "csma.3-4.prism", "", "", None,
        'Pmax=? [ !"collision_max_backoff" U "all_delivered" ]'),
    "consensus-6-2": (
        "consensus.6.prism", "K=2", "", None, 'Pmax=? [ F "all_coins_equal_1" ]'),
    "wlan-6-0": (
        "wlan.6.prism", "COL=0",
        'label "sent" = s1=12 & s2=12; rewards "steps" true : 1; endrewards', None,
        'R{"steps"}min=? [ F "sent" ]'),
    "egl-10-8": (
        "egl.prism", "N=10,L=8", 'label "done" = phase=4;', None,
        'R{"messages_A_needs"}=? [ F "done" ]'),
}
DEFAULT = ["zeroconf-1000-8-false", "cluster-128", "herman-15", "polling-18"]
PRECISION = 1e-6


def log(message):
    print(message, file=sys.stderr, flush=True)


def build(qvbs, name, work):
    """The instance's model as Storm builds it from the (amended) PRISM file."""
    file, constants, appended, initial, _ = INSTANCES[name]
    with open(os.path.join(qvbs, file)) as source:
        text = source.read()
    if initial is not None:
        text, count = re.subn(r"\binit\b.*?\bendinit\b", f"init {initial} endinit", text,
                              flags=re.S)
        assert count == 1, f"{file}: no init block to replace"
    amended = os.path.join(work, f"{name}.prism")
    with open(amended, "w") as out:
        out.write(text + "\n" + appended + "\n")
    program = stormpy.parse_prism_program(amended, prism_compatibility=True)
    if constants:
        program, _ = stormpy.instantiate_constants(program, constants)
    # Without properties, Storm builds every label and reward model.
    return stormpy.build_model(program)


def export_umb(model, path):
    options = stormpy.io.UmbExportOptions()
    options.compression = stormpy.io.CompressionMode.NO_COMPRESSION
    stormpy.io.export_to_umb(model, path, options=options)


def storm(umb, text, sound):
    """Storm's value in the initial state, and its load and check times."""
    start = time.perf_counter()
    model = stormpy.build_model_from_umb(umb)
    loaded = time.perf_counter()
    prop = stormpy.parse_properties(text)[0]
    # stormpy's own default for double models is the sound environment;
    # a plain Environment gives Storm's classic (unsound) methods.
    env = stormpy.environments.sound() if sound else stormpy.Environment()
    result = stormpy.model_checking(model, prop, environment=env)
    checked = time.perf_counter()
    value = result.get_value(model.initial_states[0])
    del model
    return value, loaded - start, checked - loaded


def storm_with_timeout(umb, text, sound, timeout):
    """`storm` in a child process, stopped after `timeout` seconds (the
    time is then reported as a lower bound)."""
    queue = multiprocessing.Queue()
    child = multiprocessing.Process(
        target=lambda: queue.put(storm(umb, text, sound)), daemon=True)
    child.start()
    child.join(timeout)
    if child.is_alive():
        child.kill()
        return {"timeout_s": timeout}
    value, load, check = queue.get()
    return {"value": value, "load_s": load, "check_s": check}


def warpcheck(binary, umb, text, engine):
    command = [binary, "--format", "json", "-q", "prob", umb, "--property", text,
               "--engine", engine, "--precision", str(PRECISION), "--relative"]
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 3):
        raise RuntimeError(f"{' '.join(command)}: exit {done.returncode}: {done.stderr}")
    report = json.loads(done.stdout)
    result = report["results"][0]
    return {
        "wall_s": wall,
        "load_s": report["load_seconds"],
        "check_s": result["elapsed_seconds"],
        "iterations": result["iterations"],
        "value": float(result["value"]),
        "bound": float(result["error_bound"]),
        "converged": result["converged"],
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--qvbs", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--warpcheck", required=True)
    parser.add_argument("--json", required=True)
    parser.add_argument("--engines", default="gpu,cpu")
    parser.add_argument("--storm-timeout", type=float, default=150,
                        help="seconds Storm may take for one check")
    parser.add_argument("instances", nargs="*", default=DEFAULT)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    engines = args.engines.split(",")
    rows = []
    for name in args.instances:
        text = INSTANCES[name][4]
        start = time.perf_counter()
        model = build(args.qvbs, name, args.work)
        row = {"instance": name, "property": text, "type": str(model.model_type),
               "states": model.nr_states, "transitions": model.nr_transitions,
               "build_s": time.perf_counter() - start}
        umb = os.path.join(args.work, f"{name}.umb")
        export_umb(model, umb)
        del model
        log(f"{name}: {row['states']} states, {row['transitions']} transitions, "
            f"built in {row['build_s']:.1f} s")
        for method, sound in (("storm_sound", True), ("storm_default", False)):
            try:
                row[method] = storm_with_timeout(umb, text, sound, args.storm_timeout)
            except Exception as error:  # Storm refuses some methods for some properties
                row[method] = {"error": str(error)}
            log(f"  {method}: {row[method]}")
        reference = row["storm_sound"].get("value", row["storm_default"].get("value"))
        for engine in engines:
            found = warpcheck(args.warpcheck, umb, text, engine)
            if reference is not None:
                found["agrees"] = abs(found["value"] - reference) <= (
                    found["bound"] + PRECISION * abs(reference) + 1e-15)
            row[engine] = found
            log(f"  {engine}: {found}")
        os.remove(umb)
        rows.append(row)
        with open(args.json, "w") as out:
            json.dump(rows, out, indent=1)
    print_table(rows, engines)
    sys.exit(0 if all(row[e].get("agrees", True) for row in rows for e in engines) else 1)


def print_table(rows, engines):
    head = ["instance", "property", "states", "transitions", "Storm load s",
            "Storm sound s", "Storm default s"]
    for engine in engines:
        head += [f"{engine} s", f"{engine} load s", f"{engine} it",
                 f"Storm sound/{engine}", f"Storm default/{engine}", f"{engine} agrees"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for row in rows:
        sound, default = row["storm_sound"], row["storm_default"]
        load = sound.get("load_s", default.get("load_s", float("nan")))
        cells = [row["instance"], row["property"].replace("|", "\\|"), str(row["states"]),
                 str(row["transitions"]), f"{load:.3f}", seconds(sound), seconds(default)]
        for engine in engines:
            ours = row[engine]
            cells += [f"{ours['wall_s']:.3f}", f"{ours['load_s']:.3f}", str(ours["iterations"]),
                      ratio(sound, ours["wall_s"]), ratio(default, ours["wall_s"]),
                      "yes" if ours.get("agrees") else "NO"]
        print("| " + " | ".join(cells) + " |")


def seconds(run):
    """Storm's check time, `>T` when stopped, `-` when refused."""
    if "check_s" in run:
        return f"{run['check_s']:.3f}"
    return f">{run['timeout_s']}" if "timeout_s" in run else "-"


def ratio(run, ours):
    """Storm's load and check time over ours (`>x` when Storm was stopped)."""
    if "check_s" in run:
        return f"{(run['load_s'] + run['check_s']) / ours:.2f}x"
    return f">{run['timeout_s'] / ours:.1f}x" if "timeout_s" in run else "-"


if __name__ == "__main__":
    main()
