"""Before/after `warpcheck prob --engine cpu -vv`, interleaved: each round runs every
(model, threads) case with the old binary and then the new one, under /usr/bin/time.
One TSV row per run: round, binary, model, threads, wall s, CPU s (user + system),
system s, peak RSS KB, load s, check s, iterations, value, error bound, the 1-minute
load average after the run, then every phase the run logged at -vv (name=seconds).
Usage: python3 bench.py OLD NEW ROUNDS MODEL_DIR:MODEL:PROPERTY... > runs.tsv"""
import json, re, subprocess, sys

old, new, rounds, cases = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
PHASE = re.compile(r"DEBUG warpcheck::[\w:]+: ([^=]+?) seconds=([0-9.e-]+)")
print("round\tbinary\tmodel\tthreads\twall_s\tcpu_s\tsys_s\trss_kb\tload_s\tcheck_s\titerations\tvalue\terror_bound\tloadavg\tphases")
for round_ in range(1, rounds + 1):
    for case in cases:
        folder, model, prop = case.split(":", 2)
        for threads in ("2", "1"):
            for label, binary in (("before", old), ("after", new)):
                run = subprocess.run(
                    ["/usr/bin/time", "-f", "TIME %e %U %S %M", binary, "-vv", "--format", "json", "prob",
                     f"{folder}/{model}", "--property", prop, "--engine", "cpu", "--threads", threads,
                     "--precision", "1e-6", "--relative"], capture_output=True, text=True)
                report = json.loads(run.stdout)
                result = report["results"][0]
                wall, user, system, rss = run.stderr.rsplit("TIME ", 1)[1].split()
                phases = " ".join(f"{name.replace(' ', '_')}={float(s):.2f}" for name, s in PHASE.findall(run.stderr))
                load = open("/proc/loadavg").read().split()[0]
                print("\t".join(map(str, [round_, label, model, threads, wall, round(float(user) + float(system), 2),
                      system, rss, round(report["load_seconds"], 2), round(result["elapsed_seconds"], 2),
                      result["iterations"], result["value"], result["error_bound"], load, phases])), flush=True)
