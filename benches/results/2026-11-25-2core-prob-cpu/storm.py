"""Storm 2.0 (stormpy 2.0.0) on the UMB files of bench.sh: one TSV row per
run with wall and CPU seconds (this process's user + system time) of
loading (`build_model_from_umb`) and of checking, with the sound
environment (`stormpy.environments.sound()`) and the default one (a plain
`Environment`), at Storm's default precision (1e-6 relative), as scripts/prob_bench.py
does. Usage: python storm.py MODEL_DIR ROUNDS."""

import os
import sys
import time

import stormpy
import stormpy.environments

CASES = [
    ("zeroconf-1000-8-false.umb", 'Pmax=? [ F "correct" ]'),
    ("herman-15.umb", 'R{"steps"}=? [ F "stable" ]'),
]


def clocks():
    return time.perf_counter(), time.process_time()


def run(path, text, sound):
    env = stormpy.environments.sound() if sound else stormpy.Environment()
    wall0, cpu0 = clocks()
    model = stormpy.build_model_from_umb(path)
    wall1, cpu1 = clocks()
    prop = stormpy.parse_properties(text)[0]
    result = stormpy.model_checking(model, prop, environment=env)
    wall2, cpu2 = clocks()
    return result.get_value(model.initial_states[0]), wall1 - wall0, cpu1 - cpu0, wall2 - wall1, cpu2 - cpu1


models, rounds = sys.argv[1], int(sys.argv[2])
print("model\tmethod\tload_wall_s\tload_cpu_s\tcheck_wall_s\tcheck_cpu_s\tvalue\tloadavg")
for _ in range(rounds):
    for model, text in CASES:
        for method, sound in (("sound", True), ("default", False)):
            value, lw, lc, cw, cc = run(os.path.join(models, model), text, sound)
            loadavg = open("/proc/loadavg").read().split()[0]
            print(f"{model}\t{method}\t{lw:.3f}\t{lc:.3f}\t{cw:.3f}\t{cc:.3f}\t{value!r}\t{loadavg}", flush=True)
