#!/usr/bin/env bash
# The cost of 8-byte index entries on nets of a few million states: one
# build of examples/engine_run.rs (no traces, deadlocks checked, all
# findings), numbering states from 0 (4-byte entries) or from 2^33 (8-byte
# entries from the start), interleaved, alternating the order each round.
# Usage: wide.sh ENGINE_RUN ROUNDS MCC_DIR > wide.tsv
set -euo pipefail
engine_run=$1 rounds=$2 mcc=$3
nets=(Peterson-PT-3 FlexibleBarrier-PT-06a ParamProductionCell-PT-0 ResAllocation-PT-R003C010)
run() { # label first-id net round
    local json
    json=$("$engine_run" "$mcc/$3/model.pnml" --threads 2 --first-id "$2")
    python3 -c 'import json, sys; r = json.loads(sys.argv[1]); print("\t".join(map(str, [sys.argv[2], sys.argv[3], sys.argv[4], r["states"], r["elapsed_seconds"], r["memory_bytes"], round(r["bytes_per_state"], 2)])))' "$json" "$3" "$1" "$4"
}
printf 'net\twidth\tround\tstates\telapsed_s\tmemory_bytes\tbytes_per_state\n'
for round in $(seq 1 "$rounds"); do
    for net in "${nets[@]}"; do
        if (( round % 2 )); then
            run narrow 0 "$net" "$round"; run wide $((1 << 33)) "$net" "$round"
        else
            run wide $((1 << 33)) "$net" "$round"; run narrow 0 "$net" "$round"
        fi
    done
done
