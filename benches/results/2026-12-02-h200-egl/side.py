"""egl-10-8 beside Storm 2.0 (issue 14), run by run.sh on the GPU machine.

`side.py storm UMB PROPERTY sound|default`: loads UMB with stormpy and checks
PROPERTY in Storm's sound environment (or a plain Environment, Storm's
classic unsound methods); prints the load time as soon as it is known, so a
run stopped by `timeout` still reports it.

`side.py warpcheck BINARY UMB PROPERTY ENGINE`: one `warpcheck prob` run at
relative precision 1e-6 (Storm's sound default), timed around the process,
with its -vv debug lines (call 1, run.sh, printed only those naming phases,
sweeps, bytes or loading)."""
import json, subprocess, sys, time


def say(line):
    print(line, flush=True)


def storm(umb, text, method):
    import stormpy
    import stormpy.environments
    start = time.perf_counter()
    model = stormpy.build_model_from_umb(umb)
    loaded = time.perf_counter()
    say(f"  storm_{method}\tloaded in {loaded - start:.2f} s\tstates {model.nr_states}"
        f"\ttransitions {model.nr_transitions}")
    prop = stormpy.parse_properties(text)[0]
    env = stormpy.environments.sound() if method == "sound" else stormpy.Environment()
    result = stormpy.model_checking(model, prop, environment=env)
    checked = time.perf_counter()
    value = result.get_value(model.initial_states[0])
    say(f"  storm_{method}\tvalue {value!r}\tload_s {loaded - start:.2f}\tcheck_s {checked - loaded:.2f}"
        f"\ttotal_s {checked - start:.2f}")


def warpcheck(binary, umb, text, engine):
    start = time.perf_counter()
    done = subprocess.run([binary, "--format", "json", "-vv", "prob", umb, "--property", text,
                           "--engine", engine, "--precision", "1e-6", "--relative"],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 3):
        say(f"  FAILED {engine}: exit {done.returncode}: {done.stderr[-3000:]}")
        sys.exit(1)
    report = json.loads(done.stdout)
    result = report["results"][0]
    say(f"  warpcheck_{engine}\tvalue {result['value']!r}\tbound {result['error_bound']}"
        f"\tload_s {report['load_seconds']:.2f}\tcheck_s {result['elapsed_seconds']:.2f}"
        f"\ttotal_s {wall:.2f}\titerations {result['iterations']}\texit {done.returncode}")
    for line in done.stderr.splitlines():
        if "DEBUG" in line:
            say("      " + line.strip()[-400:])


if __name__ == "__main__":
    if sys.argv[1] == "storm":
        storm(*sys.argv[2:5])
    else:
        warpcheck(*sys.argv[2:6])
