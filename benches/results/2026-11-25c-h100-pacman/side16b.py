"""pacman-100 on the 16-core GPU machine, the second run: warpcheck's `prob`
before and after this session's changes (GPU precomputations; CPU buffers),
GPU and CPU engines, with their -vv phase logs, beside Storm 2.0's sound
method (stormpy), one after the other in one process tree.

Usage: side16b.py UMB NAME=BINARY...: each binary in the order given, the
GPU engine then the CPU engine, then Storm."""
import json, subprocess, sys, time
import stormpy, stormpy.environments

umb = sys.argv[1]
binaries = [argument.split("=", 1) for argument in sys.argv[2:]]
prop = 'Pmin=? [ F "Crash" ]'


def say(line):
    print(line, flush=True)


def warpcheck(name, binary, engine):
    start = time.perf_counter()
    done = subprocess.run([binary, "--format", "json", "-vv", "prob", umb, "--property", prop, "--engine", engine,
                           "--precision", "1e-6", "--relative"], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        say(f"FAILED {name} {engine}: exit {done.returncode}: {done.stderr[-3000:]}")
        return
    r = json.loads(done.stdout)
    res = r["results"][0]
    say(f"warpcheck_{name}_{engine}\tvalue {res['value']!r} (bound {res['error_bound']})\tload_s {r['load_seconds']:.2f}"
        f"\tcheck_s {res['elapsed_seconds']:.2f}\ttotal_s {wall:.2f}\titerations {res['iterations']}")
    for line in done.stderr.splitlines():
        if "seconds" in line:
            say("    " + line.strip()[-400:])


for name, binary in binaries:
    for engine in ["gpu", "cpu"]:
        warpcheck(name, binary, engine)

start = time.perf_counter()
model = stormpy.build_model_from_umb(umb)
load = time.perf_counter() - start
say(f"storm_load\tload_s {load:.2f}\tstates {model.nr_states}\tchoices {model.nr_choices}\ttransitions {model.nr_transitions}")
formula = stormpy.parse_properties(prop)[0]
start = time.perf_counter()
result = stormpy.model_checking(model, formula, environment=stormpy.environments.sound())
check = time.perf_counter() - start
say(f"storm_sound\tvalue {result.get_value(model.initial_states[0])!r}\tcheck_s {check:.2f}\ttotal_s {load + check:.2f}")
