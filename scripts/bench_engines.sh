#!/usr/bin/env bash
# End-to-end engine benchmark: explores each model with every engine, side
# by side in one run on one machine, and prints a table of states per second,
# the ratio to the reference engine, the speedup over one CPU thread and the
# reported memory (memory_bytes: state table and frontier lists) per state.
#
# Usage: scripts/bench_engines.sh [options] MODEL...
#   --engines "reference cpu gpu"  engines to run (default: reference cpu)
#   --threads "1 2 4"              CPU engine thread counts (default: 1 and all cores)
#   --memory BYTES                 state table limit for cpu (it grows up to it) and
#                                  size for gpu (default: the engine's)
#   --repeat N                     runs per configuration; the fastest counts (default 1)
#   --no-trace                     run without predecessors (cpu: no predecessor log)
#   --example                      run examples/engine_run instead of the CLI
#                                  (reference and cpu only)
#   --bin PATH                     binary to run (skips building)
# A MODEL is a model file, or counters:P,S for the built-in family of P
# counters of S values (S^P states; --example only).
#
# Each run is `warpcheck check MODEL --deadlock --all --engine E --threads N
# --format json`, whose JSON gives states, transitions, search_seconds and
# memory_bytes. Exit status 1 when two engines disagree on a model's counts.
set -euo pipefail

engines="reference cpu"
threads="1 $(nproc)"
memory=""
repeat=1
no_trace=()
example=0
bin=""
models=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --engines) engines="$2"; shift 2 ;;
        --threads) threads="$2"; shift 2 ;;
        --memory) memory="$2"; shift 2 ;;
        --repeat) repeat="$2"; shift 2 ;;
        --no-trace) no_trace=(--no-trace); shift ;;
        --example) example=1; shift ;;
        --bin) bin="$2"; shift 2 ;;
        -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "bench_engines.sh: unknown option $1" >&2; exit 2 ;;
        *) models+=("$1"); shift ;;
    esac
done
if [[ ${#models[@]} -eq 0 ]]; then
    echo "usage: scripts/bench_engines.sh [options] MODEL... (--help)" >&2
    exit 2
fi

cd "$(dirname "$0")/.."
if [[ -z "$bin" ]]; then
    if [[ $example -eq 1 ]]; then
        cargo build --release --quiet --example engine_run
        bin=target/release/examples/engine_run
    else
        cargo build --release --quiet
        bin=target/release/warpcheck
    fi
fi

# One numeric field of a flat JSON object.
field() { sed -n "s/.*\"$1\":\([0-9.eE+-]*\).*/\1/p" <<<"$2"; }

# Runs engine $1 with $2 threads on model $3; prints the fastest run's JSON.
run() {
    local engine=$1 n=$2 model=$3 best="" best_time=""
    local args=(--engine "$engine" --threads "$n" "${no_trace[@]}")
    [[ -n "$memory" && "$engine" != reference ]] && args+=(--memory "$memory")
    for ((i = 0; i < repeat; i++)); do
        local out
        if [[ $example -eq 1 ]]; then
            out=$("$bin" "$model" "${args[@]}")
        else
            out=$("$bin" check "$model" --deadlock --all "${args[@]}" --format json || true)
        fi
        out=$(tr -d '\n ' <<<"$out")
        local t
        t=$(field search_seconds "$out")
        if [[ -z "$t" ]]; then
            echo "bench_engines.sh: no result from $engine on $model" >&2
            return 1
        fi
        if [[ -z "$best_time" ]] || awk "BEGIN{exit !($t < $best_time)}"; then
            best=$out best_time=$t
        fi
    done
    echo "$best"
}

status=0
printf '%-28s %-10s %7s %12s %13s %9s %12s %8s %8s %8s\n' \
    model engine threads states transitions seconds states/s vs_ref speedup B/state
for model in "${models[@]}"; do
    name=$(basename "$(dirname "$model")")
    [[ "$model" == counters:* || "$name" == . ]] && name=$(basename "$model")
    ref_rate="" one_thread_rate="" ref_counts=""
    for engine in $engines; do
        counts=$([[ "$engine" == reference ]] && echo 1 || echo "$threads")
        for n in $counts; do
            out=$(run "$engine" "$n" "$model") || { status=1; continue; }
            states=$(field states "$out")
            transitions=$(field transitions "$out")
            seconds=$(field search_seconds "$out")
            memory_bytes=$(field memory_bytes "$out")
            rate=$(awk "BEGIN{printf \"%.0f\", $states / ($seconds > 0 ? $seconds : 1e-9)}")
            if [[ -z "$ref_counts" ]]; then
                ref_counts="$states $transitions"
            elif [[ "$ref_counts" != "$states $transitions" ]]; then
                echo "MISMATCH on $name: $engine/$n found $states $transitions, first engine $ref_counts" >&2
                status=1
            fi
            [[ "$engine" == reference ]] && ref_rate=$rate
            [[ "$engine" == cpu && "$n" == 1 ]] && one_thread_rate=$rate
            vs_ref=$([[ -n "$ref_rate" ]] && awk "BEGIN{printf \"%.2f\", $rate / $ref_rate}" || echo -)
            speedup=$([[ -n "$one_thread_rate" && "$engine" == cpu ]] &&
                awk "BEGIN{printf \"%.2f\", $rate / $one_thread_rate}" || echo -)
            per_state=$(awk "BEGIN{printf \"%.1f\", $memory_bytes / $states}")
            shown=$([[ "$engine" == reference ]] && echo - || echo "$n")
            printf '%-28s %-10s %7s %12s %13s %9.2f %12s %8s %8s %8s\n' \
                "$name" "$engine" "$shown" "$states" "$transitions" "$seconds" "$rate" \
                "$vs_ref" "$speedup" "$per_state"
        done
    done
done
exit $status
