#!/usr/bin/env python3
"""Processor time (user + system) of the CPU engine on one thread, before
and after, in interleaved rounds: unlike elapsed time on a shared machine,
it does not grow while other work holds the cores (cache sharing still
adds noise, hence the best of several rounds).

Usage: cputime.py BEFORE_BINARY AFTER_BINARY MCC_DIR [ROUNDS]
Writes cputime.tsv (one line a run) and cputime.md (best a model)."""
import json
import os
import subprocess
import sys

before, after, mcc = sys.argv[1:4]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
here = os.path.dirname(os.path.abspath(__file__))
# model and state cap (0: the whole state space)
models = [
    ("ARMCacheCoherence-PT-none", 1000000),
    ("ParamProductionCell-PT-0", 0),
    ("FlexibleBarrier-PT-06a", 0),
    ("Referendum-PT-0015", 3000000),
    ("Solitaire-PT-SqrNC5x5", 3000000),
    ("Peterson-PT-3", 0),
    ("ASLink-PT-01a", 3000000),
    ("AutoFlight-PT-05a", 3000000),
    ("DES-PT-01a", 3000000),
    ("DLCround-PT-03a", 3000000),
]
runs = []
with open(os.path.join(here, "cputime.tsv"), "w") as log:
    log.write("model\tcap\tbinary\tround\tstates\ttransitions\tprocessor_seconds\n")
    for round_ in range(1, rounds + 1):
        for model, cap in models:
            for which, binary in (("before", before), ("after", after)):
                command = [binary, "--format", "json", "check", f"{mcc}/{model}/model.pnml",
                           "--engine", "cpu", "--threads", "1"]
                if cap:
                    command += ["--max-states", str(cap)]
                print(f"round {round_}: {' '.join(command)}", file=sys.stderr)
                child = subprocess.Popen(command, stdout=subprocess.PIPE)
                output = child.stdout.read()
                _, _, usage = os.wait4(child.pid, 0)
                result = json.loads(output)
                seconds = usage.ru_utime + usage.ru_stime
                row = (model, cap, which, round_, result["states"], result["transitions"], seconds)
                runs.append(row)
                log.write("\t".join(map(str, row)) + "\n")
                log.flush()
with open(os.path.join(here, "cputime.md"), "w") as table:
    table.write(f"CPU engine on one thread: processor seconds (load and search), best of {rounds} "
                "interleaved rounds.\n\n")
    table.write("| model | cap | before | after | after / before |\n| --- | --- | ---: | ---: | ---: |\n")
    for model, cap in models:
        best = {w: min(r[6] for r in runs if r[0] == model and r[2] == w) for w in ("before", "after")}
        table.write(f"| {model} | {cap or 'none'} | {best['before']:.2f} | {best['after']:.2f} | "
                    f"{best['after'] / best['before']:.3f} |\n")
print(open(os.path.join(here, "cputime.md")).read())
