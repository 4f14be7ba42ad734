#!/usr/bin/env bash
# Tree against plain storage in the CPU engine on the Model Checking Contest
# nets of MCC_DIR (MODEL/model.pnml, or another model.* file, and
# oracles.tsv), every net whose oracle
# has at most MAX_STATES states, smallest first; for each net a plain run
# then a tree run of
#   BINARY check MODEL --engine cpu --storage S --no-trace --format json
# each under `timeout TIMEOUT`. Writes runs.tsv (one line a run) and
# table.md (one line a net) into OUT_DIR.
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

# The table: oracle against both runs, bytes a state and the time ratio.
{
    echo "| model | words | oracle states | plain states | tree states | exact | plain s | tree s | tree/plain time | plain B/state | tree B/state | plain MiB | tree MiB |"
    echo "| --- | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    awk -F'\t' -v oracles="$mcc_dir/oracles.tsv" '
        BEGIN { while ((getline line < oracles) > 0) { split(line, f, "\t"); expect[f[1]] = f[2] "\t" f[3] } }
        NR == 1 { next }
        { key = $1; order[key] = order[key] ? order[key] : ++n; name[n] = key
          row[key, $2] = $0 }
        END {
          for (i = 1; i <= n; i++) {
            m = name[i]; split(expect[m], e, "\t")
            split(row[m, "plain"], p, "\t"); split(row[m, "tree"], t, "\t")
            exact = (p[4] == "complete" && t[4] == "complete" && p[5] == e[1] && t[5] == e[1] && p[6] == e[2] && t[6] == e[2]) ? "yes" : "no"
            if (p[4] != "complete" || t[4] != "complete") exact = "timeout " p[3] "/" t[3]
            ratio = (p[8] > 0 && t[8] > 0) ? sprintf("%.2f", t[8] / p[8]) : "-"
            pm = (p[10] > 0) ? sprintf("%.1f", p[10] / 1048576) : "-"
            tm = (t[10] > 0) ? sprintf("%.1f", t[10] / 1048576) : "-"
            ps = (p[8] > 0) ? sprintf("%.3f", p[8]) : "-"; ts = (t[8] > 0) ? sprintf("%.3f", t[8]) : "-"
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m, (p[7] ? p[7] : t[7]), e[1], p[5], t[5], exact, ps, ts, ratio, p[9], t[9], pm, tm
          }
        }' "$runs"
} >"$out/table.md"
cat "$out/table.md"
