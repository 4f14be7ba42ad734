"""Storm 2.0 (stormpy 2.0.0) on the same UMB files, sound environment,
precision as scripts/prob_bench.py sets it: one TSV row per run (model,
property, load s, check s, value), ROUNDS rounds.
Usage: python storm.py MODEL_DIR ROUNDS (with scripts/ on PYTHONPATH)."""

import os
import sys

import prob_bench

CASES = [
    ("zeroconf-1000-8-false.umb", 'Pmax=? [ F "correct" ]'),
    ("herman-15.umb", 'R{"steps"}=? [ F "stable" ]'),
]

models, rounds = sys.argv[1], int(sys.argv[2])
print("model\tproperty\tstorm_load_s\tstorm_sound_check_s\tvalue\tloadavg")
for _ in range(rounds):
    for model, text in CASES:
        value, load, check = prob_bench.storm(os.path.join(models, model), text, True)
        loadavg = open("/proc/loadavg").read().split()[0]
        print(f"{model}\t{text}\t{load}\t{check}\t{value}\t{loadavg}", flush=True)
