#!/usr/bin/env bash
# The binaries of two commits side by side, interleaved rounds: the GPU
# engine on the four MCC nets of 10^8 states or more, the CPU engine (16
# threads) on three nets of 10^6 states or more. Search time is the
# `elapsed_seconds` of `check --deadlock --all --format json` (traces on);
# every count is printed.
#   bench_old_new.sh OLD_BINARY NEW_BINARY MCC_DIR [GPU_ROUNDS] [CPU_ROUNDS]
set -uo pipefail
old=$1 new=$2 mcc=$3 gpu_rounds=${4:-3} cpu_rounds=${5:-8}
run() { # binary engine model
    local extra=()
    [[ $2 == cpu ]] && extra=(--threads 16)
    { "$1" check "$mcc/$3/model.pnml" --engine "$2" "${extra[@]}" --deadlock --all --format json -q || true; } |
        python3 -c 'import json,sys; r=json.load(sys.stdin); print("%s %s %s: states %d transitions %d deadlocks %d | %.4f s" % (sys.argv[1], sys.argv[2], sys.argv[3], r["states"], r["transitions"], r["deadlocks"], r["elapsed_seconds"]))' "$1" "$2" "$3" ||
        echo "$1 $2 $3: failed"
}
for round in $(seq "$gpu_rounds"); do
    echo "## gpu round $round"
    for model in DES-PT-01a ASLink-PT-01a FlexibleBarrier-PT-08a Peterson-PT-4; do
        for binary in "$old" "$new"; do run "$binary" gpu "$model"; done
    done
done
for round in $(seq "$cpu_rounds"); do
    echo "## cpu round $round"
    for model in Peterson-PT-3 FlexibleBarrier-PT-06a Referendum-PT-0015; do
        for binary in "$old" "$new"; do run "$binary" cpu "$model"; done
    done
done
