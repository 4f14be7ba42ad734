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
# STORAGE_BENCH_REPEATS (default 1), and STORAGE_BENCH_SPLITS (default "1":
# how the GPU search is split: 1 one GPU, gN N GPUs (--gpus N), pN N
# partitions of one GPU (--partitions N)), and STORAGE_BENCH_EXTRA (more
# options for every run, e.g. "--tree-roots pairs"). One tab-separated line per run:
# model, trace, split, storage asked, storage used, states, transitions,
# exact, search seconds, states per second, bytes a state, memory bytes,
# words, bytes exchanged a state, exchange seconds, exchange rounds,
# completion.
set -euo pipefail
bin=$1 mcc=$2
shift 2
engine=${STORAGE_BENCH_ENGINE:-gpu}
kinds=${STORAGE_BENCH_KINDS:-plain tree auto}
traces=${STORAGE_BENCH_TRACE:-no-trace trace}
repeats=${STORAGE_BENCH_REPEATS:-1}
splits=${STORAGE_BENCH_SPLITS:-1}
read -r -a extra <<<"${STORAGE_BENCH_EXTRA:-}"
parse=$(mktemp)
trap 'rm -f "$parse"' EXIT
cat > "$parse" <<'PY'
import json, sys
model, trace, split, kind, states, transitions = sys.argv[1:]
try:
    r = json.loads(sys.stdin.read())
except ValueError:
    r = {}
if "states" not in r:
    print("\t".join([model, trace, split, kind, "error"] + ["-"] * 11 + [r.get("error", "no report")]))
    sys.exit()
exact = "yes" if (str(r["states"]), str(r["transitions"])) == (states, transitions) else "NO"
p = r.get("partitions") or {}
exchanged = [f'{p["bytes_exchanged_per_state"]:.2f}', f'{p["exchange_seconds"]:.3f}', str(p["rounds"])] if p else ["-"] * 3
print("\t".join([model, trace, split, kind, r["storage"], str(r["states"]), str(r["transitions"]), exact,
                 f'{r["search_seconds"]:.3f}', f'{r["states_per_second"]:.3e}',
                 f'{r["bytes_per_state"]:.2f}', str(r["memory_bytes"]), str(r["vector_words"])] + exchanged
                + [r["completion"]]))
PY
printf 'model\ttrace\tsplit\tasked\tused\tstates\ttransitions\texact\tsearch_s\tstates_per_s\tbytes_per_state\tmemory_bytes\twords\texchanged_per_state\texchange_s\trounds\tcompletion\n'
for model in "$@"; do
  read -r states transitions < <(awk -F'\t' -v m="$model" '$1 == m {print $2, $3}' "$mcc/oracles.tsv")
  for trace in $traces; do
    flag=()
    [[ $trace == no-trace ]] && flag=(--no-trace)
    for _ in $(seq "$repeats"); do
      for split in $splits; do
        case $split in
          g*) split_flag=(--gpus "${split#g}") ;;
          p*) split_flag=(--gpus 1 --partitions "${split#p}") ;;
          *) split_flag=(--gpus 1) ;;
        esac
        for kind in $kinds; do
          json=$("$bin" check --engine "$engine" --storage "$kind" "${flag[@]}" "${split_flag[@]}" \
            "${extra[@]}" --deadlock --all --format json "$mcc/$model/model.pnml" || true)
          python3 "$parse" "$model" "$trace" "$split" "$kind" "$states" "$transitions" <<<"$json"
        done
      done
    done
  done
done
