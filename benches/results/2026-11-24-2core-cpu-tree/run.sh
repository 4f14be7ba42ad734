#!/usr/bin/env bash
# Tree against plain storage in the CPU engine on the Model Checking Contest
# nets of MCC_DIR (MODEL/model.pnml, or another model.* file, and
# oracles.tsv), every net whose oracle
# has at most MAX_STATES states, smallest first; for each net a plain run
# then a tree run of
#   BINARY check MODEL --engine cpu --storage S --no-trace --format json
# each under `timeout TIMEOUT`. Writes runs.tsv (one line a run) and
# table.md (one line a net, by table.sh) into OUT_DIR.
#
# Usage: run.sh BINARY MCC_DIR MAX_STATES TIMEOUT OUT_DIR
set -euo pipefail
binary="$1" mcc_dir="$2" max_states="$3" limit="$4" out="$5"
command -v jq >/dev/null || { echo "jq is needed" >&2; exit 2; }
runs="$out/runs.tsv"
printf 'model\tstorage\texit\tcompletion\tstates\ttransitions\twords\tsearch_s\tbytes_per_state\tmemory_bytes\n' >"$runs"
while IFS=$'\t' read -r model states _transitions _deadlock; do
    [[ "$model" == model ]] && continue
    ((states <= max_states)) || continue
    for storage in plain tree; do
        set +e
        file=$(ls "$mcc_dir/$model"/model.* | head -n 1)
        json=$(timeout "$limit" "$binary" check "$file" --engine cpu \
            --storage "$storage" --no-trace --format json 2>/dev/null)
        code=$?
        set -e
        if [[ -z "$json" ]]; then
            printf '%s\t%s\t%s\t-\t-\t-\t-\t-\t-\t-\n' "$model" "$storage" "$code" >>"$runs"
            continue
        fi
        jq -r --arg m "$model" --arg s "$storage" --arg c "$code" \
            '[$m, $s, $c, .completion, .states, .transitions, .vector_words, .search_seconds,
              .bytes_per_state, .memory_bytes] | @tsv' <<<"$json" >>"$runs"
    done
done <"$mcc_dir/oracles.tsv"

"$(dirname "${BASH_SOURCE[0]}")/table.sh" "$runs" "$mcc_dir/oracles.tsv" | tee "$out/table.md"
