#!/usr/bin/env bash
# Interleaved rounds: for each round, each model file, each configuration
# LABEL=BINARY:STORAGE, one run of
#   BINARY check MODEL --engine cpu --storage STORAGE --no-trace --format json
# under `timeout TIMEOUT`; one line a run (round, model, label, states,
# search seconds, bytes a state, memory bytes) on stdout.
#
# Usage: rounds.sh ROUNDS TIMEOUT "LABEL=BINARY:STORAGE ..." MODEL...
set -euo pipefail
rounds="$1" limit="$2" configs="$3"
shift 3
printf 'round\tmodel\tconfig\tstates\tsearch_s\tbytes_per_state\tmemory_bytes\n'
for round in $(seq 1 "$rounds"); do
    for model in "$@"; do
        for config in $configs; do
            label="${config%%=*}" rest="${config#*=}"
            binary="${rest%:*}" storage="${rest##*:}"
            name="$(basename "$(dirname "$model")")"
            json=$(timeout "$limit" "$binary" check "$model" --engine cpu --storage "$storage" \
                --no-trace --format json 2>/dev/null || true)
            if [[ -z "$json" ]]; then
                printf '%s\t%s\t%s\t-\t-\t-\t-\n' "$round" "$name" "$label"
                continue
            fi
            jq -r --arg r "$round" --arg m "$name" --arg c "$label" \
                '[$r, $m, $c, .states, .search_seconds, .bytes_per_state, .memory_bytes] | @tsv' <<<"$json"
        done
    done
done
