#!/usr/bin/env bash
# Side-by-side timing of the GPU explorer's table: an older build (one
# table of all the memory, 32-bit slots), this build starting small and
# growing (the default), and this build starting at its largest table (no
# growth: what 64-bit slot numbers and the other changes cost alone).
# Every run must give the oracle's state and transition counts.
#
#   scripts/table_bench.sh OLD_BIN NEW_BIN MCC_DIR MODEL... > results.tsv
#
# MCC_DIR holds MODEL/model.pnml and oracles.tsv (as ../shared/mcc does).
# Set TABLE_BENCH_REPEATS (default 2), TABLE_BENCH_ENGINE (default gpu),
# TABLE_BENCH_TRACE ("no-trace trace" by default) and TABLE_BENCH_OTHER
# (a third build, run as variant "other" with the default table). Prints one tab-separated line per run:
# model, trace, variant, states, transitions, exact, search seconds,
# wall seconds (load and set-up included), peak table bytes, growths.
set -euo pipefail
old=$1 new=$2 mcc=$3
shift 3
engine=${TABLE_BENCH_ENGINE:-gpu}
repeats=${TABLE_BENCH_REPEATS:-2}
traces=${TABLE_BENCH_TRACE:-no-trace trace}
parse=$(mktemp)
trap 'rm -f "$parse"' EXIT
cat > "$parse" <<'PY'
import json, re, sys
model, trace, variant, states, transitions, start, end = sys.argv[1:]
r = json.loads(sys.stdin.read())
details = dict(r.get("engine_details", []))
growths = re.search(r"grew (\d+) time", details.get("hash table", ""))
exact = "yes" if (str(r["states"]), str(r["transitions"])) == (states, transitions) else "NO"
print("\t".join([model, trace, variant, str(r["states"]), str(r["transitions"]), exact,
                 f'{r["search_seconds"]:.3f}', f"{float(end) - float(start):.3f}",
                 str(r["memory_bytes"]), growths.group(1) if growths else "-"]))
PY
printf 'model\ttrace\tvariant\tstates\ttransitions\texact\tsearch_s\twall_s\tmemory_bytes\tgrowths\n'
for model in "$@"; do
  read -r states transitions < <(awk -F'\t' -v m="$model" '$1 == m {print $2, $3}' "$mcc/oracles.tsv")
  for trace in $traces; do
    flag=()
    [[ $trace == no-trace ]] && flag=(--no-trace)
    for repeat in $(seq "$repeats"); do
      variants=(old grow largest)
      [[ -n ${TABLE_BENCH_OTHER:-} ]] && variants+=(other)
      for variant in "${variants[@]}"; do
        case $variant in
          other) cmd=("$TABLE_BENCH_OTHER" check --engine "$engine") ;;
          old) cmd=("$old" check --engine "$engine") ;;
          grow) cmd=("$new" check --engine "$engine") ;;
          largest) cmd=("$new" check --engine "$engine" --initial-table 4T) ;;
        esac
        start=$(date +%s.%N)
        json=$("${cmd[@]}" "${flag[@]}" --deadlock --all --format json "$mcc/$model/model.pnml" || true)
        end=$(date +%s.%N)
        python3 "$parse" "$model" "$trace" "$variant" "$states" "$transitions" "$start" "$end" <<<"$json"
      done
    done
  done
done
