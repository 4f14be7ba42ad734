"""pacman-100 (QVBS, MAXSTEPS=100) on the 2-core machine: Storm 2.0 (stormpy, sound
environment, from the UMB file) and warpcheck's CPU engine, one after the other."""
import json, subprocess, sys, time
sys.path.insert(0, "/work/main/scripts")
import prob_bench as pb
umb, prop = "pacman-100.umb", 'Pmin=? [ F "Crash" ]'
value, load, check = pb.storm(umb, prop, True)
print(f"storm_sound\tvalue {value!r}\tload_s {load:.2f}\tcheck_s {check:.2f}\ttotal_s {load + check:.2f}", flush=True)
start = time.perf_counter()
out = subprocess.run(["/work/main/target/release/warpcheck", "--format", "json", "-q", "prob", umb, "--property", prop,
                      "--engine", "cpu", "--precision", "1e-6", "--relative"], capture_output=True, text=True)
wall = time.perf_counter() - start
r = json.loads(out.stdout)
res = r["results"][0]
print(f"warpcheck_cpu\tvalue {res['value']!r} (bound {res['error_bound']})\tload_s {r['load_seconds']:.2f}\tcheck_s {res['elapsed_seconds']:.2f}\ttotal_s {wall:.2f}\t{r['engine']}", flush=True)
