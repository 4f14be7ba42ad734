"""Storm 2.0 (stormpy) on the files of bench.py, sound environment and (optionally) the
default one, via scripts/prob_bench.py's `storm`: one TSV row per run with the value,
load and check wall seconds, their process CPU seconds, and the 1-minute load average.
Usage: /tmp/prob-venv/bin/python storm.py ROUNDS [--default] FOLDER:MODEL:PROPERTY..."""
import sys, time
sys.path.insert(0, "/work/main/scripts")
import prob_bench as pb

rounds, args = int(sys.argv[1]), sys.argv[2:]
methods = [("sound", True)] + ([("default", False)] if "--default" in args else [])
cases = [a for a in args if a != "--default"]
print("round\tmodel\tmethod\tvalue\tload_s\tcheck_s\tcpu_s\tloadavg")
for round_ in range(1, rounds + 1):
    for case in cases:
        folder, model, prop = case.split(":", 2)
        for method, sound in methods:
            cpu = time.process_time()
            value, load, check = pb.storm(f"{folder}/{model}", prop, sound)
            cpu = time.process_time() - cpu
            loadavg = open("/proc/loadavg").read().split()[0]
            print(f"{round_}\t{model}\t{method}\t{value!r}\t{load:.2f}\t{check:.2f}\t{cpu:.2f}\t{loadavg}", flush=True)
