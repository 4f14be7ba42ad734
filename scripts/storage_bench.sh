#!/usr/bin/env bash
# Side-by-side runs of one build with each way of storing states
# (--storage plain, tree, auto) on contest nets: time, bytes a state,
# memory, and whether the counts equal the oracle's.
#
#   scripts/storage_bench.sh BIN MCC_DIR MODEL... > results.tsv
#
# MCC_DIR holds MODEL/model.pnml and oracles.tsv (as ../shared/mcc does).
# Set STORAGE_BENCH_ENGINE (default gpu), STORAGE_BENCH_KINDS (default
# "plain tree auto"), STORAGE_BENCH_TRACE (default "no-trace trace") and
# STORAGE_BENCH_REPEATS (default 1). One tab-separated line per run:
# model, trace, storage asked, storage used, states, transitions, exact,
# search seconds, states per second, bytes a state, memory bytes, words.
set -euo pipefail
bin=$1 mcc=$2
shift 2
engine=${STORAGE_BENCH_ENGINE:-gpu}
kinds=${STORAGE_BENCH_KINDS:-plain tree auto}
traces=${STORAGE_BENCH_TRACE:-no-trace trace}
repeats=${STORAGE_BENCH_REPEATS:-1}
parse=$(mktemp)
trap 'rm -f "$parse"' EXIT
cat > "$parse" <<'PY'
import json, sys
model, trace, kind, states, transitions = sys.argv[1:]
try:
    r = json.loads(sys.stdin.read())
except ValueError:
    print("\t".join([model, trace, kind, "error"] + ["-"] * 8))
    sys.exit()
exact = "yes" if (str(r["states"]), str(r["transitions"])) == (states, transitions) else "NO"
print("\t".join([model, trace, kind, r["storage"], str(r["states"]), str(r["transitions"]), exact,
                 f'{r["search_seconds"]:.3f}', f'{r["states_per_second"]:.3e}',
                 f'{r["bytes_per_state"]:.2f}', str(r["memory_bytes"]), str(r["vector_words"])]))
PY
printf 'model\ttrace\tasked\tused\tstates\ttransitions\texact\tsearch_s\tstates_per_s\tbytes_per_state\tmemory_bytes\twords\n'
for model in "$@"; do
  read -r states transitions < <(awk -F'\t' -v m="$model" '$1 == m {print $2, $3}' "$mcc/oracles.tsv")
  for trace in $traces; do
    flag=()
    [[ $trace == no-trace ]] && flag=(--no-trace)
    for _ in $(seq "$repeats"); do
      for kind in $kinds; do
        json=$("$bin" check --engine "$engine" --storage "$kind" "${flag[@]}" --deadlock --all \
          --format json "$mcc/$model/model.pnml" || true)
        python3 "$parse" "$model" "$trace" "$kind" "$states" "$transitions" <<<"$json"
      done
    done
  done
done
