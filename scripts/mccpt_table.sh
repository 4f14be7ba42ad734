#!/usr/bin/env bash
# Reads the place/transition nets of a folder laid out like ../shared/mcc-pt
# (MODEL/model.pnml plus oracles.tsv with a fifth column, the most tokens in a
# place) and prints, per net: load time, local transitions of the encoding
# (TransArray entries), state-vector bits, places whose bound is checked
# rather than proven, the largest bound against the oracle's token maximum,
# and an engine's states, edges and deadlock verdict against the oracle.
# Nets that look 1-safe but are not (marked *) are checked without options:
# `check` reads them again as place/transition nets itself; their encoding
# columns come from `info --place-bound 255`, the same reading. Exit status 1
# if any explored net mismatched or failed.
#
# Usage: scripts/mccpt_table.sh [options] [MCC_PT_DIR]
#   MCC_PT_DIR         default: ../shared/mcc-pt relative to the repository
#   --max-states N     explore only nets whose oracle has at most N states (default 10000000)
#   --engine ENGINE    engine passed to `warpcheck check --engine` (default cpu)
#   --timeout S        seconds allowed per net (default 600)
#   --no-build         use target/release/warpcheck as it is
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$repo/../shared/mcc-pt"
max_states=10000000
engine=cpu
per_model_timeout=600
build=yes
while (($#)); do
    case "$1" in
        --max-states) max_states="$2"; shift 2 ;;
        --engine) engine="$2"; shift 2 ;;
        --timeout) per_model_timeout="$2"; shift 2 ;;
        --no-build) build=no; shift ;;
        -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
        *) dir="$1"; shift ;;
    esac
done
oracles="$dir/oracles.tsv"
[[ -f "$oracles" ]] || { echo "no oracles.tsv in $dir" >&2; exit 2; }
command -v jq >/dev/null || { echo "jq is needed to read the JSON results" >&2; exit 2; }
[[ "$build" == no ]] || (cd "$repo" && cargo build --release --quiet --bin warpcheck)
warpcheck="$repo/target/release/warpcheck"

echo "# warpcheck --engine $engine, nets with at most $max_states states explored, from $dir"
format="%-37s %7s %8s %5s %5s %6s %6s | %11s %12s %-3s | %11s %12s %-3s %8s  %s\n"
# shellcheck disable=SC2059
printf "$format" model load_s entries bits chkd bound oracle exp.states exp.edges dl states edges dl search_s verdict
failures=0
while IFS=$'\t' read -r model states edges deadlock most_tokens; do
    [[ "$model" == model ]] && continue
    pnml="$dir/$model/model.pnml"
    options=()
    # A net that looks 1-safe is read as such by `info` (with a process
    # `1-safety` when some firing may add a second token): its encoding
    # columns come from the place/transition reading that `check` falls
    # back to, as these nets are not 1-safe.
    if "$warpcheck" info --format json "$pnml" |
        jq -e '.process_list | any(.name == "1-safety")' >/dev/null; then
        options=(--place-bound 255)
    fi
    name="$model"
    ((${#options[@]} == 0)) || name="$model*"
    started=$(date +%s.%N)
    info="$("$warpcheck" info --format json "${options[@]}" "$pnml")"
    load=$(echo "$(date +%s.%N) - $started" | bc)
    entries=$(jq -r .encoding_entries <<<"$info")
    bits=$(jq -r .vector_bits <<<"$info")
    checked=$(jq -r '[.process_list[] | select(.name == "place-bound") | .states - 1] | add // 0' <<<"$info")
    bound=$(jq -r '[.process_list[] | select(.name != "place-bound") | .states - 1] | max' <<<"$info")
    row=("$name" "$(printf %.3f "$load")" "$entries" "$bits" "$checked" "$bound" "$most_tokens" "$states" "$edges" "$deadlock")
    if ((states > max_states)); then
        # shellcheck disable=SC2059
        printf "$format" "${row[@]}" - - - - "not explored"
        continue
    fi
    json="$(timeout "$per_model_timeout" "$warpcheck" check "$pnml" \
        --deadlock --all --format json --engine "$engine" 2>/dev/null || true)"
    found_states="$(jq -r '.states // empty' <<<"$json" 2>/dev/null || true)"
    if [[ -z "$found_states" ]]; then
        # shellcheck disable=SC2059
        printf "$format" "${row[@]}" - - - - "FAILED (no result)"
        failures=$((failures + 1))
        continue
    fi
    found_edges="$(jq -r .transitions <<<"$json")"
    found_deadlock=no
    (($(jq -r .deadlocks <<<"$json") > 0)) && found_deadlock=yes
    verdict=OK
    if [[ "$found_states" != "$states" || "$found_edges" != "$edges" ]] ||
        [[ "$deadlock" != unknown && "$found_deadlock" != "$deadlock" ]] ||
        (($(jq -r .exit_code <<<"$json") > 1)); then
        verdict=MISMATCH
        failures=$((failures + 1))
    fi
    # shellcheck disable=SC2059
    printf "$format" "${row[@]}" "$found_states" "$found_edges" "$found_deadlock" \
        "$(jq -r .search_seconds <<<"$json")" "$verdict"
done <"$oracles"
exit $((failures > 0))
