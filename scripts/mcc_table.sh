#!/usr/bin/env bash
# Runs a warpcheck engine over the Model Checking Contest nets of a folder
# laid out like ../shared/mcc (MODEL/model.pnml plus oracles.tsv) and prints
# a table of expected against found figures. Exit status 1 if any model
# mismatched or failed.
#
# Usage: scripts/mcc_table.sh [options] [MCC_DIR]
#   MCC_DIR            default: ../shared/mcc relative to the repository
#   --max-states N     skip models whose oracle has more states (default 10000000)
#   --engine ENGINE    engine passed to `warpcheck check --engine` (default reference)
#   --example          use the mcc_count example (reference engine) instead of the CLI
#   --timeout S        seconds allowed per model (default 600)
#   --no-build         use the binaries already in target/release as they are
#   --args "A B"       more arguments for `warpcheck check` (e.g. "--gpus 2")
#   --bin PATH         the warpcheck binary to run (default target/release/warpcheck)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mcc_dir="$repo/../shared/mcc"
max_states=10000000
engine=reference
runner=cli
per_model_timeout=600
build=yes
extra_args=""
bin="$repo/target/release/warpcheck"

while (($#)); do
    case "$1" in
        --max-states) max_states="$2"; shift 2 ;;
        --engine) engine="$2"; shift 2 ;;
        --example) runner=example; shift ;;
        --timeout) per_model_timeout="$2"; shift 2 ;;
        --no-build) build=no; shift ;;
        --args) extra_args="$2"; shift 2 ;;
        --bin) bin="$2"; build=no; shift 2 ;;
        -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        -*) echo "unknown option $1 (see --help)" >&2; exit 2 ;;
        *) mcc_dir="$1"; shift ;;
    esac
done

oracles="$mcc_dir/oracles.tsv"
[[ -f "$oracles" ]] || { echo "no oracles.tsv in $mcc_dir" >&2; exit 2; }
# Field NAME of the JSON result on standard input (empty when absent):
# jq where it is installed, else Python.
if command -v jq >/dev/null; then
    field() { jq -r ".$1 // empty" 2>/dev/null; }
else
    field() {
        python3 -c 'import json, sys
try:
    value = json.load(sys.stdin).get(sys.argv[1])
except ValueError:
    value = None
print("" if value is None else value)' "$1" 2>/dev/null
    }
fi

if [[ "$runner" == cli ]]; then
    [[ "$build" == no ]] || (cd "$repo" && cargo build --release --quiet --bin warpcheck)
    run_model() {
        # shellcheck disable=SC2086
        timeout "$per_model_timeout" "$bin" check "$1" \
            --deadlock --all --format json --engine "$engine" $extra_args
    }
    label="warpcheck --engine $engine $extra_args"
else
    [[ "$build" == no ]] || (cd "$repo" && cargo build --release --quiet --example mcc_count)
    run_model() { timeout "$per_model_timeout" "$repo/target/release/examples/mcc_count" "$1"; }
    label="mcc_count (reference engine)"
fi

echo "# $label, models with at most $max_states states, from $mcc_dir"
format="%-26s %12s %13s %-7s | %12s %13s %-7s %9s %12s  %s\n"
# shellcheck disable=SC2059
printf "$format" model exp.states exp.trans exp.dl states transitions dl time_s states/s verdict
failures=0
while IFS=$'\t' read -r model states transitions deadlock; do
    [[ "$model" == model ]] && continue
    ((states <= max_states)) || continue
    pnml="$mcc_dir/$model/model.pnml"
    # A checker finding deadlocks may exit non-zero; only missing JSON is a failure.
    json="$(run_model "$pnml" 2>/dev/null || true)"
    found_states="$(field states <<<"$json" || true)"
    if [[ -z "$found_states" ]]; then
        # shellcheck disable=SC2059
        printf "$format" "$model" "$states" "$transitions" "$deadlock" - - - - - "FAILED (no result)"
        failures=$((failures + 1))
        continue
    fi
    found_transitions="$(field transitions <<<"$json")"
    found_deadlocks="$(field deadlocks <<<"$json")"
    seconds="$(field search_seconds <<<"$json")"
    found_deadlock=no
    ((found_deadlocks > 0)) && found_deadlock=yes
    verdict=OK
    if [[ "$found_states" != "$states" || "$found_transitions" != "$transitions" ]] ||
        [[ "$deadlock" != unknown && "$found_deadlock" != "$deadlock" ]]; then
        verdict=MISMATCH
        failures=$((failures + 1))
    fi
    rate="$(awk -v s="$found_states" -v t="$seconds" 'BEGIN { if (t > 0) printf "%.0f", s / t; else print "-" }')"
    # shellcheck disable=SC2059
    printf "$format" "$model" "$states" "$transitions" "$deadlock" \
        "$found_states" "$found_transitions" "$found_deadlock" \
        "$(printf '%.3f' "$seconds")" "$rate" "$verdict"
done <"$oracles"
echo "# $failures mismatch(es) or failure(s)"
((failures == 0))
