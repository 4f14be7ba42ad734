#!/usr/bin/env bash
# Explore + SCC of large MCC nets with `warpcheck scc`: on the GPU with the
# edges stored or generated again in each pass (--edges), and on the CPU
# engine as a cross-check where its graph fits in host memory. One JSON
# report and one stderr log (-vv: rounds and passes) per run in OUTDIR.
# Usage: scripts/scc_big.sh OUTDIR MODEL:MODES... (MODES: stored, generated,
# auto, cpu, joined by +), e.g. AutoFlight-PT-05a:generated+stored+cpu.
# Environment: WARPCHECK_BIN (default .device/warpcheck), WARPCHECK_MCC (the
# models and oracles.tsv, default .device/mcc), SCC_TIMEOUT (seconds a run,
# default 400).
set -uo pipefail
out=$1; shift
bin=${WARPCHECK_BIN:-.device/warpcheck}
mcc=${WARPCHECK_MCC:-.device/mcc}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
for spec in "$@"; do
  model=${spec%%:*}; modes=${spec#*:}
  grep -P "^$model\t" "$mcc/oracles.tsv"
  for mode in ${modes//+/ }; do
    echo "== $model $mode $(date +%T)"
    case $mode in
      cpu) args=(--engine cpu) ;;
      *) args=(--engine gpu --edges "$mode") ;;
    esac
    /usr/bin/time -v timeout "${SCC_TIMEOUT:-400}" "$bin" -vv --format json scc "$mcc/$model/model.pnml" "${args[@]}" \
      > "$out/$model-$mode.json" 2> "$out/$model-$mode.err"
    echo "rc=$?"
    python3 - "$out/$model-$mode.json" <<'PY'
import json,sys
try:
    r=json.load(open(sys.argv[1]))
except Exception as e:
    print("no report", e); sys.exit()
keys=["states","edges","components","largest_component","trivial_components","bottom_components","engine","method","edges_kept","finished_by","explore_seconds","decompose_seconds","elapsed_seconds","device_memory_peak_bytes"]
print({k:r.get(k) for k in keys})
PY
    grep -E "Maximum resident|Elapsed" "$out/$model-$mode.err"
    grep -v -E "^\s" "$out/$model-$mode.err" | grep -v "DEBUG" | head -5
    grep -c "round" "$out/$model-$mode.err"
  done
done
