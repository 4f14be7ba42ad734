#!/usr/bin/env bash
# Successor generation with rule indexes (issue 16, "Nets with very many
# transitions"): the CPU engine before and after, the same command side by
# side, in interleaved rounds.
# Usage: run.sh BEFORE_BINARY AFTER_BINARY MCC_DIR [ROUNDS [MODEL]]
# Writes runs.tsv (one line a run) and table.md (median and best a model);
# with MODEL, only that model, into runs-MODEL.tsv and table-MODEL.md.
set -euo pipefail
before=$1 after=$2 mcc=$3 rounds=${4:-3} only=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
suffix=${only:+-$only}
# model and state cap (0: the whole state space)
models=(
    "ARMCacheCoherence-PT-none 5000000"
    "ParamProductionCell-PT-0 0"
    "FlexibleBarrier-PT-06a 0"
    "Referendum-PT-0015 3000000"
    "Solitaire-PT-SqrNC5x5 3000000"
    "Peterson-PT-3 0"
    "ASLink-PT-01a 3000000"
    "AutoFlight-PT-05a 3000000"
    "DES-PT-01a 3000000"
    "DLCround-PT-03a 3000000"
)
printf 'model\tcap\tbinary\tround\tstates\ttransitions\tsearch_seconds\n' > "$here/runs$suffix.tsv"
for round in $(seq "$rounds"); do
    for entry in "${models[@]}"; do
        read -r model cap <<< "$entry"
        [ -n "$only" ] && [ "$model" != "$only" ] && continue
        limit=()
        [ "$cap" != 0 ] && limit=(--max-states "$cap")
        for which in before after; do
            binary=$before
            [ "$which" = after ] && binary=$after
            command=("$binary" --format json check "$mcc/$model/model.pnml" --engine cpu "${limit[@]}")
            echo "round $round: ${command[*]}" >&2
            "${command[@]}" > "$here/last.json" || true
            python3 - "$here/last.json" "$model" "$cap" "$which" "$round" >> "$here/runs$suffix.tsv" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
print("\t".join(sys.argv[2:6] + [str(run["states"]), str(run["transitions"]), str(run["search_seconds"])]))
PY
        done
    done
done
rm -f "$here/last.json"
python3 - "$here/runs$suffix.tsv" "$rounds" > "$here/table$suffix.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print(f"CPU engine (2 threads), {sys.argv[2]} interleaved rounds; median (best) of the rounds.\n")
print("| model | cap | states/s before | states/s after | edges/s before | edges/s after | ratio (median states/s) |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
models = list(dict.fromkeys(r["model"] for r in rows))
for model in models:
    figures = {}
    for which in ("before", "after"):
        runs = [r for r in rows if r["model"] == model and r["binary"] == which]
        states = [int(r["states"]) / float(r["search_seconds"]) for r in runs]
        edges = [int(r["transitions"]) / float(r["search_seconds"]) for r in runs]
        figures[which] = (statistics.median(states), max(states), statistics.median(edges), max(edges))
    cap = next(r["cap"] for r in rows if r["model"] == model)
    b, a = figures["before"], figures["after"]
    fmt = lambda m, best: f"{m:,.0f} ({best:,.0f})"
    print(f"| {model} | {cap if cap != '0' else 'none'} | {fmt(b[0], b[1])} | {fmt(a[0], a[1])} | "
          f"{fmt(b[2], b[3])} | {fmt(a[2], a[3])} | {a[0] / b[0]:.2f} |")
PY
cat "$here/table$suffix.md"
