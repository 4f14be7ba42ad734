#!/usr/bin/env bash
# Before (main at b71384b) against after (branch prob-cpu2) `warpcheck prob
# --engine cpu`, interleaved: ROUNDS rounds, each running every (model,
# threads) pair with the old binary and then the new one. One TSV row per
# run: binary, model, property, threads, wall s, CPU s (user + system),
# load s, check s, iterations, value, error bound, converged, peak RSS KB,
# 1-minute load average after the run.
# Usage: bench.sh OLD_BINARY NEW_BINARY MODEL_DIR ROUNDS > runs.tsv
set -euo pipefail
old=$1 new=$2 models=$3 rounds=$4
cases=(
    'zeroconf-1000-8-false.umb|Pmax=? [ F "correct" ]'
    'herman-15.umb|R{"steps"}=? [ F "stable" ]'
)
printf 'binary\tmodel\tproperty\tthreads\twall_s\tcpu_s\tload_s\tcheck_s\titerations\tvalue\terror_bound\tconverged\trss_kb\tloadavg\n'
for _ in $(seq "$rounds"); do
    for case in "${cases[@]}"; do
        model=${case%%|*} property=${case#*|}
        for threads in 1 2; do
            for label in old new; do
                binary=$old
                [[ $label == new ]] && binary=$new
                out=$({ /usr/bin/time -f '%e %U %S %M' nice "$binary" --format json -q prob \
                    "$models/$model" --property "$property" --engine cpu --threads "$threads" \
                    --precision 1e-6 --relative; } 2>&1)
                python3 -c '
import json, sys
text, label, model, prop, threads = sys.argv[1:]
start, end = text.index("{"), text.rindex("}")
report = json.loads(text[start:end + 1])
result = report["results"][0]
wall, user, system, rss = text[end + 1:].split()
load = open("/proc/loadavg").read().split()[0]
print("\t".join(map(str, [label, model, prop, threads, wall, round(float(user) + float(system), 2),
      report["load_seconds"], result["elapsed_seconds"], result["iterations"], result["value"],
      result["error_bound"], result["converged"], rss, load])))
' "$out" "$label" "$model" "$property" "$threads"
            done
        done
    done
done
