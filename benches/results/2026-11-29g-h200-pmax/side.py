"""Pmax and Rmin on the GPU machine before and after their searches moved
to the device (issue 14): for each instance of scripts/prob_bench.py given,
builds the model with stormpy, writes it as UMB, then runs `warpcheck prob`
twice over -- the build before (host precomputations) on the GPU, the build
after on the GPU and on the CPU, each with its -vv phase log -- and Storm's
sound method once; every value must lie within its error bound plus 1e-6
relative of Storm's.

Usage: side.py QVBS_DIR WORK BEFORE AFTER INSTANCE..."""
import json, os, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../scripts"))
import prob_bench  # noqa: E402

qvbs, work, before, after = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
failed = False


def say(line):
    print(line, flush=True)


def warpcheck(name, binary, umb, text, engine):
    start = time.perf_counter()
    done = subprocess.run([binary, "--format", "json", "-vv", "prob", umb, "--property", text,
                           "--engine", engine, "--precision", "1e-6", "--relative"],
                          capture_output=True, text=True)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        say(f"FAILED {name} {engine}: exit {done.returncode}: {done.stderr[-3000:]}")
        return None
    result = json.loads(done.stdout)["results"][0]
    say(f"  {name}_{engine}\tvalue {result['value']!r} (bound {result['error_bound']})"
        f"\ttotal_s {wall:.3f}\titerations {result['iterations']}")
    for line in done.stderr.splitlines():
        if "phases" in line or "rounds" in line:
            say("      " + line.strip()[-300:])
    return result


for instance in sys.argv[5:]:
    text = prob_bench.INSTANCES[instance][4]
    start = time.perf_counter()
    model = prob_bench.build(qvbs, instance, work)
    umb = os.path.join(work, f"{instance}.umb")
    prob_bench.export_umb(model, umb)
    say(f"{instance}\t{text}\tstates {model.nr_states}\ttransitions {model.nr_transitions}"
        f"\tbuilt in {time.perf_counter() - start:.1f} s")
    del model
    storm = prob_bench.storm_with_timeout(umb, text, True, 200)
    say(f"  storm_sound\t{storm}")
    for _ in range(2):
        for name, binary, engine in (("before", before, "gpu"), ("after", after, "gpu"),
                                     ("after", after, "cpu")):
            found = warpcheck(name, binary, umb, text, engine)
            if found is None or "value" not in storm:
                failed |= found is None
                continue
            reference = storm["value"]
            agrees = abs(found["value"] - reference) <= (
                found["error_bound"] + 1e-6 * abs(reference) + 1e-15)
            if not agrees:
                say(f"  DIFFERS from Storm's {reference!r}")
                failed = True
    os.remove(umb)
sys.exit(1 if failed else 0)
