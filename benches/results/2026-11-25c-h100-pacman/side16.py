"""pacman-100 on the 16-core GPU machine: warpcheck's GPU and CPU engines
(`prob` and `mec`) beside Storm 2.0 (stormpy: sound and default methods,
MEC decomposition), one after the other in one process tree.

Usage: side16.py WARPCHECK UMB OUT_DIR"""
import json, os, subprocess, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../scripts"))
import stormpy, stormpy.environments
import mec_bench

binary, umb, out = sys.argv[1:4]
mec_dir = "/tmp/pacman-mecs"  # MEC lists stay on the machine: they may pass the size that comes back
os.makedirs(mec_dir, exist_ok=True)
prop = 'Pmin=? [ F "Crash" ]'


def say(line):
    print(line, flush=True)


def warpcheck(*args):
    start = time.perf_counter()
    done = subprocess.run([binary, "--format", "json", "-q", *args], capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        say(f"FAILED {args}: exit {done.returncode}: {done.stderr[-2000:]}")
        return None, wall
    return json.loads(done.stdout), wall


for engine in ["gpu", "cpu", "gpu", "cpu"]:
    r, wall = warpcheck("prob", umb, "--property", prop, "--engine", engine, "--precision", "1e-6", "--relative")
    if r:
        res = r["results"][0]
        say(f"warpcheck_prob_{engine}\tvalue {res['value']!r} (bound {res['error_bound']})\tload_s {r['load_seconds']:.2f}"
            f"\tcheck_s {res['elapsed_seconds']:.2f}\ttotal_s {wall:.2f}\t{r['engine']}")
        say("  " + json.dumps(r)[:3000])
for engine in ["gpu", "cpu", "gpu"]:
    r, wall = warpcheck("mec", umb, "--engine", engine, "--write-mecs", f"{mec_dir}/mecs-{engine}.txt")
    if r:
        say(f"warpcheck_mec_{engine}\tmecs {r['mecs']}\tstates_in_mecs {r['states_in_mecs']}\tdecompose_s {r.get('decompose_seconds')}"
            f"\telapsed_s {r['elapsed_seconds']}\ttotal_s {wall:.2f}")
        say("  " + json.dumps(r)[:2000])

start = time.perf_counter()
model = stormpy.build_model_from_umb(umb)
load = time.perf_counter() - start
say(f"storm_load\tload_s {load:.2f}\tstates {model.nr_states}\tchoices {model.nr_choices}\ttransitions {model.nr_transitions}")
formula = stormpy.parse_properties(prop)[0]
start = time.perf_counter()
result = stormpy.model_checking(model, formula, environment=stormpy.environments.sound())
check = time.perf_counter() - start
say(f"storm_sound\tvalue {result.get_value(model.initial_states[0])!r}\tcheck_s {check:.2f}\ttotal_s {load + check:.2f}")
mecs, best = mec_bench.storm_mecs(model, 1)
mec_bench.write_mecs(f"{mec_dir}/mecs-storm.txt", mecs)
say(f"storm_mec\tmecs {len(mecs)}\tstates_in_mecs {sum(map(len, mecs))}\tdecompose_s {best:.3f}")
for engine in ["gpu", "cpu"]:
    path = f"{mec_dir}/mecs-{engine}.txt"
    same = os.path.exists(path) and open(path, "rb").read() == open(f"{mec_dir}/mecs-storm.txt", "rb").read()
    say(f"mecs_{engine}_equal_storm\t{same}")
start = time.perf_counter()
result = stormpy.model_checking(model, formula, environment=stormpy.Environment())
check = time.perf_counter() - start
say(f"storm_default\tvalue {result.get_value(model.initial_states[0])!r}\tcheck_s {check:.2f}\ttotal_s {load + check:.2f}")
